"""The daily challenge's pages and JSON (issue 29): the day's deal, its leaderboard, the calendar.

* ``GET /daily``: a redirect to today's ``/daily/<YYYY-MM-DD>``;
* ``GET /daily/<YYYY-MM-DD>``: the game page of the player's game of that day's deal. Their
  first game of it, begun on its day, is their ranked attempt; one begun later is "late";
  later games are practice (:meth:`GameStore.begin_attempt`);
* ``GET /daily/<YYYY-MM-DD>/board``: the day's leaderboard, the player's standing, result
  against par, streaks and the share text (the ``board`` block for htmx, else a page);
* ``GET /daily/calendar?month=YYYY-MM``: the player's month of daily results;
* ``GET /api/daily``, ``GET /api/daily/<YYYY-MM-DD>``: the same as JSON.

A malformed date is a 422 (a page says so in the page's language), a future date a 404;
neither stores anything.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Final

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, Field

from app.engine.search.daily import band
from app.i18n import current_locale
from app.i18n.messages import N_
from app.store import GameStore, StoredGame
from app.store.attempts import Attempt, Leaderboard, Streaks, streaks
from app.web.deps import PagesDep, PlayerDep, StoreDep
from app.web.presentation.daily.board import board_context
from app.web.presentation.daily.days import board_open, code_of, daily_key, parse_day, shown_par, today
from app.web.presentation.render import is_htmx

router = APIRouter()

BAD_DATE: Final = N_("“%(date)s” is not a date: write it as YYYY-MM-DD, for example 2026-12-03.")
BAD_MONTH: Final = N_("“%(month)s” is not a month: write it as YYYY-MM, for example 2026-12.")
FUTURE_DATE: Final = N_("The daily deal of %(date)s is not out yet: each day's deal comes at midnight UTC.")


def checked_day(text: str) -> dt.date:
    """The date of a ``/daily/…`` path; a malformed one is a 422, a future one a 404."""
    words = current_locale()
    day = parse_day(text)
    if day is None:
        raise HTTPException(422, words.gettext(BAD_DATE) % {"date": text[:20]})
    if day > today():
        raise HTTPException(404, words.gettext(FUTURE_DATE) % {"date": day.isoformat()})
    return day


def players_game_of_day(
    request: Request, store: GameStore, player: str, day: dt.date
) -> tuple[StoredGame, StoredGame | None]:
    """The player's game of the day's deal (their attempt, or their latest practice game of it),
    or a fresh one that becomes their attempt ("late" for a past day); second, the game it left."""
    from app.web.routes.pages import deal_for

    code = code_of(daily_key(request), day)
    stored, left = deal_for(store, player, code)
    store.begin_attempt(day, player, stored, late=day != today())
    return stored, left


# -- pages ------------------------------------------------------------------------------------


@router.get("/daily", name="daily")
def daily() -> Response:
    return RedirectResponse(f"/daily/{today().isoformat()}", status_code=303)


@router.get("/daily/calendar", name="daily_calendar")
def calendar_page(
    request: Request,
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
    month: Annotated[str | None, Query(max_length=7)] = None,
) -> Response:
    from app.web.presentation.daily.calendar import calendar_context

    context = calendar_context(request, store, player, month, today())
    if context is None:
        raise HTTPException(422, current_locale().gettext(BAD_MONTH) % {"month": (month or "")[:7]})
    return pages.page("daily_calendar.html", context)


@router.get("/daily/{day}", name="daily_day")
def daily_page(request: Request, day: str, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    from app.web.routes.pages import page_of_dealt

    date = checked_day(day)
    stored, left = players_game_of_day(request, store, player, date)
    return page_of_dealt(request, pages, store, player, stored, left)


@router.get("/daily/{day}/board", name="daily_board")
def board_page(request: Request, day: str, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    date = checked_day(day)
    context = board_context(request, store, player, date)
    if is_htmx(request):
        return pages.blocks("daily_board.html", ["board"], context)
    return pages.page("daily_board.html", context)


# -- JSON -------------------------------------------------------------------------------------


class RowOut(BaseModel):
    rank: int | None = Field(description="Place among the day's ranked attempts; null: not ranked")
    name: str = Field(description="The display name, or “Anonymous”")
    won: bool
    score: int
    seconds: float | None = Field(description="The game clock at its end (or at the day's end)")
    hints: int
    ranked: bool = Field(description="False for an attempt played faster than a person can")


class StreaksOut(BaseModel):
    current: int = Field(
        description="Consecutive days, up to today or yesterday, with a ranked attempt ended"
    )
    longest: int
    current_won: int = Field(description="The same, counting days won")
    longest_won: int


class DailyOut(BaseModel):
    date: str = Field(examples=["2026-12-03"])
    code: str
    difficulty: str = Field(description="easy, medium, hard or expert: Monday easiest, Sunday hardest")
    par: int | None = Field(description="The best score the deal allows; null until it may be shown")
    leaderboard: list[RowOut] = Field(description="The first 100, in order")
    you: RowOut | None = Field(description="Your own row; null before you have an attempt")


def row_out(attempt: Attempt) -> RowOut:
    return RowOut(
        rank=attempt.rank,
        name=attempt.name or current_locale().gettext("Anonymous"),
        won=attempt.won,
        score=attempt.score,
        seconds=attempt.seconds,
        hints=attempt.hints,
        ranked=attempt.plausible,
    )


def streaks_out(found: Streaks) -> StreaksOut:
    return StreaksOut(
        current=found.current,
        longest=found.longest,
        current_won=found.current_won,
        longest_won=found.longest_won,
    )


def player_streaks(store: GameStore, player: str) -> Streaks:
    return streaks(store.player_days(player), today())


def daily_out(request: Request, store: GameStore, player: str, day: dt.date) -> DailyOut:
    code = code_of(daily_key(request), day)
    mine = store.attempt(day, player)
    board: Leaderboard | None = store.leaderboard(day) if board_open(store, day, mine) else None
    you = None
    if mine is not None and not mine.late:
        you = row_out(mine)
    return DailyOut(
        date=day.isoformat(),
        code=code.text(),
        difficulty=band(day).value,
        par=shown_par(store, player, code, day),
        leaderboard=[row_out(a) for a in board.rows] if board else [],
        you=you,
    )


@router.get("/api/daily", tags=["api"], response_model=DailyOut)
def api_today(request: Request, store: StoreDep, player: PlayerDep) -> DailyOut:
    """Today's daily deal, its leaderboard (once your attempt has ended) and your row."""
    return daily_out(request, store, player, today())


@router.get("/api/daily/{day}", tags=["api"], response_model=DailyOut, responses={404: {}, 422: {}})
def api_day(request: Request, day: str, store: StoreDep, player: PlayerDep) -> DailyOut:
    """A day's daily deal (``YYYY-MM-DD``): a future date is a 404, a malformed one a 422."""
    return daily_out(request, store, player, checked_day(day))

