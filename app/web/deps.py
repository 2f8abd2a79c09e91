"""Typed dependencies: the store, the page renderer, the player.

They are ``async def`` on purpose: they do no I/O, and FastAPI runs a plain ``def``
dependency in the thread pool, a thread hop per dependency per request.
"""

from __future__ import annotations

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


def players_game(store: GameStore, game_id: str, player: str) -> StoredGame:
    """A game of this player's; any other (unknown, or someone else's) is 404, alike."""
    stored = store.get(game_id) if len(game_id) <= 64 else None
    if stored is None or stored.owner != player:
        raise GameNotFound()
    return stored
