"""The daily challenge as the pages see it: which day a deal is, what may be shown, the words.

A day's deal is :func:`app.engine.search.daily.daily_code` of its UTC date, keyed with the
installation's secret key (:meth:`Settings.signing_key`). Finding it runs the solver (a
few tenths of a second, once per day and process), so only page routes (in threads) ask
for a day's code (:func:`code_of`); a move's blocks only look up the days already found
(:func:`known_day`).

No spoilers (:func:`par_open`, :func:`answers_open`, one rule for every page, the API, the
replay and the races): for the day's deal, par, the deal's record ("Record: 755 by …", the
page's line and ``GET /api/deals/<code>/record``), the record holder's line and hindsight
wait until the player's attempt has ended or the day is over; for every deal, the line and
hindsight also wait until the player's own game of it has ended.

The days there are: from :data:`FIRST_DAY` (a fixed epoch, the same for every installation)
to today; the store is told which codes are days' deals (:func:`deal_day`) so that every
game it deals of one begins the player's game of that day.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass
from typing import Final

import babel
from babel.dates import format_date
from babel.lists import format_list
from babel.numbers import format_decimal
from babel.units import format_unit
from fastapi import HTTPException, Request

from app.engine import Game, GameCode, Status
from app.engine.search.daily import band, daily_code
from app.i18n import current_locale
from app.i18n.messages import N_
from app.store import GameStore
from app.store.attempts import Attempt, DayOf
from app.web.presentation import clock
from app.web.presentation.reviews import difficulty_word
from app.web.solver_worker import deal_outlook

FIRST_DAY: Final = dt.date(2026, 1, 1)
"""The daily challenge's first day (the first of a month: the calendar starts with its
month): ``/daily/<day>`` before it is a 404 that stores nothing. A fixed epoch rather than
each installation's start, so that every server of an installation, and every installation,
agree without a stored date; each day between it and today costs a solver walk once per
process (about 45 ms of CPU)."""

_KNOWN: dict[tuple[bytes, str], dt.date] = {}
"""Day of each daily code found in this process, by key and code text."""
_KNOWN_LOCK: Final = threading.Lock()


def daily_key(request: Request) -> bytes:
    """The installation's secret key, as the day's deals are keyed (read once per app)."""
    state = request.app.state
    key: bytes | None = getattr(state, "daily_key", None)
    if key is None:
        key = state.settings.signing_key().encode("utf-8")
        state.daily_key = key
    return key


def today() -> dt.date:
    """Today in UTC, by the web layer's clock."""
    return dt.datetime.fromtimestamp(clock.now(), dt.UTC).date()


def code_of(key: bytes, day: dt.date) -> GameCode:
    """The deal of ``day`` (runs the solver the first time: call it from a thread)."""
    code = daily_code(key, day)
    with _KNOWN_LOCK:
        _KNOWN[(key, code.text())] = day
    return code


def known_day(key: bytes, code: GameCode) -> dt.date | None:
    """The day whose deal ``code`` is, when this process has found that day's deal."""
    with _KNOWN_LOCK:
        return _KNOWN.get((key, code.text()))


def day_of_page(key: bytes, code: GameCode) -> dt.date | None:
    """For a page (in a thread): the day of ``code`` when it is today's or yesterday's deal
    (both found now if need be), or another day's this process has found."""
    now = today()
    for day in (now, now - dt.timedelta(days=1)):
        if code_of(key, day) == code:
            return day
    return known_day(key, code)


def deal_day(key: bytes) -> DayOf:
    """How the store tells a day's deal (:meth:`GameStore.know_days`): :func:`day_of_page` with
    the installation's key."""

    def day_of(code: GameCode) -> dt.date | None:
        return day_of_page(key, code)

    return day_of


def parse_day(text: str) -> dt.date | None:
    """A ``YYYY-MM-DD`` date, strictly (``None``: not one)."""
    if len(text) != 10 or not text.isascii() or text[4] != "-" or text[7] != "-":
        return None
    if not (text[:4] + text[5:7] + text[8:]).isdigit():
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


BAD_DATE: Final = N_("“%(date)s” is not a date: write it as YYYY-MM-DD, for example 2026-12-03.")
FUTURE_DATE: Final = N_("The daily deal of %(date)s is not out yet: each day's deal comes at midnight UTC.")
BEFORE_FIRST: Final = N_("There is no daily deal of %(date)s: the first daily deal was that of %(first)s.")


def checked_day(text: str) -> dt.date:
    """The date of a ``/daily/…`` path; a malformed one is a 422; one of a date's form that is
    no day (2026-02-30), a future one or one before the daily's first day a 404."""
    words = current_locale()
    day = parse_day(text)
    if day is None and len(text) == 10 and text.isascii() and text[:4].isdigit():
        # the form of a date, but no day (2026-02-30): no daily that day
        raise HTTPException(404, words.gettext(BAD_DATE) % {"date": text[:20]})
    if day is None:
        raise HTTPException(422, words.gettext(BAD_DATE) % {"date": text[:20]})
    if day > today():
        raise HTTPException(404, words.gettext(FUTURE_DATE) % {"date": day.isoformat()})
    if day < FIRST_DAY:
        first = date_words(FIRST_DAY, words.code)
        raise HTTPException(404, words.gettext(BEFORE_FIRST) % {"date": day.isoformat(), "first": first})
    return day


def board_open(store: GameStore, day: dt.date, mine: Attempt | None) -> bool:
    """Whether the day's leaderboard may be shown to a player whose game of the day is
    ``mine``: once the day is over, or once their ranked attempt has ended."""
    return store.day_over(day) or (mine is not None and mine.ended and not mine.late)


def par_open(store: GameStore, player: str, day: dt.date | None) -> bool:
    """The rule of no spoilers, first part: whether a deal's par, and its record (the day's
    best score soon is its par), may be shown to ``player``. For the deal of ``day``
    (``None``: not a day's deal), once its leaderboard is open to them (:func:`board_open`:
    their attempt has ended, or the day is over); for every other deal, whenever the page
    shows it (a game's end, a race's finish)."""
    return day is None or board_open(store, day, store.attempt(day, player))


def answers_open(store: GameStore, player: str, code: GameCode, day: dt.date | None) -> bool:
    """The rule of no spoilers, whole: whether the deal's answers (the record holder's line,
    hindsight, and par) may be offered to ``player``: once :func:`par_open`, and once their
    own latest game of the deal has ended (or they have none), so that a player in the
    middle of a deal is never one click from its answer. The game page, the day's board,
    the API, the replay and the race pages ask it (or :func:`shown_par`)."""
    if not par_open(store, player, day):
        return False
    own = store.find(player, code)
    return own is None or own.game.status is not Status.PLAYING


def shown_par(store: GameStore, player: str, code: GameCode, day: dt.date | None) -> int | None:
    """The deal's par (the solver's best possible score) when :func:`par_open` lets
    ``player`` see it; ``None`` otherwise, or while the solver's analysis is not ready."""
    return deal_outlook(code).best_score if par_open(store, player, day) else None


# -- the words --------------------------------------------------------------------------------


def date_words(day: dt.date, lang: str) -> str:
    """The date in full: "Thursday, December 3, 2026"."""
    return format_date(day, format="full", locale=lang)


def short_date(day: dt.date, lang: str) -> str:
    """The date as the share text writes it: "Thu, Dec 3, 2026"."""
    return format_date(day, format="EEE d MMM y", locale=lang)


def number(n: int, lang: str) -> str:
    return format_decimal(n, locale=lang)


def standing_words(rank: int, ranked: int) -> str:
    """ "12th of 340", by the language's ordinal rules (CLDR, through Babel)."""
    words = current_locale()
    lang = words.code
    form = babel.Locale.parse(lang).ordinal_form(rank)
    values = {"rank": number(rank, lang), "count": number(ranked, lang)}
    texts = {
        "one": words.pgettext("ordinal one", "%(rank)sst of %(count)s"),
        "two": words.pgettext("ordinal two", "%(rank)snd of %(count)s"),
        "few": words.pgettext("ordinal few", "%(rank)srd of %(count)s"),
    }
    return texts.get(form, words.pgettext("ordinal other", "%(rank)sth of %(count)s")) % values


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


@dataclass(frozen=True, slots=True)
class DailyView:
    """The daily deal's label on the game page."""

    day: dt.date
    date_text: str
    """The date in the page's language: "Thursday, December 3, 2026"."""
    difficulty: str
    """The day's band in the page's language."""
    next_in: str | None
    """Until the next daily deal, for today's deal: "5 hr, 12 min"; else ``None``."""
    practice: bool
    """A later game of the deal than the player's attempt: it never changes the ranking."""
    late: bool
    """The player's game of a past day, begun after it: never ranked."""
    after_end: bool = False
    """The attempt's own game, played on after the attempt ended (undone after a block, or
    taken up again after the player ended it): practice too."""


def daily_view(
    day: dt.date,
    attempt: Attempt | None,
    game_id: str,
    at: dt.datetime | None = None,
    *,
    playing: bool = False,
) -> DailyView:
    at = at or dt.datetime.fromtimestamp(clock.now(), dt.UTC)
    lang = current_locale().code
    return DailyView(
        day,
        date_words(day, lang),
        difficulty_word(band(day)),
        until_next(at, lang) if day == at.date() else None,
        practice=attempt is not None and attempt.game_id != game_id,
        late=attempt is not None and attempt.late and attempt.game_id == game_id,
        after_end=(
            attempt is not None
            and attempt.game_id == game_id
            and not attempt.late
            and attempt.ended
            and playing
        ),
    )


def peaks_marks(game: Game) -> str:
    """▲ for each peak cleared, △ for each not: "▲▲△"."""
    return "".join("▲" if cleared else "△" for cleared in game.peaks_cleared)
