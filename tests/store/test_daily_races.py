"""Races on the daily challenge: two tabs finishing one attempt at once (the store, on SQLite and
PostgreSQL), and two servers on one PostgreSQL (over HTTP): one attempt per player and day,
nothing lost."""

from __future__ import annotations

import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from app.engine import DRAW, Action, Game
from app.engine.search.daily import daily_code
from app.store.base import GameStore
from tests.support.servers import SECRET
from tests.support.store import SQL_BACKENDS, Clock, StoreFactory, running_server, two_wins


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_two_tabs_finishing_one_attempt_at_once(make_store: StoreFactory, clock: Clock) -> None:
    code, _, line = two_wins()
    tabs: list[GameStore] = [make_store(clock=clock), make_store(clock=clock)]
    day = dt.datetime.fromtimestamp(clock.now, dt.UTC).date()
    stored = tabs[0].create(Game(code), "ann")
    assert tabs[0].begin_attempt(day, "ann", stored, late=False)
    for position in line[:-1]:
        clock.advance(1)
        tabs[0].update(stored.id, lambda g, p=position: (g.play(Action(None if p == DRAW else p)), g.note_time(clock.now)))
    clock.advance(1)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def finish(tab: GameStore) -> None:
        barrier.wait()
        try:
            tab.update(stored.id, lambda g: (g.play(Action(line[-1])), g.note_time(clock.now)))
            outcomes.append("won")
        except Exception as error:  # the other tab won the race: the card is gone
            outcomes.append(type(error).__name__)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(finish, tabs))
    assert sorted(outcomes) == ["RefusedAction", "won"]
    for tab in tabs:
        board = tab.leaderboard(day)
        assert [(r.player, r.rank, r.won) for r in board.rows] == [("ann", 1, True)] and board.ranked == 1
        mine = tab.attempt(day, "ann")
        assert mine is not None and mine.game_id == stored.id and mine.score == tab.get(stored.id).game.score  # type: ignore[union-attr]


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.parametrize("database_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True)
def test_two_servers_on_one_postgresql_give_one_attempt(database_url: str, tmp_path: Path) -> None:
    today = dt.datetime.now(dt.UTC).date()
    code = daily_code(SECRET.encode(), today)
    with running_server(database_url, tmp_path) as a, running_server(database_url, tmp_path) as b:
        clients = [httpx.Client(base_url=s.url, timeout=30, follow_redirects=True) for s in (a, b)]
        try:
            clients[0].get("/healthz")
            first = clients[0].get("/api/daily")  # a player cookie, shared by both "tabs"
            assert first.status_code == 200 and first.json()["code"] == code.text()
            clients[1].cookies.update(clients[0].cookies)
            barrier = threading.Barrier(4)

            def begin(i: int) -> int:
                client = clients[i % 2]
                barrier.wait()
                if i < 2:  # the page on each server: the attempt, or the choice (409) when the
                    # attempt is the API's game, which the page cannot show
                    page = client.get(f"/daily/{today.isoformat()}")
                    assert page.status_code in (200, 409), page.status_code
                    return 0
                made = client.post("/api/games", json={"code": code.text()})  # the API on each
                assert made.status_code in (201, 409), made.status_code  # 409: the attempt is under way
                return made.status_code

            with ThreadPoolExecutor(4) as pool:
                began = list(pool.map(begin, range(4)))
            for client in clients:
                you = client.get("/api/daily").json()["you"]
                assert you is not None and not you["won"]  # one attempt, the same on both servers
            days = clients[0].get("/daily/calendar").text
            assert days.count('class="day state-playing') == 1
            assert began.count(201) <= 1  # no second game of the deal while the attempt is under way
        finally:
            for client in clients:
                client.close()
