"""The day's deal practised first (issue 41, section 1): whatever path deals it first that day is
the player's ranked attempt; while it is under way no path deals another game of it (the page
says so and offers to end it first); every action of it counts; its share text and the deal's
record are the attempt's and hidden as par is; a past day's page deals nothing until clicked.
At a fixed clock (tests/support/daily.py), on the memory store (tests/store/test_daily_deals.py
has the store's side on every backend)."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app.engine import DRAW, Game, GameCode, Status
from app.store import MemoryStore
from tests.support.catalogs import po
from tests.support.daily import CODE, MORNING, THURSDAY, blocked_line, won_line
from tests.support.pages import HX, game_id_of, play
from tests.support.store import Clock

DAY = THURSDAY.isoformat()


def attempt_game(store: MemoryStore) -> set[str]:
    """The games that are some player's game of the day."""
    return {row.game_id for (day, _), row in store._daily.items() if day == DAY}


def race_of(store: MemoryStore, location: str) -> str:
    race = store.race(location.rsplit("/", 1)[1])
    assert race is not None
    return race.id


def by_daily(client: TestClient, store: MemoryStore) -> str:
    return game_id_of(client.get(f"/daily/{DAY}").text)


def by_link(client: TestClient, store: MemoryStore) -> str:
    return game_id_of(client.get(f"/g/{CODE.text()}").text)


def by_new_game(client: TestClient, store: MemoryStore) -> str:
    return game_id_of(client.post("/new", data={"code": CODE.text()}, follow_redirects=True).text)


def by_new_game_htmx(client: TestClient, store: MemoryStore) -> str:
    return game_id_of(client.post("/new", data={"code": CODE.text()}, headers=HX).text)


def by_api(client: TestClient, store: MemoryStore) -> str:
    return str(client.post("/api/games", json={"code": CODE.text()}).json()["id"])


def by_race(client: TestClient, store: MemoryStore) -> str:
    race_id = race_of(store, client.post("/races", data={"code": CODE.text()}, follow_redirects=False).headers["location"])
    return store.race(race_id).racers[0].game_id  # type: ignore[union-attr]


def by_joining(client: TestClient, store: MemoryStore) -> str:
    other = TestClient(client.app)  # someone made a room on the day's deal: the player joins
    with other:
        race_id = race_of(store, other.post("/races", data={"code": CODE.text()}, follow_redirects=False).headers["location"])
    assert client.post(f"/races/{race_id}/join", follow_redirects=False).status_code == 303
    return store.race(race_id).racers[1].game_id  # type: ignore[union-attr]


PATHS: dict[str, Callable[[TestClient, MemoryStore], str]] = {
    "daily page": by_daily,
    "deal link": by_link,
    "New game": by_new_game,
    "New game, htmx": by_new_game_htmx,
    "API": by_api,
    "race room": by_race,
    "race seat": by_joining,
}


@pytest.mark.parametrize("path", list(PATHS))
def test_whatever_path_deals_the_day_s_deal_first_is_the_attempt(ann: TestClient, daily_store: MemoryStore, path: str) -> None:
    dealt = PATHS[path](ann, daily_store)
    attempts = attempt_game(daily_store)
    assert dealt in attempts
    assert ann.get("/api/daily").json()["you"] is not None
    # While it is under way, every path that would deal another game of the deal deals nothing
    before = len(daily_store._games)
    mine = daily_store.get(dealt)
    if mine is not None and mine.owner is not None:
        assert ann.post(f"/games/{dealt}/restart").status_code == 409
    assert ann.post("/new", data={"code": CODE.text()}).status_code == 409
    assert ann.post("/new", data={"code": CODE.text()}, headers=HX).status_code == 409
    assert ann.post("/api/games", json={"code": CODE.text()}).json()["error"] == "attempt_unfinished"
    assert ann.post("/races", data={"code": CODE.text()}, follow_redirects=False).status_code == 409
    assert len(daily_store._games) == before and attempt_game(daily_store) == attempts


def test_a_bot_cannot_practise_then_rank_a_quick_second_game(ann: TestClient, daily_store: MemoryStore, clock: Clock) -> None:
    """The solver's line at ~0 s a move with one 5 s pause ranked 1st: the first game of the
    deal, made by the New game window's post, is now the attempt, and every interval counts."""
    line = won_line()
    first = by_new_game_htmx(ann, daily_store)  # (no redirect followed to the deal's page)
    play(ann, first, line[:-1], clock=clock, step=0.01)
    again = by_daily(ann, daily_store)  # the daily page shows the same game: the attempt
    assert again == first
    play(ann, first, line[-1:], clock=clock, step=5.0)
    you = ann.get("/api/daily").json()["you"]
    assert you["won"] and not you["ranked"] and you["rank"] is None


def test_restart_of_the_attempt_offers_to_end_it_first_in_each_language(ann: TestClient, daily_store: MemoryStore, clock: Clock) -> None:
    attempt = by_daily(ann, daily_store)
    play(ann, attempt, [DRAW], clock=clock)
    for lang in ("en", "he", "uk", "th"):
        page = ann.post(f"/games/{attempt}/restart", headers={"Accept-Language": lang})
        assert page.status_code == 409 and f'lang="{lang}"' in page.text
        assert str(escape(po(lang, "Your ranked attempt is not finished"))) in page.text
        assert str(escape(po(lang, "Keep playing my attempt"))) in page.text
        assert str(escape(po(lang, "End my attempt, then play the deal"))) in page.text
    block = ann.post(f"/games/{attempt}/restart", headers=HX)
    assert block.status_code == 409 and '<div id="game"' in block.text and 'href="#attempt-choice" hx-swap-oob' in block.text
    assert "<html" not in block.text and 'name="end_attempt" value="true"' in block.text
    assert f'action="/games/{attempt}/resume"' in block.text  # "keep playing" takes it up again
    assert len(daily_store._games) == 1
    # Kept: the attempt is its game again
    kept = ann.post(f"/games/{attempt}/resume", headers=HX)
    assert kept.status_code == 200 and game_id_of(kept.text) == attempt
    # Ended: a practice game, which says so, and whose end no longer speaks of a ranked attempt
    practice = ann.post(f"/games/{attempt}/restart", data={"end_attempt": "true"}, headers=HX)
    assert practice.status_code == 200 and game_id_of(practice.text) != attempt
    assert 'id="daily-practice"' in practice.text
    mine = ann.get("/api/daily").json()["you"]
    assert mine["score"] == 499 and not mine["won"]  # counted as it stood: one draw
    play(ann, game_id_of(practice.text), won_line(), clock=clock)
    board = ann.get(f"/daily/{DAY}/board", headers=HX).text
    assert "This is your ranked attempt" not in board and 'id="daily-standing"' in board
    # "Back to the game you left" takes up the attempt's game as practice: it changes nothing
    back = ann.post(f"/games/{attempt}/resume", follow_redirects=True)
    assert game_id_of(back.text) == attempt and 'id="daily-practice"' in back.text
    play(ann, attempt, [DRAW, DRAW], clock=clock)
    assert ann.get("/api/daily").json()["you"]["score"] == 499


def test_new_game_with_the_day_s_code_offers_the_same_and_keeps_the_window_s_choices(ann: TestClient, daily_store: MemoryStore, clock: Clock) -> None:
    attempt = by_daily(ann, daily_store)
    play(ann, attempt, [DRAW], clock=clock)
    form = {"code": CODE.text(), "rules": "classic", "layout": "valley", "variants": ["joker"], "winnable_only": "true"}
    page = ann.post("/new", data=form)
    assert page.status_code == 409 and 'action="/new"' in page.text
    for field in ('name="layout" value="valley"', 'name="variants" value="joker"', 'name="winnable_only" value="true"'):
        assert field in page.text  # sent again with the choice: the remembered choices stay
    done = ann.post("/new", data={**form, "end_attempt": "true"}, follow_redirects=False)
    assert done.status_code == 303 and done.cookies.get("tp_layout") == "valley"


def test_an_attempt_under_way_through_the_api_is_offered_to_end_on_the_page(ann: TestClient, daily_store: MemoryStore) -> None:
    made = by_api(ann, daily_store)
    page = ann.get(f"/daily/{DAY}")
    assert page.status_code == 409 and 'id="attempt-choice"' in page.text
    assert 'id="keep-attempt"' not in page.text  # not a game the page can show
    ended = ann.post(f"/daily/{DAY}", data={"end_attempt": "true"}, follow_redirects=True)
    assert ended.status_code == 200 and game_id_of(ended.text) != made and 'id="daily-practice"' in ended.text


def test_the_share_text_is_the_attempt_s(ann: TestClient, daily_store: MemoryStore, clock: Clock) -> None:
    """An attempt blocked, undone and won as practice shared "blocked ▲▲▲ · 650 / 755"."""
    attempt = by_daily(ann, daily_store)
    blocked = blocked_line()
    play(ann, attempt, blocked, clock=clock)
    score = ann.get("/api/daily").json()["you"]["score"]
    for _ in blocked:
        assert ann.post(f"/games/{attempt}/undo", headers=HX).status_code == 200
    play(ann, attempt, won_line(), clock=clock)
    assert daily_store.get(attempt).game.status is Status.WON  # type: ignore[union-attr]
    board = ann.get(f"/daily/{DAY}/board").text
    share = re.search(r'<textarea id="daily-share-text"[^>]*>(.*?)</textarea>', board, re.S)
    assert share is not None
    marks = "".join("▲" if cleared else "△" for cleared in played_marks(blocked))
    assert f"blocked {marks} · {score}" in html_lib.unescape(share.group(1)) and marks != "▲▲▲"


def played_marks(line: tuple[int, ...]) -> tuple[bool, ...]:
    game = Game(CODE)
    game.replay(line)
    return game.peaks_cleared


def test_the_day_s_record_is_hidden_as_its_par_is(ann: TestClient, bob: TestClient, daily_store: MemoryStore, clock: Clock) -> None:
    play(bob, by_daily(bob, daily_store), won_line(), clock=clock)  # Bob holds the record: the day's par, soon
    attempt = by_daily(ann, daily_store)
    hidden = po("en", "The record of today's daily deal is shown once your attempt has ended.")
    assert str(escape(hidden)) in ann.get(f"/daily/{DAY}").text
    record = ann.get(f"/api/deals/{CODE.text()}/record").json()
    assert record["hidden"] and record["best_score"] is None and record["first_win"] is None
    assert record["line"] == hidden
    visitor = TestClient(ann.app)  # no attempt today: hidden too, until the day is over
    assert visitor.get(f"/api/deals/{CODE.text()}/record").json()["best_score"] is None
    play(ann, attempt, blocked_line(), clock=clock)  # her attempt ends
    record = ann.get(f"/api/deals/{CODE.text()}/record").json()
    assert not record["hidden"] and record["best_score"]["score"] > 0
    assert "Record: " in ann.get(f"/g/{CODE.text()}").text
    other = ann.get("/api/deals/TP1-E-AAAAAAB/record").json()  # any other deal: as ever
    assert not other["hidden"]


def test_a_past_day_s_page_deals_only_on_the_player_s_click(ann: TestClient, daily_store: MemoryStore) -> None:
    """A cross-site top-level GET made a late game in the visitor's calendar."""
    page = ann.get("/daily/2026-12-01", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"})
    assert page.status_code == 200 and 'id="play-day"' in page.text and 'method="post"' in page.text
    assert len(daily_store._games) == 0 and daily_store._daily == {}
    played = ann.post("/daily/2026-12-01", follow_redirects=True)
    assert played.status_code == 200 and 'id="daily-late-tag"' in played.text
    again = ann.get("/daily/2026-12-01")  # now it shows the player's game of it
    assert game_id_of(again.text) == game_id_of(played.text) and len(daily_store._games) == 1
    assert ann.get(f"/daily/{DAY}").status_code == 200 and len(daily_store._games) == 2  # today's: as ever


@pytest.mark.parametrize("path", ["/daily/2025-12-31", "/daily/0001-01-01", "/api/daily/2025-06-01", "/daily/2025-12-31/board"])
def test_days_before_the_first_are_a_404_that_stores_nothing(ann: TestClient, daily_store: MemoryStore, path: str) -> None:
    found = ann.get(path)
    assert found.status_code == 404 and "2026" in found.text
    assert ann.post("/daily/2025-12-31").status_code == 404
    assert len(daily_store._games) == 0 and daily_store._daily == {}
    assert ann.get("/daily/calendar?month=2025-12").status_code == 404
    assert 'id="calendar-previous"' not in ann.get("/daily/calendar?month=2026-01").text
    assert ann.get("/daily/2026-01-01").status_code == 200


def test_an_attempt_with_no_action_is_not_on_the_board(ann: TestClient, bob: TestClient, daily_store: MemoryStore, clock: Clock) -> None:
    """Doing nothing outranked trying: 500 above 495 and 477 once the day was over."""
    by_daily(ann, daily_store)
    play(bob, by_daily(bob, daily_store), [DRAW, DRAW], clock=clock)
    clock.now = MORNING + 86_400  # the next day: unfinished attempts count, as they were
    rows = bob.get(f"/api/daily/{DAY}").json()["leaderboard"]
    assert [(r["rank"], r["score"]) for r in rows] == [(1, 498)]


def test_a_game_of_another_deal_is_untouched(ann: TestClient, daily_store: MemoryStore) -> None:
    other = GameCode.parse("TP1-E-AAAAAAB")
    assert other != CODE
    assert ann.post("/new", data={"code": other.text()}, follow_redirects=False).status_code == 303
    assert daily_store._daily == {}
