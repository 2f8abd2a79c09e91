"""A game's changes from the routes, the pages' and the JSON API's alike: a move's one path and
a hint's one path. What each answers (the page's blocks, the API's JSON, their refusals) stays
with its route.

A move (:func:`play`): the race's check (a racer's game moves only while its race runs:
:mod:`app.web.race_changes`), then the store's one step (the action on the latest state, timed;
the game saved, then the daily's progress, then the result when the game has just ended:
``GameStore.aupdate``), then the signal to every stream of the race.

A hint (:func:`counted_hint`): the solver's hint for the game as it is, counted with the game's
hints in the same step (the daily's ranking reads that count: an attempt with a hint ranks after
those without), saved only if the game is still the one the hint was made for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from fastapi import Request

from app.engine import Game
from app.engine.search.hints import Hint
from app.store import GameStore, StoredGame, VersionConflict
from app.web.presentation.clock import timed
from app.web.race_changes import check_move, moved
from app.web.solver_worker import hint_for

T = TypeVar("T")


async def play(
    request: Request,
    store: GameStore,
    game_id: str,
    action: Callable[[Game], T],
    *,
    owned_by: str | None = None,
) -> tuple[StoredGame, T] | None:
    """Apply ``action`` to the game as one step of the store and signal the race it is in.

    ``None``: no such game (or not ``owned_by``'s). A refused action (``RefusedAction``,
    ``PositionError``) is raised with nothing saved and nothing signalled; a racer's game
    outside its running race is a 409 before anything is read."""
    race = await check_move(request, store, game_id)
    dealt = None if race is None else race.starts
    updated = await store.aupdate(game_id, timed(action, dealt=dealt), owned_by=owned_by)
    if updated is not None:
        await moved(request, race)
    return updated


def counted_hint(store: GameStore, stored: StoredGame) -> tuple[StoredGame, Hint] | None:
    """The hint for the game as ``stored`` holds it, counted with its hints and saved as the
    next step (the daily's progress follows). ``None`` when the game moved on in between (a
    second tab's move, another client): a hint for a position that is gone is neither
    counted nor given."""
    advice = hint_for(stored.game)
    game = stored.game.copy()
    game.count_hint()
    try:
        return store.save(stored, game), advice
    except VersionConflict:
        return None
