"""A table of friends' boards (issue 39): today's daily, this week, all time.

Made from the members' daily rows (:meth:`app.store.tables.Tables.table_attempts`) with the
daily's own rules: the order and the ranks of :func:`app.store.attempts.numbered` (sorted by
the board's key, as the day's board is), what counts (:func:`~app.store.attempts.counted`),
the streaks (:func:`~app.store.attempts.streaks`) and the calendar's day states
(:func:`app.web.presentation.daily.calendar.state_of`). Nothing is ranked anew here.

* **today**: the counted attempts in the day's order, then the members who have not played
  (or whose attempt is under way). What the day's board hides before the viewer's attempt has
  ended (:func:`~app.web.presentation.daily.days.board_open`), this one hides too: only who
  has played is shown then, no score;
* **this week** (Monday to Sunday, UTC): days won, total score and time of the counted
  attempts, and each day's state as the calendar shows it;
* **all time**: current and longest streaks, dailies won, the best daily (in the daily's
  order) and its score against par when the deal's analysis is known here.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from app.store.attempts import (
    Attempt,
    AttemptRow,
    Streaks,
    attempt_of,
    counted,
    day_text,
    numbered,
    with_today,
)
from app.store.tables import Member
from app.web.presentation.daily.calendar import state_of


@dataclass(frozen=True, slots=True)
class TodayRow:
    member: Member
    attempt: Attempt | None
    """Its counted attempt, ranked among the members' (``None``: not played yet)."""
    state: str
    """The calendar's state of the member's day (``won``, ``not-played``, ``playing``…)."""


@dataclass(frozen=True, slots=True)
class WeekRow:
    member: Member
    days_won: int
    score: int
    seconds: float
    days: list[str]
    """Monday to Sunday: each day's state as the calendar names it."""


@dataclass(frozen=True, slots=True)
class AllTimeRow:
    member: Member
    current_streak: int
    longest_streak: int
    dailies_won: int
    best: Attempt | None
    best_par: int | None


def week_of(day: dt.date) -> tuple[dt.date, dt.date]:
    """The Monday and the Sunday (UTC days) of ``day``'s week."""
    monday = day - dt.timedelta(days=day.weekday())
    return monday, monday + dt.timedelta(days=6)


def _by_player(rows: Iterable[AttemptRow]) -> dict[str, list[AttemptRow]]:
    found: dict[str, list[AttemptRow]] = defaultdict(list)
    for row in rows:
        found[row.player].append(row)
    return found


def _as_attempt(row: AttemptRow) -> Attempt:
    """The row as an :class:`Attempt` (the boards read rows made into attempts once)."""
    return row if isinstance(row, Attempt) else attempt_of(row, None)


def _entry_key(row: AttemptRow) -> tuple[int, float]:
    return row.board_key, row.at  # the day's board's order: its index (board_key, at)


def today_board(
    members: list[Member], rows: Iterable[AttemptRow], day: dt.date, over: bool
) -> list[TodayRow]:
    """The members' attempts of ``day`` in the day's order, then who has not played."""
    names = {member.player: member for member in members}
    text = day_text(day)
    today = {row.player: row for row in rows if row.day == text and row.player in names}
    played = sorted((row for row in today.values() if counted(row, over)), key=_entry_key)
    out = [
        TodayRow(names[attempt.player], attempt, state_of(attempt, day, day, over))
        for attempt in numbered((row, names[row.player].name) for row in played)
    ]
    done = {row.player for row in played}
    for member in members:
        if member.player not in done:
            row = today.get(member.player)
            attempt = attempt_of(row, member.name) if row is not None else None
            out.append(TodayRow(member, None, state_of(attempt, day, day, over)))
    return out


def week_board(
    members: list[Member], rows: Iterable[AttemptRow], day: dt.date, over: Callable[[dt.date], bool]
) -> list[WeekRow]:
    """Each member's dailies of ``day``'s week: the most days won first, then the higher total
    score, then the shorter total time."""
    monday, _ = week_of(day)
    week = [(date, day_text(date), over(date)) for date in (monday + dt.timedelta(days=i) for i in range(7))]
    mine = _by_player(rows)
    out = []
    for member in members:
        by_day = {row.day: row for row in mine.get(member.player, ())}
        won = score = 0
        seconds = 0.0
        states = []
        for date, text, ended in week:
            row = by_day.get(text)
            if row is None:
                states.append(state_of(None, date, day, ended))
                continue
            states.append(state_of(_as_attempt(row), date, day, ended))
            if counted(row, ended):
                won += row.won
                score += row.score
                seconds += row.seconds or 0.0
        out.append(WeekRow(member, won, score, seconds, states))
    return sorted(out, key=lambda r: (-r.days_won, -r.score, r.seconds, r.member.joined))


@dataclass(frozen=True, slots=True)
class Past:
    """What a member's dailies before today give the all-time board (they no longer change)."""

    streaks: Streaks
    """``streaks(attempts before today, today)``."""
    won: int
    best: Attempt | None


NO_PAST: Final = Past(Streaks(0, 0, 0, 0), 0, None)


def all_time_board(
    members: list[Member],
    past: dict[str, Past],
    rows: Iterable[AttemptRow],
    today: dt.date,
    over: bool,
    par_of: Callable[[str], int | None],
) -> list[AllTimeRow]:
    """Each member's streaks, dailies won and best daily, from their :class:`Past` and today's
    rows: the most dailies won first, then the longest streak. ``par_of`` gives a deal's par
    from its code when known (else ``None``)."""
    text = day_text(today)
    todays = {row.player: row for row in rows if row.day == text}
    out = []
    for member in members:
        before = past.get(member.player, NO_PAST)
        row = todays.get(member.player)
        attempt = _as_attempt(row) if row is not None else None
        found = with_today(before.streaks, attempt)
        won, best = before.won, before.best
        if attempt is not None and counted(attempt, over):
            won += attempt.won
            best = attempt if best is None or _entry_key(attempt) < _entry_key(best) else best
        par = par_of(best.code) if best is not None else None
        out.append(AllTimeRow(member, found.current, found.longest, won, best, par))
    return sorted(out, key=lambda r: (-r.dailies_won, -r.longest_streak, -r.current_streak, r.member.joined))
