"""Deal records and player statistics: the JSON API and the ``/stats`` page.

The game page's sentences made from them (the deal's record line, what a game that has just
ended made history with) are in :mod:`app.web.presentation.game_context`.

Routes: ``GET /api/deals/{code}/record``, ``GET /api/players/me/stats``,
``PUT /api/players/me/name``, ``GET /stats`` and ``POST /players/me/name``.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Body, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from app.engine import CodeError, GameCode
from app.engine.layout import LAYOUTS
from app.i18n import current_locale
from app.store.base import (
    DISPLAY_NAME_MAX,
    BadDisplayName,
    DealRecord,
    GameStore,
    Holder,
)
from app.web.deps import PagesDep, PlayerDep, StoreDep
from app.web.presentation.charts import stats_charts
from app.web.presentation.daily.days import daily_key, day_of_page, par_open
from app.web.presentation.daily.streaks import player_streaks
from app.web.presentation.game_context import record_hidden_line, record_line
from app.web.presentation.player_stats import PlayerOut, player_out
from app.web.presentation.reviews import recent_games

router = APIRouter(tags=["records"])

STATS_PAGE: Final = "stats.html"
MAX_NAME_INPUT: Final = 200


# -- JSON API ---------------------------------------------------------------------------------


class HolderOut(BaseModel):
    by: str | None = Field(description="The holder's display name; null when anonymous")
    you: bool = Field(description="Whether the player asking holds it")
    at: dt.datetime


class FirstWin(HolderOut):
    score: int


class BestScore(HolderOut):
    score: int


class BestUnfinished(HolderOut):
    cards_left: int = Field(description="Fewest cards left on the peaks by a game that did not win")


class DealRecordOut(BaseModel):
    code: str
    rules: Literal["easy", "classic"]
    layout: str = Field(default="three-peaks", description="The layout, as a new game's `layout` names it")
    variants: list[str] = Field(
        default_factory=list,
        description="The variants, as a new game's `variants` names them (empty: the standard game)",
        examples=[["open_peaks", "joker"]],
    )
    wins: int = Field(description="Games that won this deal")
    finished: int = Field(description="Games with a result on this deal, won or not")
    first_win: FirstWin | None
    best_score: BestScore | None
    best_unfinished: BestUnfinished | None
    line: str = Field(examples=["Record: 761 by Dana"])
    hidden: bool = Field(
        default=False,
        description="The day's daily deal before your attempt has ended (and before the day is"
        " over): its record is hidden as its par is (first_win, best_score and best_unfinished"
        " null; the counts are given)",
    )


class NameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(
        max_length=MAX_NAME_INPUT, description="1 to 40 characters; null or blank: anonymous"
    )


class Problem(BaseModel):
    detail: str


def holder_fields(holder: Holder, viewer: str) -> dict[str, Any]:
    return {"by": holder.name, "you": holder.player == viewer, "at": holder.at}


def deal_record_out(code: GameCode, record: DealRecord | None, viewer: str) -> DealRecordOut:
    first = best = unfinished = None
    if record is not None:
        if record.first_winner is not None and record.first_win_score is not None:
            first = FirstWin(
                score=record.first_win_score, **holder_fields(record.first_winner, viewer)
            )
        if record.best_holder is not None and record.best_score is not None:
            best = BestScore(score=record.best_score, **holder_fields(record.best_holder, viewer))
        if record.best_unfinished_holder is not None and record.best_cards_left is not None:
            unfinished = BestUnfinished(
                cards_left=record.best_cards_left,
                **holder_fields(record.best_unfinished_holder, viewer),
            )
    return DealRecordOut(
        code=code.text(),
        rules=code.rules.word,  # type: ignore[arg-type]
        layout=code.layout.word,
        variants=code.variants.words,
        wins=record.wins if record else 0,
        finished=record.finished if record else 0,
        first_win=first,
        best_score=best,
        best_unfinished=unfinished,
        line=record_line(record, viewer),
    )


@router.get(
    "/api/deals/{code}/record",
    response_model=DealRecordOut,
    responses={422: {"model": Problem, "description": "Not a game code"}},
)
def get_deal_record(request: Request, code: str, store: StoreDep, player: PlayerDep) -> DealRecordOut:
    """The deal's record: its first winner, best score and best unfinished result.

    Every valid code names a deal, so a deal nobody has finished yet is 200 with
    ``null`` parts and zero counts, not 404. The code is read leniently (any case,
    ``N`` for easy) and answered in its canonical form. The day's daily deal's record is
    hidden (``hidden``) until the player's attempt has ended or the day is over, as its par is.
    """
    try:
        parsed = GameCode.parse(code)
    except CodeError:  # the engine's message, in the client's language (Accept-Language)
        raise HTTPException(422, current_locale().code_error(code)) from None
    found = deal_record_out(parsed, store.deal_record(parsed), player)
    day = day_of_page(daily_key(request), parsed)
    if day is not None and not par_open(store, player, day):
        return found.model_copy(
            update={
                "first_win": None, "best_score": None, "best_unfinished": None,
                "line": record_hidden_line(), "hidden": True,
            }
        )  # fmt: skip
    return found


@router.get("/api/players/me/stats", response_model=PlayerOut)
def get_my_stats(store: StoreDep, player: PlayerDep) -> PlayerOut:
    """The player's statistics per rule set and variants (the player is the one the cookie
    names): easy and classic always, then each rule set with variants the player has a result in."""
    return player_out(store, player)


@router.put(
    "/api/players/me/name",
    response_model=PlayerOut,
    responses={422: {"model": Problem, "description": "A name the game does not accept"}},
)
def put_my_name(body: Annotated[NameIn, Body()], store: StoreDep, player: PlayerDep) -> PlayerOut:
    """Set the display name shown with the player's records (null or blank: anonymous)."""
    try:
        store.set_display_name(player, body.name)
    except BadDisplayName as error:
        raise HTTPException(422, str(error)) from None
    return get_my_stats(store, player)


# -- the statistics page ----------------------------------------------------------------------


def stats_context(
    request: Request,
    store: GameStore,
    player: str,
    *,
    name_input: str | None = None,
    name_error: str | None = None,
    saved: bool = False,
) -> dict[str, Any]:
    name = store.display_name(player)
    stats = store.player_stats(player)
    return {
        "request": request,
        "stats": stats,
        "layout_stats": [
            (layout, kinds)
            for layout in LAYOUTS.values()
            if layout.letter and (kinds := [s for s in stats if s.layout is layout])
        ],
        "display_name": name,
        "name_input": name if name_input is None else name_input[:MAX_NAME_INPUT],
        "name_error": name_error,
        "name_max": DISPLAY_NAME_MAX,
        "saved": saved,
        "recent_games": recent_games(store, player),
        "charts": stats_charts(lambda limit: store.recent_results(player, limit)),
        "streaks": player_streaks(store, player),
        "tables": store.player_tables(player),
        "oob": False,
    }


@router.get("/stats", name="stats_page", include_in_schema=False)
def stats_page(request: Request, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    saved = request.query_params.get("saved") == "1"
    return pages.page(STATS_PAGE, stats_context(request, store, player, saved=saved))


@router.post("/players/me/name", name="set_name", include_in_schema=False)
def set_name(
    request: Request,
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
    name: Annotated[str, Form(max_length=MAX_NAME_INPUT)] = "",
) -> Response:
    try:
        store.set_display_name(player, name)
    except BadDisplayName as error:
        message = current_locale().gettext(str(error))
        context = stats_context(request, store, player, name_input=name, name_error=message)
        return pages.page(STATS_PAGE, context, status_code=400)
    return RedirectResponse("/stats?saved=1", status_code=303)
