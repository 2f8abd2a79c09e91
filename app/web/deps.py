"""Typed dependencies: the store, the page renderer, the player, the player's game.

They are ``async def`` on purpose: they do no I/O, and FastAPI runs a plain ``def``
dependency in the thread pool, a thread hop per dependency per request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, cast

from fastapi import Depends, HTTPException, Request

from app.store import GameStore, StoredGame
from app.web.render import Pages


async def get_store(request: Request) -> GameStore:
    return cast(GameStore, request.app.state.store)


async def get_pages(request: Request) -> Pages:
    return cast(Pages, request.app.state.pages)


async def get_player(request: Request) -> str:
    return cast(str, request.state.player)


StoreDep = Annotated[GameStore, Depends(get_store)]
PagesDep = Annotated[Pages, Depends(get_pages)]
PlayerDep = Annotated[str, Depends(get_player)]


class GameNotFound(HTTPException):
    def __init__(self) -> None:
        super().__init__(404, "No such game")


@dataclass(frozen=True, slots=True)
class PlayersMove:
    """A request to act on the game ``/games/{game_id}/…`` names, by the player asking.

    The game is not loaded here: the store loads it, checks whose it is, changes and saves
    it in one step (:meth:`~app.store.GameStore.aupdate` with ``owned_by``).
    """

    game_id: str
    store: GameStore
    player: str


@dataclass(frozen=True, slots=True)
class PlayersGame:
    """The game a ``/games/{game_id}/…`` request names, the player's own, and its store."""

    stored: StoredGame
    store: GameStore
    player: str


async def get_players_move(game_id: str, request: Request) -> PlayersMove:
    """One dependency rather than one on the store and the player dependencies: FastAPI's
    solving of nested dependencies costs more than the lookup itself (about 0.1 ms a request
    on the moves, the app's most frequent requests)."""
    if len(game_id) > 64:
        raise GameNotFound()
    return PlayersMove(game_id, await get_store(request), await get_player(request))


async def load_players_game(move: PlayersMove) -> PlayersGame:
    """The named game if it is this player's; any other (unknown, or someone else's) is 404, alike."""
    stored = await move.store.aget(move.game_id)
    if stored is None or stored.owner != move.player:
        raise GameNotFound()
    return PlayersGame(stored, move.store, move.player)


async def get_players_game(game_id: str, request: Request) -> PlayersGame:
    return await load_players_game(await get_players_move(game_id, request))


PlayersMoveDep = Annotated[PlayersMove, Depends(get_players_move)]
PlayersGameDep = Annotated[PlayersGame, Depends(get_players_game)]
