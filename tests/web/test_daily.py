"""The daily challenge's pages and JSON, at a fixed clock (never the wall clock)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app.engine import DRAW, GameCode
from app.engine.search.daily import daily_code
from app.store import MemoryStore
from tests.support.daily import CODE, KEY, blocked_line, won_line
from tests.support.pages import game_id_of, play
from tests.support.store import Clock, greedy, line_of


def test_daily_is_today_s_date_and_its_deal(ann: TestClient, clock: Clock) -> None:
    assert ann.get("/daily", follow_redirects=False).headers["location"] == "/daily/2026-12-03"
    page = ann.get("/daily/2026-12-03")
    assert page.status_code == 200 and CODE.text() in page.text
    assert 'id="daily-difficulty">Hard<' in page.text and "Thursday, December 3, 2026" in page.text
    state = ann.get("/api/daily").json()
    assert state["date"] == "2026-12-03" and state["code"] == CODE.text() and state["difficulty"] == "hard"
    assert state["par"] is None and state["leaderboard"] == [] and state["you"]["rank"] is None


@pytest.mark.parametrize("bad", ["20261203", "2026-1-03", "tomorrow", "٢٠٢٦-١٢-٠٣"])
def test_a_malformed_date_is_refused_and_stores_nothing(ann: TestClient, daily_store: MemoryStore, bad: str) -> None:
    assert ann.get(f"/api/daily/{bad}").status_code == 422
    assert ann.get(f"/daily/{bad}").status_code == 422
    assert len(daily_store._games) == 0


@pytest.mark.parametrize("no_day", ["2026-12-32", "2026-02-30"])
def test_a_date_of_the_right_form_that_is_no_day_has_no_daily(
    ann: TestClient, daily_store: MemoryStore, no_day: str
) -> None:
    """The API's document gives a day's form (YYYY-MM-DD); within it, a day that does not exist
    has no daily deal: 404, as a day to come is (issue 41), and nothing stored."""
    assert ann.get(f"/api/daily/{no_day}").status_code == 404
    assert ann.get(f"/daily/{no_day}").status_code == 404
    assert len(daily_store._games) == 0


def test_a_future_date_is_a_404_in_the_page_s_language(ann: TestClient, daily_store: MemoryStore) -> None:
    assert ann.get("/api/daily/2026-12-04").status_code == 404
    page = ann.get("/daily/2026-12-04", headers={"Accept-Language": "he"})
    assert page.status_code == 404 and 'lang="he"' in page.text and "2026-12-04" in page.text
    assert "not out yet" not in page.text  # in Hebrew
    assert len(daily_store._games) == 0


def test_par_and_the_leaderboard_wait_for_the_attempt_then_open(ann: TestClient, bob: TestClient, clock: Clock) -> None:
    game_id = game_id_of(ann.get("/daily/2026-12-03").text)
    bob_game = game_id_of(bob.get("/daily/2026-12-03").text)
    assert ann.get("/api/daily").json()["par"] is None
    board = ann.get("/daily/2026-12-03/board").text
    assert 'id="daily-leaderboard"' not in board and 'id="daily-par"' not in board
    # No review of the day's deal, no hindsight, before the attempt has ended
    assert ann.get(f"/replay/{CODE.text()}").status_code == 403
    assert ann.get(f"/api/replay/{CODE.text()}?reveal=1").status_code == 403
    html = play(ann, game_id, won_line(), clock=clock)
    assert 'id="daily-result"' in html
    state = ann.get("/api/daily").json()
    assert state["par"] is not None and state["par"] >= state["you"]["score"]
    assert state["you"]["rank"] == 1 and state["leaderboard"][0]["won"]
    assert ann.get(f"/api/replay/{CODE.text()}?reveal=1").status_code == 200
    # Bob, mid-game, still sees nothing of it
    assert bob.get("/api/daily").json()["par"] is None and bob.get("/api/daily").json()["leaderboard"] == []
    assert bob.get(f"/replay/{CODE.text()}").status_code == 403
    board = ann.get("/daily/2026-12-03/board").text
    assert "1st of 1" in board and "of a possible" in board and 'id="daily-own-row"' in board
    # Once the day is over everyone sees it, Bob's unfinished attempt counted as it was
    play(bob, bob_game, [DRAW, DRAW], clock=clock)
    clock.now = dt.datetime(2026, 12, 4, 0, 0, 1, tzinfo=dt.UTC).timestamp()
    later = bob.get("/api/daily/2026-12-03").json()
    assert later["par"] == state["par"]
    assert [(r["rank"], r["won"]) for r in later["leaderboard"]] == [(1, True), (2, False)]


def test_later_games_are_practice_and_late_games_never_rank(ann: TestClient, clock: Clock) -> None:
    first = game_id_of(ann.get("/daily/2026-12-03").text)
    play(ann, first, [DRAW], clock=clock)
    score = ann.get("/api/daily").json()["you"]["score"]
    refused = ann.post("/new", data={"code": CODE.text()})  # while the attempt is under way
    assert refused.status_code == 409 and 'id="attempt-choice"' in refused.text
    again = ann.post("/new", data={"code": CODE.text(), "end_attempt": "true"}, follow_redirects=True)
    assert game_id_of(again.text) != first and 'id="daily-practice"' in again.text
    play(ann, game_id_of(again.text), blocked_line(), clock=clock)
    assert ann.get("/api/daily").json()["you"]["score"] == score  # practice changes nothing
    past = ann.post("/daily/2026-12-01", follow_redirects=True)
    assert 'id="daily-late-tag"' in past.text
    assert ann.get("/api/daily/2026-12-01").json()["you"] is None  # late: not a ranked attempt
    calendar = ann.get("/daily/calendar").text
    assert 'class="day state-late' in calendar and 'id="day-2026-12-01"' in calendar


def test_ranks_hints_and_a_hostile_name(ann: TestClient, bob: TestClient, clock: Clock) -> None:
    hostile = '<script>alert(1)</script>"&'
    assert bob.put("/api/players/me/name", json={"name": hostile}).status_code == 200
    ann_game = game_id_of(ann.get("/daily/2026-12-03").text)
    bob_game = game_id_of(bob.get("/daily/2026-12-03").text)
    assert bob.post(f"/api/games/{bob_game}/hint").json()["action"] in ("remove", "draw")
    play(bob, bob_game, won_line(), clock=clock)
    play(ann, ann_game, blocked_line(), clock=clock)
    rows = ann.get("/api/daily").json()["leaderboard"]
    assert [(r["rank"], r["name"], r["hints"]) for r in rows] == [(1, "Anonymous", 0), (2, hostile, 1)]
    board = bob.get("/daily/2026-12-03/board").text
    assert hostile not in board and "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&amp;" in board
    assert "2nd of 2" in board
    share = re.search(r'<textarea id="daily-share-text"[^>]*>(.*?)</textarea>', board, re.S)
    assert share is not None
    text = share.group(1)
    assert "TriPeaks daily" in text and "Thu" in text and "hard" in text and "1 hint" in text
    assert "/daily/2026-12-03" in text
    assert not re.search(r"\b(10|[2-9JQKA])[CDHS]\b", text)  # no card in it


def test_streaks_on_stats_and_in_the_api(ann: TestClient, clock: Clock) -> None:
    for day in (dt.date(2026, 11, 30), dt.date(2026, 12, 1)):
        clock.now = dt.datetime.combine(day, dt.time(10), dt.UTC).timestamp()
        code = daily_code(KEY.encode(), day)
        game_id = game_id_of(ann.get(f"/daily/{day.isoformat()}").text)
        game = greedy(code, prefer_draw=True)
        play(ann, game_id, line_of(game), clock=clock)
    clock.now = dt.datetime(2026, 12, 2, 8, tzinfo=dt.UTC).timestamp()
    daily = ann.get("/api/players/me/stats").json()["daily"]
    assert daily["current"] == 2 and daily["longest"] == 2
    assert 'id="daily-streak">2 days<' in ann.get("/stats").text


def test_the_api_begins_the_ranked_attempt(ann: TestClient, clock: Clock) -> None:
    made = ann.post("/api/games", json={"code": CODE.text()}).json()
    assert ann.get("/api/daily").json()["you"] is not None
    for position in won_line():
        clock.advance(1)
        path = "draw" if position == DRAW else "remove"
        body = {} if position == DRAW else {"position": position}
        assert ann.post(f"/api/games/{made['id']}/{path}", json=body).status_code == 200
    you = ann.get("/api/daily").json()["you"]
    assert you["won"] and you["rank"] == 1 and you["ranked"]
    assert GameCode.parse(made["code"]) == CODE


@pytest.mark.parametrize("lang", ["en", "he", "uk", "th"])
def test_a_future_date_says_so_in_every_language(ann: TestClient, daily_store: MemoryStore, lang: str) -> None:
    from app.i18n import get_locale
    from app.web.presentation.daily.days import FUTURE_DATE

    page = ann.get("/daily/2026-12-04", headers={"Accept-Language": lang})
    expected = get_locale(lang).gettext(FUTURE_DATE) % {"date": "2026-12-04"}
    assert page.status_code == 404 and f'lang="{lang}"' in page.text
    assert str(escape(expected)) in page.text
    assert (lang == "en") == (str(escape(FUTURE_DATE % {"date": "2026-12-04"})) in page.text)  # translated
    assert len(daily_store._games) == 0


def test_the_calendar_goes_back_a_month_and_marks_late_days(ann: TestClient, clock: Clock) -> None:
    """At a fixed clock: today (3 Dec) blocked; 30 Nov played on 3 Dec is late; the month
    before has arrows both ways, this month none forward; a month to come is refused."""
    game_id = game_id_of(ann.get("/daily/2026-12-03").text)
    play(ann, game_id, blocked_line(), clock=clock)
    ann.post("/daily/2026-11-30")  # a past day's deal, begun today: late
    december = ann.get("/daily/calendar").text
    assert re.search(r'class="day state-blocked[^"]*"[^>]*>\s*<a href="/daily/2026-12-03" id="day-2026-12-03"', december)
    assert 'id="calendar-previous" href="/daily/calendar?month=2026-11"' in december
    assert 'id="calendar-next"' not in december and 'id="day-2026-12-04"' not in december  # not yet playable
    november = ann.get("/daily/calendar?month=2026-11").text
    assert re.search(r'class="day state-late[^"]*"[^>]*>\s*<a href="/daily/2026-11-30" id="day-2026-11-30"', november)
    assert re.search(r'class="day state-not-played[^"]*"[^>]*>\s*<a href="/daily/2026-11-29"', november)
    assert 'href="/daily/calendar?month=2026-10"' in november and 'href="/daily/calendar?month=2026-12"' in november
    assert ann.get("/api/daily/2026-11-30").json()["you"] is None  # late: never ranked
    assert ann.get("/daily/calendar?month=2027-01").status_code == 422
    assert ann.get("/daily/calendar?month=2026-13").status_code == 422
