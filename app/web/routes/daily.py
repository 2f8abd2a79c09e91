"""The daily challenge's pages and JSON (issue 29): the day's deal, its leaderboard, the calendar.

* ``GET /daily``: a redirect to today's ``/daily/<YYYY-MM-DD>``;
* ``GET /daily/<YYYY-MM-DD>``: for today, the game page of the player's game of the day's deal
  (dealt now if they have none). For a past day, the player's game of its deal if they have
  one, else the day's page (its board) with a button that deals it: a link from another site
  never deals a game in the player's name;
* ``POST /daily/<YYYY-MM-DD>``: deal the day's deal ("Play this day"; with ``end_attempt``,
  the ranked attempt under way is ended first). The player's first game of a day's deal,
  begun on its day, is their ranked attempt; one begun later is "late"; later games are
  practice: the store begins them wherever it deals the deal (:meth:`GameStore.create`);
* ``GET /daily/<YYYY-MM-DD>/board``: the day's leaderboard, the player's standing, result
  against par, streaks and the share text (the ``board`` block for htmx, else a page);
* ``GET /daily/calendar?month=YYYY-MM``: the player's month of daily results;
* ``GET /api/daily``, ``GET /api/daily/<YYYY-MM-DD>``: the same as JSON.

A malformed date is a 422 (a page says so in the page's language), a future date or one
before the daily's first day (:data:`~app.web.presentation.daily.days.FIRST_DAY`) a 404;
none stores anything.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Final

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, Field

from app.engine.search.daily import band
from app.i18n import current_locale
from app.i18n.messages import N_
from app.store import GameStore, StoredGame
from app.store.attempts import Attempt, AttemptUnfinished, Leaderboard
from app.web.deps import PagesDep, PlayerDep, StoreDep
from app.web.leaving import deal_for, remember_left
from app.web.presentation.daily.board import board_context
from app.web.presentation.daily.days import (
    BEFORE_FIRST,
    FIRST_DAY,
    board_open,
    checked_day,
    code_of,
    daily_key,
    date_words,
    shown_par,
    today,
)
from app.web.presentation.daily.ghost import run_ref
from app.web.presentation.daily.practice import attempt_choice
from app.web.presentation.game_context import page_of_dealt
from app.web.presentation.render import is_htmx

router = APIRouter()

BAD_MONTH: Final = N_("“%(month)s” is not a month: write it as YYYY-MM, for example 2026-12.")


def players_game_of_day(
    request: Request, store: GameStore, player: str, day: dt.date
) -> tuple[StoredGame, StoredGame | None]:
    """The player's game of the day's deal (their attempt, or their latest practice game of it),
    or a fresh one, which the store makes their attempt ("late" for a past day) if it is their
    first; second, the game it left. :class:`AttemptUnfinished`: the attempt is under way in a
    game not theirs to show (one made through the API)."""
    return deal_for(store, player, code_of(daily_key(request), day))


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
    from app.web.presentation.daily.calendar import calendar_context, parse_month

    first = parse_month(month, today())
    if first is not None and first < FIRST_DAY.replace(day=1):
        words = current_locale()
        first_words = date_words(FIRST_DAY, words.code)
        raise HTTPException(404, words.gettext(BEFORE_FIRST) % {"date": month, "first": first_words})
    context = calendar_context(request, store, player, month, today())
    if context is None:
        raise HTTPException(422, current_locale().gettext(BAD_MONTH) % {"month": (month or "")[:7]})
    return pages.page("daily_calendar.html", context)


@router.get("/daily/{day}", name="daily_day")
def daily_page(request: Request, day: str, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    """Today's: the player's game of the deal. A past day's: their game of it if they have one,
    else the day's page, whose button deals it (``POST``)."""
    date = checked_day(day)
    if date != today() and store.find(player, code_of(daily_key(request), date)) is None:
        return pages.page("daily_board.html", board_context(request, store, player, date))
    try:
        stored, left = players_game_of_day(request, store, player, date)
    except AttemptUnfinished as refused:
        return attempt_choice(request, pages, store, player, refused, f"/daily/{date.isoformat()}")
    return page_of_dealt(request, pages, store, player, stored, left)


@router.post("/daily/{day}", name="play_day")
def play_day(
    request: Request,
    day: str,
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
    end_attempt: Annotated[bool, Form()] = False,
) -> Response:
    """"Play this day's deal": the player's game of the day's deal (dealt now if they have none),
    and its page. With ``end_attempt``, their ranked attempt under way is ended first."""
    date = checked_day(day)
    if end_attempt:
        store.end_attempt(date, player)
    try:
        stored, left = players_game_of_day(request, store, player, date)
    except AttemptUnfinished as refused:
        return attempt_choice(request, pages, store, player, refused, f"/daily/{date.isoformat()}")
    response = RedirectResponse(f"/g/{stored.game.code_text()}", status_code=303)
    remember_left(response, left, stored)
    return response


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
    run: str | None = Field(
        default=None,
        description="The run's reference, to race it as a ghost: POST /daily/<date>/runs/<run>, then "
        "GET it (the page) and /daily/<date>/runs/<run>/events (its strip, server-sent events). Given only "
        "once the day's runs are open to you (your attempt has ended, or the day is over); never a game id",
    )


class DailyOut(BaseModel):
    date: str = Field(examples=["2026-12-03"])
    code: str
    difficulty: str = Field(description="easy, medium, hard or expert: Monday easiest, Sunday hardest")
    par: int | None = Field(description="The best score the deal allows; null until it may be shown")
    leaderboard: list[RowOut] = Field(description="The first 100, in order")
    you: RowOut | None = Field(description="Your own row; null before you have an attempt")


def row_out(attempt: Attempt, key: bytes | None = None) -> RowOut:
    """A row; with ``key`` (the board is open to the viewer), its run's reference too."""
    return RowOut(
        rank=attempt.rank,
        name=attempt.name or current_locale().gettext("Anonymous"),
        won=attempt.won,
        score=attempt.score,
        seconds=attempt.seconds,
        hints=attempt.hints,
        ranked=attempt.plausible,
        run=run_ref(key, attempt.game_id) if key is not None and attempt.last_action is not None else None,
    )


def daily_out(request: Request, store: GameStore, player: str, day: dt.date) -> DailyOut:
    code = code_of(daily_key(request), day)
    mine = store.attempt(day, player)
    opened = board_open(store, day, mine)
    board: Leaderboard | None = store.leaderboard(day) if opened else None
    key = daily_key(request) if opened else None
    you = None
    if mine is not None and not mine.late:
        you = row_out(mine, key)
    return DailyOut(
        date=day.isoformat(),
        code=code.text(),
        difficulty=band(day).value,
        par=shown_par(store, player, code, day),
        leaderboard=[row_out(a, key) for a in board.rows] if board else [],
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
