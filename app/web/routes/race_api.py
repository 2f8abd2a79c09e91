"""Races (issue 24): the JSON API.

``POST /api/races`` makes a room (for ``{"code"}``, else a random winnable deal), ``…/join``
seats the player (their cookie) with a game of their own, ``…/start`` (the maker only) starts
the 3-2-1 countdown, ``GET /api/races/{id}`` tells the room. A racer's game is an ordinary
game: it is played through the ordinary routes. What the routes ask of a race (the rules'
checks, the store's change, the signal to every stream) is :mod:`app.web.race_changes`.
"""

from __future__ import annotations

import time
from typing import Annotated, Final, Literal

from anyio import to_thread
from fastapi import APIRouter, Body, Request
from pydantic import BaseModel, ConfigDict, Field

from app.i18n import current_locale
from app.store.races import (
    Race,
)
from app.web.deps import PlayerDep, RaceIdPath, StoreDep
from app.web.race_changes import change_race, known_race, make_race, race_code

router = APIRouter(prefix="/api", tags=["races"])


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
    hints: int = Field(description="Hints their game has used")
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
                hints=racer.hints,
                place=places.get(racer.player),
            )
            for racer in race.in_order(now)
        ],
    )


def race_url(race_id: str) -> str:
    return f"/race/{race_id}"


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
    game_id = await change_race(request, race_id, lambda: store.join_race(race_id, player, time.time()))
    return Joined(game_id=game_id)


@router.post("/races/{race_id}/start", response_model=RaceMade, responses=RESPONSES)
async def start_race(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> RaceMade:
    """The maker starts the race: a 3-2-1 countdown, then every racer's deal at once."""
    race = await change_race(request, race_id, lambda: store.start_race(race_id, player, time.time()))
    return RaceMade(id=race.id, code=race.code, url=race_url(race.id), status=race.status(time.time()).value)


@router.get("/races/{race_id}", response_model=RaceState, responses={404: {"model": Problem}})
async def get_race(race_id: RaceIdPath, store: StoreDep) -> RaceState:
    """The room: its status and each racer's counts (cards left, score, stock left), their
    status and place. Never a card."""
    return race_state(await known_race(store, race_id), time.time())
