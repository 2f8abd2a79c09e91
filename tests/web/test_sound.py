"""The sound the server names for each action (data-sound on the swapped status), and its switch."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.engine import Rules
from tests.support.deals import won_deal
from tests.support.pages import HX, game_id_of


def status_sound(html: str) -> str | None:
    found = re.search(r'<p id="status"[^>]*>', html)
    assert found, "no status"
    sound = re.search(r'data-sound="([a-z]+)"', found.group(0))
    return sound.group(1) if sound else None


def test_each_action_names_its_sound_and_a_page_load_none(client: TestClient) -> None:
    code, line = won_deal(Rules.EASY)
    page = client.get(f"/g/{code.text()}")
    assert status_sound(page.text) is None and 'id="sound"' in page.text and 'aria-pressed="true"' in page.text
    game_id = game_id_of(page.text)
    draw = client.post(f"/games/{game_id}/draw", headers=HX)
    assert status_sound(draw.text) == "draw"
    assert status_sound(client.post(f"/games/{game_id}/undo", headers=HX).text) == "undo"
    refused = client.post(f"/games/{game_id}/remove", data={"position": "0"}, headers=HX)
    assert refused.status_code == 409 and status_sound(refused.text) == "refused"
    sounds = []
    for action in line:
        if action < 0:
            answer = client.post(f"/games/{game_id}/draw", headers=HX)
        else:
            answer = client.post(f"/games/{game_id}/remove", data={"position": str(action)}, headers=HX)
        sounds.append(status_sound(answer.text))
        runs = re.search(r'data-run="(\d+)"', answer.text)
        if sounds[-1] == "take":
            assert runs is not None and int(runs.group(1)) >= 1
    assert sounds[-1] == "win" and "peak" in sounds and set(sounds) <= {"take", "draw", "peak", "win"}
    assert status_sound(client.get(f"/g/{code.text()}").text) is None  # the whole page: silent


def test_the_switch_is_remembered_and_off_names_no_sound(client: TestClient) -> None:
    page = client.get("/g/TP1-E-AAAAAAB")
    game_id = game_id_of(page.text)
    off = client.post("/settings/sound", headers=HX)
    assert off.status_code == 200 and 'aria-pressed="false"' in off.text and 'id="sound-form"' in off.text
    assert "tp_sound=0" in off.headers["set-cookie"] and "HttpOnly" in off.headers["set-cookie"]
    assert status_sound(client.post(f"/games/{game_id}/draw", headers=HX).text) is None
    assert 'id="sound" class="button subtle toggle" aria-pressed="false"' in client.get("/g/TP1-E-AAAAAAB").text
    back = client.post("/settings/sound", headers={"Referer": "http://testserver/stats"}, follow_redirects=False)
    assert back.status_code == 303 and back.headers["location"] == "/stats"
    assert status_sound(client.post(f"/games/{game_id}/draw", headers=HX).text) == "draw"
