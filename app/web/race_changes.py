"""A race's changes, from the routes: the one place that reads a room for a request, asks the
race's rules (:mod:`app.store.races`) whether an action is allowed, stores the change and
signals it to every stream of the race (:mod:`app.web.race_signals`). The pages
(``routes/race_pages.py``), the JSON API (``routes/race_api.py``) and the moves
(``routes/moves.py``, ``routes/api.py``) all come here; a refusal is an ``HTTPException``
whose message the error handler translates."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final, TypeVar, cast

from anyio import to_thread
from fastapi import Depends, HTTPException, Request

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
    refuse_moving,
)
from app.web.problems import Refused
from app.web.race_signals import LocalSignals
from app.web.race_stream import RaceReads, read_race
from app.web.solver_worker import winnable_code

T = TypeVar("T")

REFUSALS: Final = (
    N_("No such race"),
    N_("This race is full: eight racers at most."),
    N_("This race has started: it can no longer be joined."),
    N_("Only the one who made this race can do that."),
    N_("You have five open races already: race in one of them."),
    N_("This race has started already."),
    N_("This race is not finished yet."),
    N_("You left this race: open its page to come back."),
    N_("This race is over."),
    N_("The race has not started yet: wait for the deal."),
)
"""The store's refusals (:mod:`app.store.races`, in English there) as the catalogs know them:
the error handler shows them in the player's language."""


def signals_of(request: Request) -> LocalSignals:
    return cast(LocalSignals, request.app.state.race_signals)


def refusal(error: RaceRefused) -> HTTPException:
    """The answer to a refused race action: 404 unknown, 403 not the maker, 429 too many
    rooms, else 409; the message (translated by the error handler) says why, the race's own
    ``code`` is the API's ``error`` (app/web/problems.py)."""
    if isinstance(error, UnknownRace):
        return Refused(404, str(error), error.code)
    if isinstance(error, NotTheMaker):
        return Refused(403, str(error), error.code)
    if isinstance(error, TooManyRooms):
        return Refused(429, str(error), error.code)
    return Refused(409, str(error), error.code)


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
    race = await cast(RaceReads, request.app.state.race_reads).race_of_game(store, game_id)
    if race is None:
        return None
    try:
        refuse_moving(race, game_id, time.time())
    except RaceRefused as error:
        raise refusal(error) from None
    return race


async def race_running(request: Request, game_id: str) -> None:
    """A dependency for the hints: refused before a race's deal and after its finish, as
    moves are there (:func:`check_move`)."""
    await check_move(request, cast(GameStore, request.app.state.store), game_id)


RaceRunning = Depends(race_running)


async def race_over(request: Request, game_id: str) -> None:
    """A dependency for Restart: a racer's game is dealt again only once its race is over (a
    new game before would leave the race for an ordinary one, unsaid); 409 until then."""
    if not is_race_game_id(game_id):
        return
    store = cast(GameStore, request.app.state.store)
    race = await cast(RaceReads, request.app.state.race_reads).race_of_game(store, game_id)
    if race is not None and race.status(time.time()) is not RaceStatus.FINISHED:
        raise refusal(NotNow("This race is not finished yet.", "race_not_finished"))


RaceOver = Depends(race_over)


async def moved(request: Request, race: Race | None) -> None:
    """After a move on a racer's game: tell every stream of the race."""
    if race is not None:
        await signals_of(request).publish(race.id)


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


async def change_race(request: Request, race_id: str, change: Callable[[], T]) -> T:
    """Store a change of the race (``change``, a store call, in a worker thread: its rule is
    asked there, under the store's lock) and signal it to every stream of the race; a refusal
    is the answer (:func:`refusal`), nothing changed and nothing signalled."""
    try:
        done = await to_thread.run_sync(change)
    except RaceRefused as error:
        raise refusal(error) from None
    await signals_of(request).publish(race_id)
    return done
