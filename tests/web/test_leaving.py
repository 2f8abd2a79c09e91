"""Every way out of a game under way keeps the way back, and never counts it as a loss (issue 30)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.support.pages import HX, game_id_of, text_of

CODE = "TP1-E-AAAAAAB"
OTHER = "TP1-E-AAAAAAC"


def played_easy(client: TestClient) -> str:
    """The Played figure of the easy rules (the first column) on /stats."""
    row = re.search(r'id="stats-played"><th scope="row">[^<]*</th><td>(\d+)</td>', client.get("/stats").text)
    assert row, "no Played row"
    return row.group(1)


def started(client: TestClient) -> str:
    """A game of CODE with one draw made: under way."""
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    assert client.post(f"/games/{game_id}/draw").status_code in (200, 303)
    return game_id


def test_the_daily_deal_offers_the_game_left_and_statistics_count_no_loss(client: TestClient) -> None:
    game_id = started(client)
    daily = client.get("/daily")  # the top bar's "Daily deal"
    assert daily.status_code == 200 and daily.url.path.startswith("/daily/")
    assert "tp_left=" in daily.headers["set-cookie"]
    assert CODE in text_of(daily.text, "resume")
    assert game_id_of(daily.text) != game_id
    stats = client.get("/stats")
    assert played_easy(client) == "0", "the game left is not a loss while it can be taken up"
    assert 'id="back-to-game"' in stats.text
    again = client.get(daily.url.path)  # a reload of the day's page keeps the way back
    assert CODE in text_of(again.text, "resume")
    back = client.post(f"/games/{game_id}/resume", headers=HX)
    assert back.status_code == 200 and back.headers["hx-push-url"] == f"/g/{CODE}"
    assert text_of(back.text, "moves") == "1"
    assert client.get("/", follow_redirects=False).headers["location"] == f"/g/{CODE}"


def test_a_deal_link_offers_the_way_back_and_the_way_back_again(client: TestClient) -> None:
    game_id = started(client)
    other = client.get(f"/g/{OTHER}")
    assert CODE in text_of(other.text, "resume")
    other_id = game_id_of(other.text)
    client.post(f"/games/{other_id}/draw")
    back = client.post(f"/games/{game_id}/resume", headers=HX)
    assert OTHER in text_of(back.text, "resume"), "the game just left is offered in turn"
    assert f"tp_left={other_id}" in back.headers["set-cookie"]


def test_no_way_back_to_a_game_without_a_move_or_over(client: TestClient) -> None:
    client.get(f"/g/{CODE}")
    other = client.get(f"/g/{OTHER}")
    assert 'id="resume"' not in other.text and "tp_left=" not in other.headers.get("set-cookie", "")


@pytest.mark.parametrize("cookie", ["nonsense id!", "x" * 65, "AAAAAAAAAAAAAAAAAAAAAA"])
def test_a_cookie_naming_no_game_of_the_players_is_ignored(client: TestClient, cookie: str) -> None:
    client.cookies.set("tp_left", cookie)
    page = client.get(f"/g/{CODE}")
    assert page.status_code == 200 and 'id="resume"' not in page.text


def test_another_players_game_is_never_offered(client: TestClient, other_client: TestClient) -> None:
    theirs = game_id_of(other_client.get(f"/g/{OTHER}").text)
    other_client.post(f"/games/{theirs}/draw")
    client.cookies.set("tp_left", theirs)
    assert 'id="resume"' not in client.get(f"/g/{CODE}").text


@pytest.mark.parametrize("path", ["/stats", "/howto", "/display"])
def test_pages_that_change_no_game_lead_back_to_it_from_the_top_bar(client: TestClient, path: str) -> None:
    started(client)
    page = client.get(path).text
    assert len(re.findall(r'id="back-to-game"', page)) == 1
    assert re.search(r'<a class="button" href="/" id="back-to-game">Back to your game</a>', page)
    assert played_easy(client) == "0"
