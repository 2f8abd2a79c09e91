"""The daily deal's label: "Daily deal · December 1, 2026 · next in 5 hr, 12 min".

A day's deal is :meth:`GameCode.daily` of its date in UTC (``/daily`` deals today's).
A game is labelled when its code is today's deal, or yesterday's (a game begun before
midnight); only today's says how long until the next one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache

from babel.dates import format_date
from babel.lists import format_list
from babel.units import format_unit

from app.engine import GameCode
from app.i18n import current_locale


@lru_cache(maxsize=8)
def _daily_text(day: dt.date) -> str:
    return GameCode.daily(day).text()


@dataclass(frozen=True, slots=True)
class DailyView:
    day: dt.date
    date_text: str
    """The date in the page's language: "December 1, 2026", "1 בדצמבר 2026"."""
    next_in: str | None
    """Until the next daily deal, for today's deal: "5 hr, 12 min"; else ``None``."""


def until_next(at: dt.datetime, lang: str) -> str:
    """The hours and minutes from ``at`` to the next midnight UTC, in ``lang``: "5 hr, 12 min"."""
    midnight = dt.datetime.combine(at.date() + dt.timedelta(days=1), dt.time(), dt.UTC)
    minutes = max(1, -(-int((midnight - at).total_seconds()) // 60))  # rounded up: never "0 min"
    hours, minutes = divmod(minutes, 60)
    parts = []
    if hours:
        parts.append(format_unit(hours, "duration-hour", length="short", locale=lang))
    if minutes or not hours:
        parts.append(format_unit(minutes, "duration-minute", length="short", locale=lang))
    return format_list(parts, style="unit-short", locale=lang)


def daily_deal(code: GameCode, at: dt.datetime | None = None) -> DailyView | None:
    """The label of a daily deal's game, or ``None`` for any other deal."""
    at = at or dt.datetime.now(dt.UTC)
    lang = current_locale().code
    text = code.text()
    for back, day in enumerate((at.date(), at.date() - dt.timedelta(days=1))):
        if _daily_text(day) == text:
            date_text = format_date(day, format="long", locale=lang)
            return DailyView(day, date_text, until_next(at, lang) if back == 0 else None)
    return None
