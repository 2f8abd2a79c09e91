"""The moves: remove, draw and undo, on the game page (htmx, or a plain form post).

The app's most frequent requests, so they come first among the routes (Starlette tries
the routes in order), take one dependency each (see :mod:`app.web.deps`), and are
coroutines: the store applies the move and saves it as one step on the event loop
(:meth:`~app.store.GameStore.aupdate`), and the answer is rendered there too. An htmx
request gets the table and, out of band, the score, the move counter, the undo button, the
status line and the board in words (and the deal's record when the game ends); a plain
form post gets a redirect to the page (``/g/<code>``), which renders in full.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, cast

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.routing import APIRoute

from app.engine import Game, Refusal, RefusedAction, Status
from app.engine.actions import PositionError
from app.web.deps import (
    REMOVE_FORM,
    GameNotFound,
    PlayersMove,
    PlayersMoveDep,
    PlayersRemovalDep,
    bad_position,
    load_players_game,
)
from app.web.game_changes import play
from app.web.presentation.game_context import ACTION_BLOCKS, GAME_PAGE, agame_context, page_url
from app.web.presentation.render import is_htmx
from app.web.presentation.views import Event, Happened, turned_down, turned_up


class MoveRoute(APIRoute):
    """A move's route: FastAPI documents it from its signature (``/openapi.json``), but the
    request is handled by calling its one dependency and the endpoint directly.

    FastAPI's own handler solves the dependency (its parameters validated by pydantic, a
    context of exit stacks) at every request: a quarter of a move's CPU, measured (the
    moves are a third of the app's requests, and cost four times the trivial one). The
    dependency takes the path's ``game_id`` and the request, as it is declared; what it
    raises (404, 422) goes to the app's exception handlers as before. Kept while it pays:
    ``bench/web.py --guard`` and ``bench/inprocess.py --without move-route`` measure a move
    without it (docs/performance.md, "The clever parts").
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        (dependency,) = self.dependant.dependencies  # one each, see app.web.deps
        read = cast(Callable[[str, Request], Awaitable[PlayersMove]], dependency.call)
        endpoint = cast(Callable[[Request, PlayersMove], Awaitable[Response]], self.endpoint)

        async def handle(request: Request) -> Response:
            return await endpoint(request, await read(request.path_params["game_id"], request))

        return handle


router = APIRouter(route_class=MoveRoute)


async def act(
    request: Request, move: PlayersMove, action: Callable[[Game], tuple[Event, frozenset[int]]]
) -> Response:
    """Apply one action to the player's game, save it, answer with the swapped blocks.

    A coroutine: the store applies the action to the latest state and saves it as one step
    (:meth:`GameStore.aupdate`; on SQLite through its one write path, whose sync thread
    covers every commit made before it), and the answer is rendered on the event loop. Two
    requests at once (a second tab, a double click) are applied one after the other, each
    answered with its own result.
    """
    store, pages, player = move.store, move.pages, move.player
    try:  # the race's check, the store's step, the signal (app/web/game_changes.py)
        updated = await play(request, store, move.game_id, action, owned_by=player)
    except PositionError as error:  # a position off the game's layout (0 to 29 pass the form)
        raise bad_position(str(error), getattr(move, "position", None)) from None
    except RefusedAction as refused:
        if refused.refusal is Refusal.NO_CARD and is_htmx(request):
            # A double click's second click: the first one's answer stands (204: nothing swapped).
            return Response(status_code=204, headers={"Vary": "HX-Request"})
        stored = (await load_players_game(move)).stored
        event = Event(Happened.REFUSED, refusal=refused.refusal)
        if not is_htmx(request):
            context = await agame_context(request, pages, store, player, stored, event=event)
            return pages.page(GAME_PAGE, context, status_code=409)
        context = await agame_context(
            request, pages, store, player, stored, event=event, oob=True, record=False
        )
        return pages.blocks(GAME_PAGE, ["status"], context, status_code=409)
    if updated is None:
        raise GameNotFound()
    stored, (event, turned) = updated
    if not is_htmx(request):
        return RedirectResponse(page_url(stored.game), status_code=303)
    # The deal's record changes only when a game ends.
    ended = stored.game.status is not Status.PLAYING
    context = await agame_context(
        request, pages, store, player, stored,
        event=event, turned=turned, oob=True, record=ended, outlook=False,
    )
    return pages.blocks(GAME_PAGE, (*ACTION_BLOCKS, "record") if ended else ACTION_BLOCKS, context)


@router.post("/games/{game_id}/remove", name="remove", openapi_extra=REMOVE_FORM)
async def remove(request: Request, move: PlayersRemovalDep) -> Response:
    """Remove the card at the posted ``position`` (a form field, 0 to N - 1 in a layout of N
    cards: 27 in three peaks) to the waste."""
    position = move.position

    def do(game: Game) -> tuple[Event, frozenset[int]]:
        bonus_before, face_up_before = game.peak_bonus, game.face_up_mask()
        game.remove(position)
        turned = turned_up(face_up_before, game)
        event = Event(
            Happened.REMOVED,
            card=game.waste,
            peak_points=game.peak_bonus - bonus_before,
            turned_up=tuple(game.deal.tableau[p] for p in sorted(turned)),
        )
        return event, turned

    return await act(request, move, do)


@router.post("/games/{game_id}/draw", name="draw")
async def draw(request: Request, move: PlayersMoveDep) -> Response:
    def do(game: Game) -> tuple[Event, frozenset[int]]:
        game.draw()
        return Event(Happened.DREW, card=game.waste), frozenset()

    return await act(request, move, do)


@router.post("/games/{game_id}/undo", name="undo")
async def undo(request: Request, move: PlayersMoveDep) -> Response:
    def do(game: Game) -> tuple[Event, frozenset[int]]:
        before = game.copy()
        game.undo()
        # An undone draw puts its card back in the stock, face down: the answer does not name it.
        card = None if before.line and before.line[-1].is_draw else before.waste
        return Event(Happened.UNDID, card=card, turned_down=turned_down(before, game)), frozenset()

    return await act(request, move, do)
