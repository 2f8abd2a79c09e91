"""The store tests' helpers: the backends each test runs on, the test PostgreSQL server (a
schema of each test's own), a clock moved by hand, deals with known outcomes, a uvicorn server
on a database, and a way to run a coroutine."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable, Coroutine, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest

from app.engine import DRAW, Game, GameCode, Rules, Status
from app.store.base import GameStore, StoredGame
from tests.support.deals import winning_line
from tests.support.servers import LiveServer
from tests.support.servers import start_server as start_live_server

T = TypeVar("T")

POSTGRES_URL = os.environ.get(
    "TRIPEAKS_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REQUIRE_POSTGRES = os.environ.get("TRIPEAKS_REQUIRE_POSTGRES") == "1"
BACKENDS = ["memory", "sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
SQL_BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]

StoreFactory = Callable[..., GameStore]
"""``make_store(**options)``: the store tests' fixture (a store on the test's database)."""


def libpq_url(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def reachable_postgres() -> str:
    """The test server's URL, once it answers; else skip (or fail when it is required)."""
    try:
        import psycopg

        with psycopg.connect(libpq_url(POSTGRES_URL), connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as error:
        reason = (
            f"PostgreSQL is not reachable at {POSTGRES_URL} ({type(error).__name__}: {error}); "
            "start it or set TRIPEAKS_TEST_POSTGRES_URL"
        )
        if REQUIRE_POSTGRES:
            pytest.fail(reason + " (TRIPEAKS_REQUIRE_POSTGRES=1: these tests must run)")
        pytest.skip(reason)
    return POSTGRES_URL


def with_search_path(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-csearch_path%3D{schema}"


@contextmanager
def fresh_schema(postgres_url: str) -> Iterator[str]:
    """A database URL whose tables live in a new schema of a random name, dropped afterwards
    (tests running at once, in one process or several, never share one)."""
    import psycopg

    schema = "tp_test_" + secrets.token_hex(6)
    with psycopg.connect(libpq_url(postgres_url), autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            yield with_search_path(postgres_url, schema)
        finally:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


class Clock:
    """A clock the tests move by hand."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: this one may hold another loop (the browser
    tests' Playwright keeps one running for the session, in whichever worker ran one). Tests
    call this, never ``asyncio.run`` (ruff's TID251 says so)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()  # noqa: TID251


def played(code: GameCode, line: Iterable[int]) -> Game:
    game = Game(code)
    game.replay(line)
    return game


def greedy(code: GameCode, *, prefer_draw: bool) -> Game:
    """Play until the game ends: remove the first playable card (or draw first, if asked)."""
    game = Game(code)
    while game.status is Status.PLAYING:
        playable = game.playable_positions()
        if prefer_draw and game.can_draw():
            game.draw()
        elif playable:
            game.remove(playable[0])
        else:
            game.draw()
    return game


@cache
def two_wins(rules: Rules = Rules.EASY) -> tuple[GameCode, tuple[int, ...], tuple[int, ...]]:
    """A deal with two winning lines of different scores: (code, lower line, higher line)."""
    for number in range(1, 400):
        code = GameCode(rules, number)
        first = winning_line(Game(code), node_limit=20_000)
        if first is None:
            continue
        after_draw = Game(code)
        after_draw.draw()
        rest = winning_line(after_draw, node_limit=20_000)
        if rest is None:
            continue
        second = [DRAW, *rest]
        a, b = played(code, first).score, played(code, second).score
        if a != b:
            low, high = (first, second) if a < b else (second, first)
            return code, tuple(low), tuple(high)
    raise AssertionError("no deal with two differently scored wins found")


@cache
def two_blocks(rules: Rules = Rules.EASY) -> tuple[GameCode, tuple[int, ...], tuple[int, ...]]:
    """A deal with two lines ending blocked with different cards left: (code, more, fewer)."""
    for number in range(1, 2000):
        code = GameCode(rules, number)
        a, b = greedy(code, prefer_draw=False), greedy(code, prefer_draw=True)
        if a.status is b.status is Status.BLOCKED and a.cards_left() != b.cards_left():
            more, fewer = (a, b) if a.cards_left() > b.cards_left() else (b, a)
            return code, line_of(more), line_of(fewer)
    raise AssertionError("no such deal found")


def line_of(game: Game) -> tuple[int, ...]:
    return tuple(DRAW if a.position is None else a.position for a in game.line)


# -- a real server ------------------------------------------------------------------------------


def start_server(database_url: str, data_dir: Path, *, port: int | None = None) -> LiveServer:
    return start_live_server(data_dir, {"TRIPEAKS_DATABASE_URL": database_url}, port=port)


@contextmanager
def running_server(database_url: str, data_dir: Path, *, port: int | None = None) -> Iterator[LiveServer]:
    server = start_server(database_url, data_dir, port=port)
    try:
        yield server
    finally:
        server.stop()


def draw(game: Game) -> None:
    """A change for ``update``/``aupdate``: draw a card."""
    game.draw()


def draw_or_undo(game: Game) -> None:
    """A change that is always allowed until the stock is empty and nothing is left to undo."""
    game.draw() if game.can_draw() else game.undo()


# -- a line played on a stored game ------------------------------------------------------------


def play_saved(store: GameStore, stored: StoredGame, line: Iterable[int]) -> StoredGame:
    """Play ``line`` on a stored game, each action a ``save`` of its own (read, changed, saved
    with its version); the game as last saved."""
    for action in line:
        game = stored.game.copy()
        game.replay([action])
        stored = store.save(stored, game)
    return stored


def play_new(store: GameStore, owner: str | None, code: GameCode, line: Iterable[int]) -> StoredGame:
    """A new stored game of ``code`` for ``owner``, with ``line`` played as :func:`play_saved`."""
    return play_saved(store, store.create(Game(code), owner), line)


def play_timed(
    store: GameStore,
    clock: Clock,
    game: StoredGame | str,
    line: Iterable[int],
    *,
    step: float = 1.0,
    hints_at: Iterable[int] = (),
) -> StoredGame:
    """Play ``line`` through ``update`` (the moves' way: one locked step each), one action every
    ``step`` seconds of ``clock``, each told the time; a hint is counted before the actions
    numbered in ``hints_at``. The game as last stored."""
    game_id = game if isinstance(game, str) else game.id
    hinted = set(hints_at)
    for i, action in enumerate(line):
        if i in hinted:
            store.update(game_id, lambda g: g.count_hint())
        clock.advance(step)

        def change(played: Game, action: int = action) -> None:
            played.replay([action])
            played.note_time(clock.now)

        assert store.update(game_id, change) is not None
    found = store.get(game_id)
    assert found is not None
    return found
