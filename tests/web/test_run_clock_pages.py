"""The run and the clock on the game page and in the API, the statistics page, how to play,
the first-visit offer and the daily deal's label."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from fastapi.testclient import TestClient

from app.engine import DRAW, Game, Rules
from app.i18n import get_locale, use_locale
from app.store import MemoryStore
from app.web.presentation import clock as clock_module
from app.web.presentation.clock import clock_text, duration_iso
from app.web.presentation.daily.days import daily_view, until_next
from tests.support.deals import won_deal
from tests.support.pages import HX, open_deal, text_of

CODE = "TP1-E-AAAAAAB"
LANGS = ("en", "he", "uk", "th")


class FakeTime:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr(clock_module, "now", fake)
    return fake


def act(client: TestClient, game_id: str, action: int) -> str:
    if action == DRAW:
        response = client.post(f"/games/{game_id}/draw", headers=HX)
    else:
        response = client.post(f"/games/{game_id}/remove", data={"position": str(action)}, headers=HX)
    assert response.status_code == 200, response.text
    return response.text


# -- the run ---------------------------------------------------------------------------------


def test_every_move_swaps_the_run_out_of_band(client: TestClient) -> None:
    code, line = won_deal(Rules.EASY)
    game_id, page = open_deal(client, code.text())
    assert text_of(page, "run") == "0"
    game = Game(code)
    for action in line[:-1]:
        fragment = act(client, game_id, action)
        game.replay([action])
        assert re.search(r'id="run"[^>]*hx-swap-oob="true"', fragment)
        assert text_of(fragment, "run") == str(game.run)
    assert game.longest_run > 1


def test_undo_gives_back_the_run_exactly(client: TestClient) -> None:
    game = Game.from_code(CODE)
    game_id, _ = open_deal(client)
    first = game.playable_positions()[0]
    assert text_of(act(client, game_id, first), "run") == "1"
    game.remove(first)
    nxt = game.playable_positions()[0]
    assert text_of(act(client, game_id, nxt), "run") == "2"
    assert text_of(act(client, game_id, DRAW), "run") == "0"
    undone = client.post(f"/games/{game_id}/undo", headers=HX)
    assert text_of(undone.text, "run") == "2"


def test_the_result_shows_the_longest_run_and_the_time(client: TestClient, fake_time: FakeTime) -> None:
    code, line = won_deal(Rules.EASY)
    game_id, _ = open_deal(client, code.text())
    for action in line:
        fake_time.now += 3
        last = act(client, game_id, action)
    game = Game(code)
    game.replay(line)
    took = 3 * (len(line) - 1)
    tally = text_of(last, "result-tally")
    assert f"Longest run: {game.longest_run}" in tally
    assert f"Time: {clock_text(took)}" in tally
    # The clock has stopped: later pages show the same time, and nothing counts on.
    fake_time.now += 1000
    page = client.get(f"/g/{code.text()}").text
    assert text_of(page, "clock") == clock_text(took)
    assert "data-running" not in page


# -- the clock ---------------------------------------------------------------------------------


def test_the_clock_starts_at_the_first_action_and_survives_a_reload(
    client: TestClient, store: MemoryStore, fake_time: FakeTime
) -> None:
    game_id, page = open_deal(client)
    assert text_of(page, "clock") == "0:00" and "data-running" not in page
    fake_time.now += 30  # looking at the deal is not playing it
    fragment = act(client, game_id, DRAW)
    assert re.search(r'id="clock"[^>]*hx-swap-oob="true"', fragment)
    assert 'data-running="0"' in fragment
    stored = store.get(game_id)
    assert stored is not None and stored.game.started_at == fake_time.now
    fake_time.now += 125
    page = client.get(f"/g/{CODE}").text  # a reload: the server renders the true time
    assert text_of(page, "clock") == "2:05"
    assert re.search(r'<time class="value" id="clock" datetime="PT2M5S" data-running="125">', page)
    assert "Run</span>" in page and "Time</span>" in page


def test_hints_and_refusals_do_not_start_the_clock(client: TestClient, store: MemoryStore) -> None:
    game_id, _ = open_deal(client)
    game = Game.from_code(CODE)
    blocked = next(p for p in range(28) if not game.is_exposed(p))
    assert client.post(f"/games/{game_id}/remove", data={"position": str(blocked)}, headers=HX).status_code == 409
    stored = store.get(game_id)
    assert stored is not None and stored.game.started_at is None


def test_clock_text() -> None:
    assert [clock_text(s) for s in (0, 5.9, 65, 3599, 3600, 3723)] == [
        "0:00", "0:05", "1:05", "59:59", "1:00:00", "1:02:03",
    ]  # fmt: skip
    assert [duration_iso(s) for s in (0, 65, 3723)] == ["PT0S", "PT1M5S", "PT1H2M3S"]


# -- the JSON API ----------------------------------------------------------------------------


def test_the_api_state_has_the_run_and_the_clock(client: TestClient, fake_time: FakeTime) -> None:
    code, line = won_deal(Rules.EASY)
    state = client.post("/api/games", json={"code": code.text()}).json()
    assert (state["run"], state["longest_run"], state["started_at"], state["ended_after"]) == (0, 0, None, None)
    game = Game(code)
    for action in line:
        fake_time.now += 2
        if action == DRAW:
            state = client.post(f"/api/games/{state['id']}/draw").json()
        else:
            state = client.post(f"/api/games/{state['id']}/remove", json={"position": action}).json()
        game.replay([action])
        assert (state["run"], state["longest_run"]) == (game.run, game.longest_run)
        assert state["started_at"] == 1_800_000_002.0
    assert state["status"] == "won"
    assert state["ended_after"] == 2 * (len(line) - 1)
    assert client.get(f"/api/games/{state['id']}").json() == state


def test_api_undo_restores_the_run(client: TestClient) -> None:
    game = Game.from_code(CODE)
    state = client.post("/api/games", json={"code": CODE}).json()
    position = game.playable_positions()[0]
    state = client.post(f"/api/games/{state['id']}/remove", json={"position": position}).json()
    assert state["run"] == 1
    state = client.post(f"/api/games/{state['id']}/draw").json()
    assert (state["run"], state["longest_run"]) == (0, 1)
    state = client.post(f"/api/games/{state['id']}/undo").json()
    assert (state["run"], state["longest_run"]) == (1, 1)


# -- statistics ------------------------------------------------------------------------------


def test_stats_show_longest_run_and_fastest_win(client: TestClient, fake_time: FakeTime) -> None:
    code, line = won_deal(Rules.EASY)
    game_id, _ = open_deal(client, code.text())
    for action in line:
        fake_time.now += 4
        act(client, game_id, action)
    game = Game(code)
    game.replay(line)
    page = client.get("/stats").text
    assert text_of(page, "stats-longest-run").startswith("Longest run")
    row = re.search(r'<tr id="stats-fastest-win">(.*?)</tr>', page, re.S)
    assert row is not None
    took = 4 * (len(line) - 1)
    assert f'<td><time datetime="{duration_iso(took)}">{clock_text(took)}</time></td><td>–</td>' in row.group(1)  # noqa: RUF001
    run_row = re.search(r'<tr id="stats-longest-run">(.*?)</tr>', page, re.S)
    assert run_row is not None and f"<td>{game.longest_run}</td><td>–</td>" in run_row.group(1)  # noqa: RUF001
    stats = client.get("/api/players/me/stats").json()["stats"][0]
    assert (stats["longest_run"], stats["fastest_win"]) == (game.longest_run, took)


@pytest.mark.parametrize("lang", LANGS)
def test_stats_page_has_a_column_per_rule_set_in_every_language(client: TestClient, lang: str) -> None:
    client.post("/settings/language", data={"lang": lang})
    page = client.get("/stats").text
    words = get_locale(lang)
    assert f'lang="{lang}"' in page
    headings = re.findall(r'<th scope="col" id="stats-(easy|classic)">([^<]+)</th>', page)
    assert headings == [("easy", words.gettext("Easy")), ("classic", words.gettext("Classic"))]
    for figure in ("Played", "Won", "Win rate", "Best score", "Longest run", "Fastest win"):
        assert f'<th scope="row">{words.gettext(figure)}</th>' in page
    # Every figure's row has exactly one cell per rule set.
    rows = re.findall(r'<tr id="stats-[a-z-]+">(.*?)</tr>', page, re.S)
    assert len(rows) == 8 and all(r.count("<td>") == 2 for r in rows)


# -- how to play -----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_how_to_play_in_every_language(client: TestClient, lang: str) -> None:
    client.post("/settings/language", data={"lang": lang})
    page = client.get("/how-to-play")
    assert page.status_code == 200
    words = get_locale(lang)
    assert f'<html lang="{lang}" dir="{words.direction}"' in page.text
    assert f"<h1>{words.gettext('How to play')}</h1>" in page.text
    # The messages it quotes are the game's own, in the same words.
    for message in ("Rank must be one higher or lower", "This card is blocked", "No more possible moves"):
        assert words.gettext(message) in page.text
    assert "772" in page.text and "TP1-E-AAAAAAB" in page.text
    if lang != "en":
        assert "The score starts at 500" not in page.text  # translated, not English
    assert 'id="howto-link" href="/how-to-play" aria-current="page"' in page.text


def test_the_top_bar_links_to_how_to_play_on_every_page(client: TestClient) -> None:
    for url in (f"/g/{CODE}", "/stats", "/new"):
        assert 'id="howto-link" href="/how-to-play"' in client.get(url).text, url


def test_a_first_visit_offers_how_to_play_until_it_is_read(client: TestClient) -> None:
    page = client.get(f"/g/{CODE}").text
    assert 'id="howto-offer"' in page
    assert 'id="howto-offer"' in client.get("/stats").text  # still offered: not read yet
    read = client.get("/how-to-play")
    assert 'id="howto-offer"' not in read.text
    cookie = read.headers["set-cookie"]
    assert cookie.startswith("tp_howto=1") and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    assert 'id="howto-offer"' not in client.get(f"/g/{CODE}").text
    assert "set-cookie" not in client.get("/how-to-play").headers  # set once


def test_no_thanks_stops_the_offer(client: TestClient, other_client: TestClient) -> None:
    swapped = client.post("/settings/how-to-play", headers=HX)
    assert swapped.status_code == 200 and swapped.text == ""
    assert swapped.headers["set-cookie"].startswith("tp_howto=1")
    assert 'id="howto-offer"' not in client.get("/stats").text
    # Without JavaScript: back to the page the form was sent from.
    base = str(other_client.base_url)
    plain = other_client.post(
        "/settings/how-to-play", headers={"Referer": f"{base}/stats"}, follow_redirects=False
    )
    assert plain.status_code == 303 and plain.headers["location"] == "/stats"
    elsewhere = other_client.post(
        "/settings/how-to-play", headers={"Referer": "https://evil.example/x"}, follow_redirects=False
    )
    assert elsewhere.headers["location"] == "/"


# -- the daily deal --------------------------------------------------------------------------


def test_the_daily_deal_is_labelled_with_its_date_and_the_time_to_the_next(client: TestClient) -> None:
    page = client.get("/daily")  # follows to /daily/<today>
    assert page.status_code == 200
    today = dt.datetime.now(dt.UTC).date()
    label = re.search(r'<p class="daily-label" id="daily-label">(.*?)</p>', page.text, re.S)
    assert label is not None
    assert "<strong>Daily deal</strong>" in label.group(1)
    assert f'<time datetime="{today.isoformat()}">' in label.group(1)
    # "14 hr, 2 min"; "14 hr" alone in the first minute of an hour; "2 min" in the last hour
    assert re.search(r"Next daily deal in (\d+ hr, \d+ min|\d+ hr|\d+ min)<", label.group(1))
    assert 'id="daily-label"' not in client.get(f"/g/{CODE}").text  # any other deal: no label


def test_daily_label_of_today_and_other_days() -> None:
    at = dt.datetime(2026, 12, 1, 18, 47, 30, tzinfo=dt.UTC)
    with use_locale(get_locale("en")):
        label = daily_view(at.date(), None, "g", at)
        assert (label.date_text, label.next_in, label.difficulty) == ("Tuesday, December 1, 2026", "5 hr, 13 min", "Medium")
        old = daily_view(at.date() - dt.timedelta(days=1), None, "g", at)
        assert old.date_text == "Monday, November 30, 2026" and old.next_in is None and old.difficulty == "Easy"
        assert not old.practice and not old.late
    with use_locale(get_locale("uk")):
        label = daily_view(at.date(), None, "g", at)
        assert label.date_text == "вівторок, 1 грудня 2026 р."  # noqa: RUF001


def test_until_next() -> None:
    def at(h: int, m: int, s: int = 0) -> dt.datetime:
        return dt.datetime(2026, 12, 1, h, m, s, tzinfo=dt.UTC)

    assert until_next(at(0, 0), "en") == "24 hr"
    assert until_next(at(23, 59, 59), "en") == "1 min"
    assert until_next(at(23, 10), "en") == "50 min"
    assert until_next(at(18, 47), "he") == "5 שע׳, 13 דק׳"  # noqa: RUF001
    assert until_next(at(18, 47), "uk") == "5 год і 13 хв"  # noqa: RUF001
