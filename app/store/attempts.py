"""The daily challenge's attempts: what a day's row keeps, how a save changes it, streaks.

One row per player and day (``tp_daily``, schema step 4): the player's first game of that
day's deal. Begun on its day it is the player's *ranked attempt*; begun later it is *late*
(shown in the player's own calendar, never ranked). Every save of its game while the day
runs changes the row (:func:`progressed`): so an attempt still unfinished when the day
ends is left as it was then. Its end (won or blocked) is final: an undo after a block
plays on as practice. The order is :mod:`app.store.ranking`; the SQL
:mod:`app.store.database.daily_sql`; the memory store keeps the same rows.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from app.engine import Game, Status
from app.store.ranking import QUICK_GAP_S, Entry, board_key, plausible

LEADERBOARD_SIZE: Final = 100
UNRANKED_KEY: Final = 1 << 54
"""Every :func:`~app.store.ranking.board_key` from here up is not ranked (not plausible)."""


def day_end(day: dt.date) -> float:
    """The end of a UTC day (the next midnight), in seconds since the epoch."""
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.UTC).timestamp()


def day_text(day: dt.date) -> str:
    return day.isoformat()


@dataclass(frozen=True, slots=True)
class AttemptRow:
    """A ``tp_daily`` row, as stored."""

    day: str
    player: str
    game_id: str
    code: str
    late: bool
    ended: bool
    won: bool
    score: int
    seconds: float | None
    hints: int
    plausible: bool
    gaps: int
    quick: int
    board_key: int
    started: float
    last_action: float | None
    at: float


FIELDS: Final = tuple(f.name for f in dataclasses.fields(AttemptRow))


def new_row(day: dt.date, player: str, game_id: str, game: Game, *, late: bool, now: float) -> AttemptRow:
    """The row of a game that has just become the player's attempt (or late game) of ``day``.
    A game that has ended already (a race's game of the deal, played before the daily page
    was opened) is an attempt that has ended: as it ended."""
    row = AttemptRow(
        day=day_text(day),
        player=player,
        game_id=game_id,
        code=game.code_text(),
        late=late,
        ended=False,
        won=False,
        score=game.score,
        seconds=None,
        hints=game.hints,
        plausible=True,
        gaps=0,
        quick=0,
        board_key=0,
        started=now,
        last_action=None,
        at=now,
    )
    row = dataclasses.replace(row, board_key=_key(row))
    if game.status is not Status.PLAYING:
        return progressed(row, game, now) or row
    return row


def _key(row: AttemptRow) -> int:
    entry = Entry(row.won, row.score, row.seconds, row.at, row.hints, row.plausible)
    return board_key(entry)


def progressed(row: AttemptRow, game: Game, now: float) -> AttemptRow | None:
    """The row after a save of its game at ``now``; ``None`` when it stays as it is (ended
    already, or, for a ranked attempt, its day is over). A save that only counted a hint
    is no action: it does not count as an interval between actions."""
    if row.ended or (not row.late and now >= day_end(dt.date.fromisoformat(row.day))):
        return None
    gaps, quick, last_action = row.gaps, row.quick, row.last_action
    if game.hints == row.hints:  # an action (remove, draw, undo)
        if last_action is not None:
            gaps += 1
            quick += now - last_action < QUICK_GAP_S
        last_action = now
    ended = game.status is not Status.PLAYING
    seconds = game.ended_after if ended else game.elapsed(now)
    won = game.status is Status.WON
    changed = dataclasses.replace(
        row,
        ended=ended,
        won=won,
        score=game.score,
        seconds=seconds,
        hints=game.hints,
        gaps=gaps,
        quick=quick,
        last_action=last_action,
        at=now,
        plausible=plausible(won=won, seconds=seconds, gaps=gaps, quick=quick),
    )
    return dataclasses.replace(changed, board_key=_key(changed))


# -- what the pages and the API read -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Attempt(AttemptRow):
    """One player's game of a day, as shown (a leaderboard row, or the player's own): its
    stored row, with the player's display name and its place."""

    name: str | None = None
    """Their display name now (``None``: anonymous)."""
    rank: int | None = None
    """Its place among the day's ranked attempts (``None``: not ranked, or not counted yet)."""

    @property
    def date(self) -> dt.date:
        return dt.date.fromisoformat(self.day)

    @property
    def outcome(self) -> str:
        """``won``, ``blocked`` or ``unfinished``."""
        return "won" if self.won else "blocked" if self.ended else "unfinished"


def attempt_of(row: AttemptRow, name: str | None, rank: int | None = None) -> Attempt:
    return Attempt(**{field: getattr(row, field) for field in FIELDS}, name=name, rank=rank)


def numbered(rows: Iterable[tuple[AttemptRow, str | None]]) -> list[Attempt]:
    """A day's first attempts in order, each with its player's name: the plausible ones
    ranked 1, 2, 3…, the others not ranked."""
    out = []
    rank = 0
    for row, name in rows:
        rank += row.plausible
        out.append(attempt_of(row, name, rank if row.plausible else None))
    return out


def counted(row: AttemptRow, over: bool) -> bool:
    """Whether a day's attempt is on its leaderboard: ranked (not late), and ended or its day over."""
    return not row.late and (row.ended or over)


@dataclass(frozen=True, slots=True)
class Leaderboard:
    day: dt.date
    rows: list[Attempt]
    """The first :data:`LEADERBOARD_SIZE` in order (ranked first, then the not ranked)."""
    ranked: int
    """How many ranked attempts count so far: the "of 340" of "12th of 340"."""
    over: bool
    """Whether the day is over (unfinished attempts count, as unfinished)."""


@dataclass(frozen=True, slots=True)
class Streaks:
    """Runs of consecutive days, the latest ending today or yesterday."""

    current: int
    longest: int
    current_won: int
    longest_won: int


def _runs(days: set[dt.date], today: dt.date) -> tuple[int, int]:
    longest = run = 0
    previous: dt.date | None = None
    for day in sorted(days):
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    current = 0
    day = today if today in days else today - dt.timedelta(days=1)
    while day in days:
        current += 1
        day -= dt.timedelta(days=1)
    return current, longest


def streaks(attempts: Iterable[Attempt], today: dt.date) -> Streaks:
    """The player's streaks: days with a ranked attempt ended (won or blocked), and days won."""
    finished: set[dt.date] = set()
    won: set[dt.date] = set()
    for attempt in attempts:
        if attempt.late or not attempt.ended:
            continue
        finished.add(attempt.date)
        if attempt.won:
            won.add(attempt.date)
    current, longest = _runs(finished, today)
    current_won, longest_won = _runs(won, today)
    return Streaks(current, longest, current_won, longest_won)
