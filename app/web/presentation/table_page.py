"""What a table of friends' pages show (issue 39): ``table.html`` (its boards, members and the
maker's controls), ``tables.html`` (Your tables), ``table_invite.html`` (the invite link's page).

The boards (:mod:`app.web.presentation.tables`) are made from two reads: the members' rows of
this week (the today and week boards; each request, so another server's result shows at once)
and their past before today, set-based (:meth:`app.store.tables.Tables.table_past`: streaks,
dailies won, best), kept a minute (:data:`PAST_KEPT_S`). The par of today's
deal is shown as the daily's rules allow (:func:`shown_par`); the par
of another day's best is shown when this server knows the deal's analysis already (no solver
run for a board).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final, TypeVar

from babel.dates import format_date
from fastapi import Request

from app.engine import GameCode
from app.i18n import current_locale
from app.store import GameStore
from app.store.attempts import Attempt, attempt_of, day_text
from app.store.tables import FriendsTable, Member, MemberPast
from app.web.presentation.clock import clock_text
from app.web.presentation.daily.calendar import state_words
from app.web.presentation.daily.days import board_open, code_of, daily_key, date_words, shown_par, today
from app.web.presentation.daily.ghost import run_ref
from app.web.presentation.tables import (
    AllTimeRow,
    Past,
    TodayRow,
    WeekRow,
    all_time_board,
    today_board,
    week_board,
    week_of,
)
from app.web.solver_worker import known_par

SHOWN_ROWS: Final = 25
"""A big table's page shows each board's first rows and the viewer's own, and its members' first,
until "Show all" (``?all=1``, a page of its own): a table of 1,000 members is 4,000 board rows
and 1,000 members, a long page to scroll and most of its time to render (docs/performance.md).
The JSON API always gives every row."""

RACE_OFFERED_S: Final = 30 * 60.0
"""How long a race made for the table is offered on its page."""

STATE_MARKS: Final = {
    "won": "▲",
    "blocked": "■",
    "unfinished": "◐",
    "playing": "…",
    "late": "◇",
    "not-played": "·",
    "future": "",
}
"""The week row's marks, beside the words (which screen readers read)."""


@dataclass(frozen=True, slots=True)
class Boards:
    day: dt.date
    opened: bool
    """Whether today's scores may be shown to the viewer (the day's board's rule)."""
    par: int | None
    today: list[TodayRow]
    week_days: list[tuple[dt.date, str, str]]
    """Monday to Sunday: the date, its short and its full name."""
    week: list[WeekRow]
    all_time: list[AllTimeRow]


T = TypeVar("T")


def shown(rows: list[T], own: Callable[[T], bool]) -> list[T]:
    """The first :data:`SHOWN_ROWS` of ``rows``, and the viewer's own (``own``) if it comes later."""
    if len(rows) <= SHOWN_ROWS:
        return rows
    return rows[:SHOWN_ROWS] + [row for row in rows[SHOWN_ROWS:] if own(row)]


def invite_url(request: Request, table: FriendsTable) -> str:
    return f"{request.base_url}t/{table.invite}"


PAST_KEPT_S: Final = 60.0
"""How long a table's past (its members' dailies before today: a year of rows for a big
table, about 1 to 3 s to read however set-based) is kept in the process. The key has the day and
the members (membership and player: a join, a leave, a removal, a deletion or a merge between
two members reads it anew at once); what it can miss is only a merge that brings a non-member's
history to a member, shown on the all-time board at most this late (docs/performance.md)."""
PAST_TABLES: Final = 64
PastKey = tuple[str, dt.date, tuple[tuple[str, str], ...]]
_past: OrderedDict[PastKey, tuple[float, dict[str, MemberPast]]] = OrderedDict()
_past_lock: Final = threading.Lock()


def table_past(
    store: GameStore, table: FriendsTable, members: list[Member], day: dt.date
) -> dict[str, MemberPast]:
    """:meth:`app.store.tables.Tables.table_past`, kept :data:`PAST_KEPT_S` (see there)."""
    key = (table.id, day, tuple(sorted((m.id, m.player) for m in members)))
    now = time.monotonic()
    with _past_lock:
        found = _past.get(key)
        if found is not None and now - found[0] < PAST_KEPT_S:
            _past.move_to_end(key)
            return found[1]
    made = store.table_past(table.id, day)
    with _past_lock:
        _past[key] = (now, made)
        while len(_past) > PAST_TABLES:
            _past.popitem(last=False)
    return made


def boards(
    request: Request, store: GameStore, table: FriendsTable, members: list[Member], player: str
) -> Boards:
    """The table's three boards, as ``player`` may see them now."""
    day = today()
    monday, _ = week_of(day)
    names = {member.player: member.name for member in members}
    past = {}
    for player_id, found in table_past(store, table, members, day).items():
        best = None if found.best is None else attempt_of(found.best, names.get(player_id))
        past[player_id] = Past(found.streaks, found.won, best)
    week = store.table_attempts(table.id, day_text(monday), day_text(day))
    week_rows = [row if isinstance(row, Attempt) else attempt_of(row, None) for row in week]
    text = day_text(day)
    rows = [row for row in week_rows if row.day == text]
    code = code_of(daily_key(request), day)
    par = shown_par(store, player, code, day)
    opened = board_open(store, day, store.attempt(day, player))
    over = store.day_over(day)

    def par_of(text: str) -> int | None:
        if text == code.text():
            return par  # today's deal: only as the daily's rules allow
        return known_par(GameCode.parse(text))

    lang = current_locale().code
    week_days = [
        (d, format_date(d, "EEEEE", locale=lang), format_date(d, "full", locale=lang))
        for d in (monday + dt.timedelta(days=i) for i in range(7))
    ]
    return Boards(
        day=day,
        opened=opened,
        par=par,
        today=today_board(members, rows, day, over),
        week_days=week_days,
        week=week_board(members, week_rows, day, store.day_over),
        all_time=all_time_board(members, past, rows, day, over, par_of),
    )


def table_run_refs(request: Request, store: GameStore, found: Boards) -> dict[str, str]:
    """ "Race this run" for today's rows, by membership id: once the runs are open to the viewer
    (the day's board's rule), for the runs the day's board lists (where the race finds them)."""
    if not found.opened:
        return {}
    listed = {row.game_id for row in store.leaderboard(found.day).rows}
    key = daily_key(request)
    return {
        row.member.id: run_ref(key, row.attempt.game_id)
        for row in found.today
        if row.attempt is not None and row.attempt.game_id in listed
    }


def table_context(
    request: Request,
    store: GameStore,
    table: FriendsTable,
    member: Member,
    *,
    notice: str | None = None,
    name_error: str | None = None,
    name_input: str | None = None,
    every: bool = False,
) -> dict[str, Any]:
    """What ``table.html`` shows a member: every row when ``every``, else a big table's first
    (:data:`SHOWN_ROWS`)."""
    members = store.table_members(table.id)
    words = current_locale()
    race = (
        table.race if table.race and table.race_at and store.now() - table.race_at < RACE_OFFERED_S else None
    )
    found = boards(request, store, table, members, member.player)
    if not every:

        def mine(row: TodayRow | WeekRow | AllTimeRow) -> bool:
            return row.member.id == member.id

        found = replace(
            found,
            today=shown(found.today, mine),
            week=shown(found.week, mine),
            all_time=shown(found.all_time, mine),
        )
    return {
        "request": request,
        "oob": False,
        "run_refs": table_run_refs(request, store, found),
        "table": table,
        "me": member,
        "is_maker": table.maker == member.player,
        "members": members if every else shown(members, lambda m: m.id == member.id),
        "member_count": len(members),
        "every": every,
        "shown_rows": SHOWN_ROWS,
        "invite_url": invite_url(request, table),
        "boards": found,
        "race_id": race,
        "notice": notice,
        "name_error": name_error,
        "name_input": table.name if name_input is None else name_input,
        "clock_text": clock_text,
        "state_words": state_words,
        "state_marks": STATE_MARKS,
        "date_text": date_words(today(), words.code),
        "anonymous": words.gettext("Anonymous"),
    }
