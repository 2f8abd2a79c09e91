"""Deals with known outcomes for the store tests, a uvicorn server in a subprocess, and a
way to run a coroutine."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from app.engine import DRAW, Game, GameCode, Rules, Status
from tests.servers import LiveServer, free_port  # noqa: F401
from tests.servers import start_server as start_live_server
from tests.support import winning_line

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: this one may hold another loop (the browser
    tests' Playwright keeps one running for the session)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()

SECRET = "store-tests-secret-" + "k" * 24


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


Server = LiveServer


def start_server(database_url: str, data_dir: Path, *, port: int | None = None) -> Server:
    return start_live_server(data_dir, {"TRIPEAKS_DATABASE_URL": database_url}, port=port)


@contextmanager
def running_server(database_url: str, data_dir: Path, *, port: int | None = None) -> Iterator[Server]:
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
