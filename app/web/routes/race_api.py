"""Races (issue 24): the JSON API, and what the moves ask of a race.

``POST /api/races`` makes a room (for ``{"code"}``, else a random winnable deal), ``…/join``
seats the player (their cookie) with a game of their own, ``…/start`` (the maker only) starts
the 3-2-1 countdown, ``GET /api/races/{id}`` tells the room. A racer's game is an ordinary
game: it is played through the ordinary routes, which ask :func:`check_move` first (a move
before the deal, or after the finish, is a 409) and :func:`moved` after (the signal to every
stream of the race: :mod:`app.web.race_signals`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Final, Literal, cast

from anyio import to_thread
from fastapi import APIRouter, Body, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from app.engine import CodeError, GameCode, Rules
from app.i18n import N_, current_locale
from app.store import GameStore
from app.store.races import (
    NotNow,
    NotTheMaker,
    Race,
    RaceRefused,
    RaceStatus,
    TooManyRooms,
    UnknownRace,
    is_race_game_id,
)
from app.web.deps import PlayerDep, RaceIdPath, StoreDep
from app.web.race_signals import LocalSignals
from app.web.solving import winnable_code

if TYPE_CHECKING:
    from app.store.database.race_async import PostgresRaceReader as RaceReader
    from app.web.race_stream import RaceReads

REFUSALS: Final = (
    N_("No such race"),
    N_("This race is full: eight racers at most."),
    N_("This race has started: it can no longer be joined."),
    N_("Only the one who made this race can do that."),
    N_("You have five open races already: race in one of them."),
    N_("This race has started already."),
    N_("This race is not finished yet."),
)
"""The store's refusals (:mod:`app.store.races`, in English there) as the catalogs know them:
the error handler shows them in the player's language."""
router = APIRouter(prefix="/api", tags=["races"])


def signals_of(request: Request) -> LocalSignals:
    return cast(LocalSignals, request.app.state.race_signals)


def refusal(error: RaceRefused) -> HTTPException:
    """The answer to a refused race action: 404 unknown, 403 not the maker, 429 too many
    rooms, else 409; the message (translated by the error handler) says why."""
    if isinstance(error, UnknownRace):
        return HTTPException(404, str(error))
    if isinstance(error, NotTheMaker):
        return HTTPException(403, str(error))
    if isinstance(error, TooManyRooms):
        return HTTPException(429, str(error))
    return HTTPException(409, str(error))


async def read_race(store: GameStore, race_id: str, reader: RaceReader | None = None) -> Race | None:
    """The room now (through ``reader`` where there is one); a round seen finished for the
    first time is kept as finished."""
    if reader is not None:
        race = await reader.race(race_id)
    else:
        race = await store.aread(lambda: store.race(race_id))
    if race is None:
        return None
    now = time.time()
    finish = race.finish_at(now)
    if race.ended is None and finish is not None and race.status(now) is RaceStatus.FINISHED:
        await to_thread.run_sync(store.settle_race, race_id, finish)
    return race


async def known_race(store: GameStore, race_id: str) -> Race:
    race = await read_race(store, race_id)
    if race is None:
        raise refusal(UnknownRace())
    return race


async def check_move(request: Request, store: GameStore, game_id: str) -> Race | None:
    """Before a move on ``game_id``: its race, if it is a racer's game of a current round;
    409 when that race is not running (before the deal, or after the finish), or when the
    racer left it ("Leave the race"; opening the race's page again brings them back)."""
    if not is_race_game_id(game_id):
        return None
    race = await cast("RaceReads", request.app.state.race_reads).race_of_game(store, game_id)
    if race is None:
        return None
    status = race.status(time.time())
    racer = race.racer_of_game(game_id)
    if status is RaceStatus.RUNNING and racer is not None and racer.left_at is not None:
        raise refusal(NotNow(N_("You left this race: open its page to come back.")))
    if status is RaceStatus.RUNNING:
        return race
    if status is RaceStatus.FINISHED:
        raise refusal(NotNow(N_("This race is over.")))
    raise refusal(NotNow(N_("The race has not started yet: wait for the deal.")))


async def moved(request: Request, race: Race | None) -> None:
    """After a move on a racer's game: tell every stream of the race."""
    if race is not None:
        await signals_of(request).publish(race.id)


# -- the JSON API -------------------------------------------------------------------------------


class NewRace(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str | None = Field(
        default=None, max_length=500, description="The deal to race on; none: a random winnable deal"
    )


class RaceMade(BaseModel):
    id: str
    code: str
    url: str = Field(description="The race's page, to share")
    status: Literal["lobby", "countdown", "running", "finished"]


class Joined(BaseModel):
    game_id: str = Field(description="The racer's own game of the race's deal (/api/games/{game_id})")


class RacerState(BaseModel):
    name: str
    cards_left: int
    score: int
    stock_left: int
    status: Literal["playing", "won", "blocked", "gone"]
    place: int | None = Field(description="Their place once their game ended (everyone's at the finish)")


class RaceState(BaseModel):
    id: str
    code: str
    status: Literal["lobby", "countdown", "running", "finished"]
    racers: list[RacerState]


class Problem(BaseModel):
    detail: str


def race_state(race: Race, now: float) -> RaceState:
    """What anyone with the link may know: counts, never a card."""
    places = race.places(now)
    locale = current_locale()
    return RaceState(
        id=race.id,
        code=race.code,
        status=race.status(now).value,
        racers=[
            RacerState(
                name=racer.name or locale.gettext("Player %(number)s") % {"number": racer.seat + 1},
                cards_left=racer.cards_left,
                score=racer.score,
                stock_left=racer.stock_left,
                status=racer.status(now).value,
                place=places.get(racer.player),
            )
            for racer in race.in_order(now)
        ],
    )


def race_url(race_id: str) -> str:
    return f"/race/{race_id}"


def race_code(code: str | None) -> GameCode:
    """The code asked for (422 for one that is not a code), else a random winnable deal."""
    if code is None:
        return winnable_code(Rules.EASY)
    try:
        return GameCode.parse(code)
    except CodeError:
        raise HTTPException(422, current_locale().code_error(code)) from None


def make_race(store: GameStore, player: str, code: GameCode) -> Race:
    try:
        return store.create_race(code, player)
    except RaceRefused as error:
        raise refusal(error) from None


RESPONSES: Final[dict[int | str, dict[str, object]]] = {
    403: {"model": Problem, "description": "Only the race's maker may do that"},
    404: {"model": Problem, "description": "No such race"},
    409: {"model": Problem, "description": "Not now: the room is full, or the race has started"},
}


@router.post("/races", status_code=201, response_model=RaceMade, responses={422: {}, 429: {}})
async def create_race(
    request: Request, store: StoreDep, player: PlayerDep, body: Annotated[NewRace | None, Body()] = None
) -> RaceMade:
    """Make a race room for a deal (the maker is its first racer); share its ``url``."""
    code = race_code((body or NewRace()).code)
    race = await to_thread.run_sync(make_race, store, player, code)
    return RaceMade(id=race.id, code=race.code, url=race_url(race.id), status=race.status(time.time()).value)


@router.post("/races/{race_id}/join", response_model=Joined, responses=RESPONSES)
async def join_race(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Joined:
    """Join the room (up to eight racers): the racer's game; joining again answers the same."""
    try:
        game_id = await to_thread.run_sync(store.join_race, race_id, player, time.time())
    except RaceRefused as error:
        raise refusal(error) from None
    await signals_of(request).publish(race_id)
    return Joined(game_id=game_id)


@router.post("/races/{race_id}/start", response_model=RaceMade, responses=RESPONSES)
async def start_race(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> RaceMade:
    """The maker starts the race: a 3-2-1 countdown, then every racer's deal at once."""
    try:
        race = await to_thread.run_sync(store.start_race, race_id, player, time.time())
    except RaceRefused as error:
        raise refusal(error) from None
    await signals_of(request).publish(race_id)
    return RaceMade(id=race.id, code=race.code, url=race_url(race.id), status=race.status(time.time()).value)


@router.get("/races/{race_id}", response_model=RaceState, responses={404: {"model": Problem}})
async def get_race(race_id: RaceIdPath, store: StoreDep) -> RaceState:
    """The room: its status and each racer's counts (cards left, score, stock left), their
    status and place. Never a card."""
    return race_state(await known_race(store, race_id), time.time())
