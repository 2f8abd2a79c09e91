"""The runs to beat (issue 39): "Race this run" on the day's board. No spoilers (the runs open
exactly when the board does: the player's attempt ended, or the day over; every URL refused
before), references that are no game id, bad references, and the ghost's strip."""

from __future__ import annotations

import datetime as dt
import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.presentation.daily.ghost import run_ref
from tests.support.daily import KEY, blocked_line, won_line
from tests.support.pages import game_id_of, play
from tests.support.store import Clock

DAY = "/daily/2026-12-03"


def urls(ref: str) -> list[tuple[str, str]]:
    return [("POST", f"{DAY}/runs/{ref}"), ("GET", f"{DAY}/runs/{ref}"), ("GET", f"{DAY}/runs/{ref}/events")]


def refused(client: TestClient, ref: str) -> list[int]:
    return [client.request(method, url, follow_redirects=False).status_code for method, url in urls(ref)]


def test_the_runs_wait_for_the_attempt_then_open(ann: TestClient, bob: TestClient, clock: Clock) -> None:
    bob_game = game_id_of(bob.get(DAY).text)
    play(bob, bob_game, won_line(), clock=clock)
    bob_ref = run_ref(KEY.encode(), bob_game)
    ann_game = game_id_of(ann.get(DAY).text)
    play(ann, ann_game, blocked_line()[:3], clock=clock)
    # Ann's attempt is under way: no run, no reference, every URL a 403 that says why
    assert refused(ann, bob_ref) == [403, 403, 403]
    assert "open when your attempt" in ann.get(f"{DAY}/runs/{bob_ref}").text
    assert 'class="button subtle race-run"' not in ann.get(f"{DAY}/board").text
    assert all(row.get("run") is None for row in ann.get("/api/daily").json()["leaderboard"])
    assert refused(ann, "x" * 22) == [403, 403, 403]  # locked first: no probing of references
    # Her attempt ends: the runs open, each row named by its reference, never by a game id
    play(ann, ann_game, blocked_line()[3:], clock=clock)
    board = ann.get(f"{DAY}/board").text
    refs = re.findall(r'data-run="([^"]+)"', board)
    assert refs == [bob_ref, run_ref(KEY.encode(), ann_game)]
    assert bob_game not in board and 'aria-label="Race the run of Anonymous"' in board
    rows = ann.get("/api/daily").json()
    assert [r["run"] for r in rows["leaderboard"]] == refs and rows["you"]["run"] == refs[1]
    # Bob sees Ann's run too (his attempt ended first)
    assert [r["run"] for r in bob.get("/api/daily").json()["leaderboard"]] == refs
    # Race it: a practice game of the deal, and the ghost beside it
    raced = ann.post(f"{DAY}/runs/{bob_ref}", follow_redirects=False)
    assert raced.status_code == 303 and raced.headers["location"] == f"{DAY}/runs/{bob_ref}"
    page = ann.get(f"{DAY}/runs/{bob_ref}")
    assert page.status_code == 200 and 'id="ghost"' in page.text and 'id="daily-practice"' in page.text
    practice = game_id_of(page.text)
    assert practice != ann_game and bob_game not in page.text
    assert f'hx-sse:connect="{DAY}/runs/{bob_ref}/events"' in page.text
    assert "The run starts with your first move." in page.text
    assert ann.get("/api/daily").json()["you"]["score"] == rows["you"]["score"]  # practice changes nothing


def test_a_reference_that_names_no_run_is_a_404_and_deals_nothing(ann: TestClient, clock: Clock) -> None:
    game_id = game_id_of(ann.get(DAY).text)
    play(ann, game_id, won_line(), clock=clock)
    mine = ann.get("/api/daily").json()["you"]["run"]
    assert mine is not None
    for ref in ("x" * 22, "A" * 40, "%C3%A9" * 4, "short", game_id, mine[:-1] + ("A" if mine[-1] != "A" else "B")):
        assert refused(ann, ref) == [404, 404, 404], ref
    assert game_id_of(ann.get(DAY).text) == game_id  # no practice game was dealt
    assert ann.get(f"/daily/2026-12-32/runs/{mine}").status_code == 404  # no such day
    assert ann.get(f"/daily/2026-1-03/runs/{mine}").status_code == 422  # not a date
    assert ann.get(f"/daily/2026-12-04/runs/{mine}").status_code == 404


def test_the_day_over_opens_the_runs_to_everyone(
    ann: TestClient, bob: TestClient, daily_app: FastAPI, clock: Clock
) -> None:
    bob_game = game_id_of(bob.get(DAY).text)
    play(bob, bob_game, won_line(), clock=clock)
    ann_game = game_id_of(ann.get(DAY).text)
    play(ann, ann_game, [blocked_line()[0]], clock=clock)
    bob_ref = run_ref(KEY.encode(), bob_game)
    assert refused(ann, bob_ref) == [403, 403, 403]
    clock.now = dt.datetime(2026, 12, 4, 0, 0, 1, tzinfo=dt.UTC).timestamp()
    rows = ann.get("/api/daily/2026-12-03").json()["leaderboard"]
    assert [r["run"] for r in rows] == [bob_ref, run_ref(KEY.encode(), ann_game)]
    # Ann's attempt, unfinished and frozen at midnight: the ghost races that game, taken up again
    assert ann.post(f"{DAY}/runs/{bob_ref}", follow_redirects=False).status_code == 303
    page = ann.get(f"{DAY}/runs/{bob_ref}")
    assert page.status_code == 200 and 'id="ghost-strip"' in page.text and game_id_of(page.text) == ann_game
    # Cleo never played it: her game of the deal is a late one, and the ghost beside it
    with TestClient(daily_app) as cleo:
        assert cleo.post(f"{DAY}/runs/{bob_ref}", follow_redirects=False).status_code == 303
        page = cleo.get(f"{DAY}/runs/{bob_ref}")
        assert page.status_code == 200 and 'id="ghost-you"' in page.text and bob_game not in page.text
        assert cleo.get("/api/daily/2026-12-03").json()["you"] is None  # late: never ranked
