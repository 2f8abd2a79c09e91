"""The daily calendar (``/daily/calendar?month=YYYY-MM``): a month of the player's daily results.

Each past day (and today) shows the player's result on that day's deal (won, blocked,
unfinished, or not played; "late" for a game begun after its day, never ranked) and links to
it; arrows lead to earlier months (and back, up to this one). Weeks begin on the language's
first day of the week (Babel).
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass
from typing import Any

import babel
from babel.dates import format_date, get_day_names
from fastapi import Request

from app.i18n import current_locale
from app.store import GameStore
from app.store.attempts import Attempt
from app.web.presentation.daily.days import FIRST_DAY


@dataclass(frozen=True, slots=True)
class CalendarDay:
    day: dt.date
    in_month: bool
    playable: bool
    """From the daily's first day to today: it links to the day's deal."""
    state: str
    """``won``, ``blocked``, ``unfinished``, ``late``, ``not-played`` or ``future``."""
    label: str
    """The day and its state in words, for a screen reader and a tooltip."""


def parse_month(text: str | None, today: dt.date) -> dt.date | None:
    """The first day of ``YYYY-MM`` (``None``: malformed, or after this month); this month by
    default. (A month before the daily's first is a month: :func:`calendar_context` refuses it.)"""
    if text is None:
        return today.replace(day=1)
    if len(text) != 7 or not text.isascii() or text[4] != "-" or not (text[:4] + text[5:]).isdigit():
        return None
    year, month = int(text[:4]), int(text[5:])
    if not 1 <= month <= 12 or year < 1:
        return None
    first = dt.date(year, month, 1)
    return first if first <= today else None


def state_of(attempt: Attempt | None, day: dt.date, today: dt.date, over: bool) -> str:
    if day > today:
        return "future"

    if attempt is None:
        return "not-played"
    if attempt.late:
        return "late"
    if attempt.ended:
        return attempt.outcome
    return "unfinished" if over else "playing"


def state_words(state: str) -> str:
    words = current_locale()
    return {
        "won": words.pgettext("daily result", "won"),
        "blocked": words.pgettext("daily result", "blocked"),
        "unfinished": words.pgettext("daily result", "unfinished"),
        "playing": words.pgettext("daily result", "in play"),
        "late": words.pgettext("daily result", "late"),
        "not-played": words.pgettext("daily result", "not played"),
        "future": words.pgettext("daily result", "not out yet"),
    }[state]


def calendar_context(
    request: Request, store: GameStore, player: str, month: str | None, today: dt.date
) -> dict[str, Any] | None:
    """The month's calendar for ``player``, or ``None`` for a month that is malformed or to come
    (one before the daily's first month is the caller's to refuse)."""
    first = parse_month(month, today)
    if first is None:
        return None
    lang = current_locale().code
    locale = babel.Locale.parse(lang)
    first_weekday = locale.first_week_day
    mine = {a.date: a for a in store.player_days(player)}
    weeks = []
    for week in calendar.Calendar(first_weekday).monthdatescalendar(first.year, first.month):
        row = []
        for day in week:
            state = state_of(mine.get(day), day, today, day < today)
            label = f"{format_date(day, format='long', locale=lang)}: {state_words(state)}"
            playable = FIRST_DAY <= day <= today
            row.append(CalendarDay(day, day.month == first.month, playable, state, label))
        weeks.append(row)
    names = get_day_names("abbreviated", locale=lang)
    full_names = get_day_names("wide", locale=lang)
    order = [(first_weekday + i) % 7 for i in range(7)]
    previous = (first - dt.timedelta(days=1)).replace(day=1)
    following = (first + dt.timedelta(days=32)).replace(day=1)
    return {
        "request": request,
        "oob": False,
        "month_title": format_date(first, format="LLLL y", locale=lang),
        "weekdays": [(names[i], full_names[i]) for i in order],
        "weeks": weeks,
        "previous": previous.strftime("%Y-%m") if previous >= FIRST_DAY.replace(day=1) else None,
        "next": following.strftime("%Y-%m") if following <= today else None,
        "today": today,
        "state_words": state_words,
    }
