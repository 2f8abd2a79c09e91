"""The race page ``/race/<id>`` and its forms.

The page shows one of three views, each a URL that renders in full:

* **lobby**: who is in, the link to share, Join (for whoever opened the link), Start (the
  maker), then the 3-2-1 countdown;
* **board**: a racer's own game on the ordinary board (``game.html``: every move, hint and
  undo as usual), with the strip of rivals' counts beside it, and the finish table at the end;
* **watch**: the strip and the finish table, for someone who came after the start.

The live part (``race_live.html``, :mod:`app.web.presentation.race_live`) is what the stream
(:mod:`app.web.routes.race_live`) sends; when the view a page shows is no longer the right one
(the deal came, or "Race again" dealt the next round), the stream sends a fragment that loads
the page again.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from anyio import to_thread
from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app.engine import STANDARD, GameCode, Rules
from app.engine.layout import LAYOUTS
from app.store.races import RaceRefused, refuse_unfinished
from app.web.deps import PagesDep, PlayerDep, RaceIdPath, StoreDep
from app.web.presentation.game_context import agame_context
from app.web.presentation.layouts_on_page import LayoutWord
from app.web.presentation.race_live import live_context, par_of, view_of
from app.web.presentation.variants_on_page import TickedVariants
from app.web.race_changes import change_race, known_race, make_race, race_code, refusal
from app.web.solver_worker import winnable_code

router = APIRouter(tags=["races"])


# -- the page ---------------------------------------------------------------------------------


@router.get("/race/{race_id}", name="race_page")
async def race_page(
    request: Request, race_id: RaceIdPath, store: StoreDep, pages: PagesDep, player: PlayerDep
) -> Response:
    race = await known_race(store, race_id)
    now = time.time()
    view = view_of(race, player, now)
    par = await par_of(request, store, race, player, now)
    context = live_context(request, race, player, now, view=view, par=par)
    mine = race.racer(player)
    if view.startswith("board") and mine is not None:
        stored = await store.aget(mine.game_id)
        if stored is not None:
            game = await agame_context(request, pages, store, player, stored)
            return pages.page("race_board.html", {**game, **context})
    return pages.page("race_lobby.html", context)


@router.get("/races/{race_id}/page", name="race_view_changed")
async def view_changed(race_id: RaceIdPath) -> Response:
    """What the live part asks for when the page shows a view that is no longer the right
    one (the deal came, or the next round was dealt): a whole new page (``HX-Redirect``)."""
    return Response(status_code=204, headers={"HX-Redirect": f"/race/{race_id}", "Vary": "HX-Request"})


@router.post("/races", name="new_race")
async def new_race(
    request: Request,
    store: StoreDep,
    player: PlayerDep,
    variants: TickedVariants,
    code: Annotated[str, Form(max_length=500)] = "",
    rules_word: Annotated[Literal["easy", "classic"], Form(alias="rules")] = "easy",
    layout_word: Annotated[LayoutWord, Form(alias="layout")] = "three-peaks",
) -> Response:
    """"Race a friend": a room for the deal given (the result box's, or a code typed in the New
    game window), else for a random winnable deal of the rules, layout and variants chosen
    there. A typed code that names variants is raced as it is; one that names none gets the
    variants ticked in the window (its deal number, rules and layout stay the code's). The New
    game window's button sends its form here (htmx: ``HX-Redirect`` to the room)."""
    if code.strip():
        typed = race_code(code.strip())
        named = typed.variants != STANDARD
        dealt = typed if named else GameCode(typed.rules, typed.number, variants, typed.layout)
    else:
        rules, layout = Rules.from_word(rules_word), LAYOUTS[layout_word]
        dealt = await to_thread.run_sync(winnable_code, rules, None, variants, layout)
    race = await to_thread.run_sync(make_race, store, player, dealt)
    if request.headers.get("hx-request") == "true":
        return Response(status_code=204, headers={"HX-Redirect": f"/race/{race.id}"})
    return RedirectResponse(f"/race/{race.id}", status_code=303)


async def _act(request: Request, race_id: str, action: Any) -> Response:
    await change_race(request, race_id, action)
    if request.headers.get("hx-request") == "true":
        return Response(status_code=204)  # the stream shows what changed
    return RedirectResponse(f"/race/{race_id}", status_code=303)


@router.post("/races/{race_id}/join", name="join_race")
async def join(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Response:
    return await _act(request, race_id, lambda: store.join_race(race_id, player, time.time()))


@router.post("/races/{race_id}/start", name="start_race")
async def start(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Response:
    return await _act(request, race_id, lambda: store.start_race(race_id, player, time.time()))


@router.post("/races/{race_id}/leave", name="leave_race")
async def leave(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Response:
    """"Leave the race": the racer is gone at once and the race no longer waits for them; they
    go to the New game page (opening the race's page again brings them back)."""
    await change_race(request, race_id, lambda: store.leave_race(race_id, player, time.time()))
    if request.headers.get("hx-request") == "true":
        return Response(status_code=204, headers={"HX-Redirect": "/new"})
    return RedirectResponse("/new", status_code=303)


@router.post("/races/{race_id}/again", name="race_again")
async def again(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Response:
    """"Race again": a new random winnable deal of the same rules and variants, to the same
    racers."""
    race = await known_race(store, race_id)
    try:
        refuse_unfinished(race, time.time())
    except RaceRefused as error:
        raise refusal(error) from None
    last = race.game_code  # the same rules, layout and variants, a new winnable deal
    dealt = await to_thread.run_sync(winnable_code, last.rules, None, last.variants, last.layout)
    return await _act(request, race_id, lambda: store.race_again(race_id, player, dealt, time.time()))
