"""The daily attempts' store tests: the day of a clock, an attempt begun, a line that blocks."""

from __future__ import annotations

import datetime as dt

from app.engine import Game, GameCode
from app.store.base import GameStore, StoredGame
from tests.support.store import Clock, greedy, line_of


def today(clock: Clock) -> dt.date:
    return dt.datetime.fromtimestamp(clock.now, dt.UTC).date()


def begin(store: GameStore, clock: Clock, player: str, code: GameCode, *, late: bool = False) -> tuple[StoredGame, bool]:
    """A new game of ``code`` for ``player``, begun as the day's attempt (whether it is one)."""
    stored = store.create(Game(code), player)
    return stored, store.begin_attempt(today(clock), player, stored, late=late)


def blocked_line(code: GameCode) -> tuple[int, ...]:
    """The greedy line (drawing first) that ends ``code`` blocked."""
    game = greedy(code, prefer_draw=True)
    assert not game.is_over and game.status.value == "blocked"
    return line_of(game)
