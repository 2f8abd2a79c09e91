"""The game clock and the run as the pages show them (the engine keeps both; see
:meth:`app.engine.Game.note_time`).

The web layer passes the time in: :func:`now` right after each remove, draw or undo, and
again when a page or a move's blocks are rendered, so every swap shows the true time.
Between swaps a line of ``static/tripeaks.js`` counts the seconds on from the
``data-running`` value (no game logic: it only adds the seconds since the render).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from app.engine import Game, Status

T = TypeVar("T")


def now() -> float:
    """The time the web layer tells the games: seconds since the epoch."""
    return time.time()


def clock_text(seconds: float) -> str:
    """``4:07``, ``1:02:03``: minutes and seconds, hours only once there are some."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def duration_iso(seconds: float) -> str:
    """The ISO 8601 duration of ``<time datetime>``: ``PT4M7S``."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return "PT" + (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "") + f"{secs}S"


def timed(action: Callable[[Game], T], *, dealt: float | None = None) -> Callable[[Game], T]:
    """``action``, then the time told to the game (its first action starts its clock, its end
    stops it): the change a move route gives the store. ``dealt``: a racer's game, whose clock
    starts at the race's deal, not at its first action (issue 42: the player's clock and the
    finish table's time are one; a racer who waits before the first card is timed all the same)."""

    def change(game: Game) -> T:
        value = action(game)
        if dealt is not None and game.started_at is None and game.status is Status.PLAYING:
            game.note_time(min(dealt, now()))
        game.note_time(now())
        return value

    return change


@dataclass(frozen=True, slots=True)
class ClockView:
    seconds: int
    """Whole seconds on the clock (0 before the first action)."""
    running: bool
    """Started and not yet stopped by the end of the game."""

    @property
    def text(self) -> str:
        return clock_text(self.seconds)

    @property
    def iso(self) -> str:
        return duration_iso(self.seconds)


def game_clock(game: Game, at: float | None = None, dealt: float | None = None) -> ClockView:
    """The game's clock as shown at ``at`` (default: now). ``dealt``: a racer's game, whose
    clock runs from the race's deal before its first action too (:func:`timed`)."""
    moment = now() if at is None else at
    if dealt is not None and game.started_at is None and game.status is Status.PLAYING and moment >= dealt:
        return ClockView(int(moment - dealt), True)
    elapsed = game.elapsed(moment)
    return ClockView(int(elapsed or 0), game.started_at is not None and game.ended_after is None)
