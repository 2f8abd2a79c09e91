"""The daily challenge's attempts: what a day's row keeps, how a save changes it, streaks.

One row per player and day (``tp_daily``, schema step 4): the player's first game of that
day's deal. Begun on its day it is the player's *ranked attempt*; begun later it is *late*
(shown in the player's own calendar, never ranked). Every save of its game while the day
runs changes the row (:func:`progressed`): so an attempt still unfinished when the day
ends is left as it was then. Its end (won or blocked, or ended by the player as it stands:
:func:`stopped`) is final: an undo after a block plays on as practice. An attempt counts
only once it has an action (:func:`counted`). The order is :mod:`app.store.ranking`; the SQL
:mod:`app.store.database.daily_sql`; the memory store keeps the same rows.

Where the rows begin: wherever the store deals a game of a day's deal (``create``, a race's
seats), in the same transaction (:meth:`app.store.base.GameStore.know_days` tells it which
codes are days' deals). While a ranked attempt is under way, no other game of its deal is
dealt to its player (:class:`AttemptUnfinished`): they end it first, or play it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from app.engine import Game, GameCode, Status
from app.store.ranking import QUICK_GAP_S, Entry, board_key, plausible

LEADERBOARD_SIZE: Final = 100
UNRANKED_KEY: Final = 1 << 54
"""Every :func:`~app.store.ranking.board_key` from here up is not ranked (not plausible)."""


DayOf = Callable[[GameCode], dt.date | None]
"""Which day's deal a code is (``None``: no day's the store need know): the web layer's
:func:`app.web.presentation.daily.days.deal_day`, handed to the store at start."""


class AttemptUnfinished(ValueError):
    """A new game of the day's deal for a player whose ranked attempt at it is under way: it
    would be practice with the cards seen before the attempt ends. Nothing was dealt."""

    def __init__(self, day: dt.date, game_id: str) -> None:
        super().__init__(
            "Your ranked attempt at today's daily deal is not finished: play it, or end it first."
        )
        self.day = day
        self.game_id = game_id
        """The attempt's game."""


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
    stopped: bool = False
    """Ended by its player before its game ended (:func:`stopped`): it counts as unfinished."""
    peaks: int | None = None
    """The peaks its game had cleared when the row last changed, a bit each (peak 0 the
    lowest bit): the share text's marks are the attempt's, not its game's now. ``None`` in a
    row kept before they were."""


FIELDS: Final = tuple(f.name for f in dataclasses.fields(AttemptRow))


def peaks_of(game: Game) -> int:
    """The peaks ``game`` has cleared, a bit each (:attr:`AttemptRow.peaks`)."""
    return sum(1 << i for i, cleared in enumerate(game.peaks_cleared) if cleared)


def new_row(day: dt.date, player: str, game_id: str, game: Game, *, late: bool, now: float) -> AttemptRow:
    """The row of a game that has just become the player's attempt (or late game) of ``day``:
    a game just dealt, as the store deals them. One with actions already (made before it
    became the attempt) has intervals nobody saw: each counts as quicker than a person plays
    (every action of an attempt counts for :func:`~app.store.ranking.plausible`); one that has
    ended already is an attempt that has ended, as it ended."""
    unseen = max(game.moves - 1, 0)
    ended = game.status is not Status.PLAYING
    won = game.status is Status.WON
    seconds = game.ended_after if ended else None
    row = AttemptRow(
        day=day_text(day),
        player=player,
        game_id=game_id,
        code=game.code_text(),
        late=late,
        ended=ended,
        won=won,
        score=game.score,
        seconds=seconds,
        hints=game.hints,
        plausible=plausible(won=won, seconds=seconds, gaps=unseen, quick=unseen),
        gaps=unseen,
        quick=unseen,
        board_key=0,
        started=now,
        last_action=now if game.moves else None,
        at=now,
        stopped=False,
        peaks=peaks_of(game),
    )
    return dataclasses.replace(row, board_key=_key(row))


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
        peaks=peaks_of(game),
    )
    return dataclasses.replace(changed, board_key=_key(changed))


def stopped(row: AttemptRow, now: float) -> AttemptRow | None:
    """The row of a ranked attempt its player ends as it stands (to play the deal again as
    practice); ``None`` when there is nothing to end (ended already, late, or its day over).
    It counts from then on as unfinished, with the score and time of its last save."""
    if row.ended or row.late or now >= day_end(dt.date.fromisoformat(row.day)):
        return None
    return dataclasses.replace(row, ended=True, stopped=True, at=now)


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
        """``won``, ``blocked`` or ``unfinished`` (ended by its player, or not ended)."""
        if self.won:
            return "won"
        return "blocked" if self.ended and not self.stopped else "unfinished"


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
    """Whether a day's attempt is on its leaderboard: ranked (not late), with an action (doing
    nothing never outranks trying), and ended or its day over."""
    return not row.late and row.last_action is not None and (row.ended or over)


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
    """The player's streaks: days with a ranked attempt played and ended (won, blocked, or
    ended by the player), and days won."""
    finished: set[dt.date] = set()
    won: set[dt.date] = set()
    for attempt in attempts:
        if attempt.late or not attempt.ended or attempt.last_action is None:
            continue
        finished.add(attempt.date)
        if attempt.won:
            won.add(attempt.date)
    current, longest = _runs(finished, today)
    current_won, longest_won = _runs(won, today)
    return Streaks(current, longest, current_won, longest_won)


def with_today(before: Streaks, attempt: Attempt | None) -> Streaks:
    """:func:`streaks` of the player's attempts and today's one, from ``before``:
    ``streaks(earlier attempts, today)`` (today not among them: their current runs end
    yesterday) and today's ``attempt`` (``None``: none yet). A board that keeps what the days
    before today gave (they no longer change) adds today's this way, without reading the
    history again; ``tests/store/test_tables_store.py`` holds it equal to :func:`streaks`."""
    if attempt is None or attempt.late or not attempt.ended or attempt.last_action is None:
        return before
    current = before.current + 1
    current_won = before.current_won + 1 if attempt.won else before.current_won
    return Streaks(current, max(before.longest, current), current_won, max(before.longest_won, current_won))
