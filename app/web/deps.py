"""Typed dependencies: the store, the page renderer, the player, the player's game.

They are ``async def`` on purpose: they do no I/O, and FastAPI runs a plain ``def``
dependency in the thread pool, a thread hop per dependency per request.

The moves (the app's most frequent requests) take a single dependency each, which reads
everything they need: FastAPI's solving of each further dependency, and of a ``Form``
parameter, costs more than the move itself (measured: one dependency and the form read
here, 140 µs a request; two dependencies and a ``Form`` parameter, 190 to 230 µs).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Annotated, Any, Final, cast
from urllib.parse import parse_qsl

from fastapi import Depends, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from starlette.formparsers import MultiPartException

from app.engine.layout import MOST_POSITIONS
from app.store import GameStore, StoredGame
from app.web.presentation.render import Pages


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


# -- ids from the request's path, checked before any store sees them ------------------------

TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""An id the app makes (``secrets.token_urlsafe``): 1 to 64 URL-safe ASCII characters.
Anything else (a NUL byte, which PostgreSQL's text refuses; other unicode; a path; 4,000
characters) cannot name anything stored."""


def checked_id(text: str, rule: re.Pattern[str] = TOKEN, missing: str = "Not Found") -> str:
    """``text`` if it is whole an id of ``rule``, else a 404 saying ``missing``: an id that
    cannot exist is looked for nowhere, so no database ever sees it."""
    if rule.fullmatch(text) is None:
        raise HTTPException(404, missing)
    return text


def path_id(parameter: str, rule: re.Pattern[str] = TOKEN, missing: str = "Not Found") -> Any:
    """An ``Annotated`` type for the path parameter ``parameter`` that names something stored:
    the text, once it is whole an id of ``rule``; else 404 saying ``missing``, before any
    database is asked. For example::

        RaceIdPath = path_id("race_id", RACE_ID, "No such race")

        @router.get("/races/{race_id}")
        async def race(race_id: RaceIdPath) -> ...

    The parameter keeps its name in the route and in the OpenAPI page (``/docs``).
    """

    async def read(**values: str) -> str:
        return checked_id(values[parameter], rule, missing)

    described = Path(
        description=f"An id: {rule.pattern}; anything else is 404",
        json_schema_extra={"pattern": f"^{rule.pattern}$"},
    )
    read.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(parameter, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[str, described])]
    )
    read.__name__ = f"checked_{parameter}"
    return Annotated[str, Depends(read)]


GAME_ID: Final = TOKEN
GameIdPath = path_id("game_id", GAME_ID, "No such game")
"""A game id from the path: 404 "No such game" for one that cannot exist."""

TABLE_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,40}")
TableIdPath = path_id("table_id", TABLE_ID, "No such table of yours")
"""A table of friends' id from the path (``app.store.tables.new_table_id``)."""
MemberIdPath = path_id("member_id", TABLE_ID, "No such member of this table")
"""A membership's id from the path (``app.store.tables.new_member_id``)."""

RACE_ID: Final = re.compile(r"[A-Za-z0-9_-]{12}")
RaceIdPath = path_id("race_id", RACE_ID, "No such race")
"""A race id from the path (``app.store.races.new_race_id``: 12 characters): 404 "No such
race" for one that cannot exist."""


@dataclass(frozen=True, slots=True)
class PlayersMove:
    """A request to act on the game ``/games/{game_id}/…`` names, by the player asking.

    The game is not loaded here: the store loads it, checks whose it is, changes and saves
    it in one step (:meth:`~app.store.GameStore.aupdate` with ``owned_by``).
    """

    game_id: str
    store: GameStore
    pages: Pages
    player: str


@dataclass(frozen=True, slots=True)
class PlayersRemoval(PlayersMove):
    """A remove: the move, and the tableau position of the card to remove."""

    position: int


@dataclass(frozen=True, slots=True)
class PlayersGame:
    """The game a ``/games/{game_id}/…`` request names, the player's own, and its store."""

    stored: StoredGame
    store: GameStore
    player: str


async def get_players_move(game_id: str, request: Request) -> PlayersMove:
    """The draw and the undo: the game named, its store, the page renderer and the player."""
    if GAME_ID.fullmatch(game_id) is None:
        raise GameNotFound()
    state = request.app.state
    return PlayersMove(game_id, state.store, state.pages, cast(str, request.state.player))


async def get_players_removal(game_id: str, request: Request) -> PlayersRemoval:
    """The remove: as :func:`get_players_move`, with the posted ``position`` (see :func:`form_position`)."""
    move = await get_players_move(game_id, request)
    position = await form_position(request)
    return PlayersRemoval(move.game_id, move.store, move.pages, move.player, position)


POSITION_FIELD: Final = "position"
MAX_FORM_FIELDS: Final = 50
REMOVE_FORM: Final[dict[str, Any]] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "required": [POSITION_FIELD],
                    "properties": {
                        POSITION_FIELD: {
                            "type": "integer",
                            "minimum": 0,
                            "maximum": MOST_POSITIONS - 1,
                            "description": "A tableau position: 0 to 27 (three peaks) or to 29",
                        }
                    },
                }
            }
        },
    }
}
"""The remove's form, for the OpenAPI page (FastAPI cannot see a form read by hand)."""


def bad_position(message: str, value: object = None) -> RequestValidationError:
    shown = value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return RequestValidationError(
        [{"type": "value_error", "loc": ("body", POSITION_FIELD), "msg": message, "input": shown}]
    )


async def form_position(request: Request) -> int:
    """The ``position`` field of the posted form (URL-encoded, as browsers and htmx send it, or
    multipart): one whole number from 0 to 29 (the most positions a layout has), in ASCII
    digits, space around it allowed; a position off the game's layout is refused by the move.
    Anything else is a 422, the answer FastAPI gives for a bad ``Form`` field."""
    content_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    values: list[object]
    try:
        if content_type == "application/x-www-form-urlencoded":
            fields = parse_qsl(
                await request.body(), keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS
            )
            values = [value for name, value in fields if name == POSITION_FIELD.encode()]
        elif content_type == "multipart/form-data":
            form = await request.form(max_fields=MAX_FORM_FIELDS, max_files=0)
            values = list(form.getlist(POSITION_FIELD))
        else:
            values = []
    except (ValueError, MultiPartException) as error:  # too many fields, a broken multipart body
        raise bad_position("The form could not be read") from error
    if not values:
        raise bad_position("Field required")
    if len(values) > 1:
        raise bad_position("Give one position", values)
    value = values[0]
    text = value.strip() if isinstance(value, (str, bytes)) else b""
    if not (0 < len(text) <= 2 and text.isascii() and text.isdigit() and int(text) < MOST_POSITIONS):
        raise bad_position(f"A position is a whole number from 0 to {MOST_POSITIONS - 1}", value)
    return int(text)


async def load_players_game(move: PlayersMove) -> PlayersGame:
    """The named game if it is this player's; any other (unknown, or someone else's) is 404, alike."""
    stored = await move.store.aget(move.game_id)
    if stored is None or stored.owner != move.player:
        raise GameNotFound()
    return PlayersGame(stored, move.store, move.player)


async def get_players_game(game_id: str, request: Request) -> PlayersGame:
    return await load_players_game(await get_players_move(game_id, request))


PlayersMoveDep = Annotated[PlayersMove, Depends(get_players_move)]
PlayersRemovalDep = Annotated[PlayersRemoval, Depends(get_players_removal)]
PlayersGameDep = Annotated[PlayersGame, Depends(get_players_game)]
