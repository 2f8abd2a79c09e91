"""The JSON API, for bots, tests and other front ends (documented at ``/docs``).

A game made here is the player's whose cookie (or personal token, ``Authorization: Bearer``)
the request carries, as a page game is: its result counts in their statistics and its record
names them (issue 38). Made without either, it has no owner. Either way its unguessable id
(128 random bits) is the key to it here. Face-down cards are never in any response (which cards are face up is
the engine's :meth:`Game.face_up_mask`: with open peaks, every card on the board).

Variants (``docs/variants.md``): a game is dealt from a code that carries them
(``{"code": "TP1-EOJ-AAAAAAB"}``) or from ``{"rules": "easy", "variants": ["open_peaks",
"joker"]}``. The state says its ``variants``; the joker reads ``"JK"``; an empty waste
(the empty-waste variant, before the first action) is ``null``.

Layouts (``docs/layouts.md``): a code names its layout (``TP1-EV-AAAAAAB``), or a random
deal takes ``{"layout": "valley"}`` (three peaks when none is given). The state names its
``layout`` and gives each position its ``row`` and ``column`` (half-card units).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from anyio import to_thread
from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from app.engine import (
    STANDARD,
    CodeError,
    Game,
    GameCode,
    PositionError,
    Refusal,
    RefusedAction,
    Rules,
    VariantError,
    Variants,
)
from app.engine.layout import MOST_POSITIONS, layout_named
from app.i18n import current_locale
from app.store import GameStore, StoredGame
from app.store.attempts import AttemptUnfinished
from app.web.deps import GameIdPath, GameNotFound, PlayerDep, StoreDep
from app.web.game_changes import counted_hint, play
from app.web.presentation.daily.days import daily_key, day_of_page
from app.web.presentation.daily.practice import UNFINISHED
from app.web.problems import ProblemResponse, Refused, problem_response
from app.web.race_changes import check_move
from app.web.retries import Answer, IdempotencyKey, answered_once

router = APIRouter(prefix="/api", tags=["api"])

LayoutWord = Literal["three-peaks", "diamonds", "valley", "theatre", "up-down"]


class NewGame(BaseModel):
    """Either a game code to deal (its variant letters included), or a rule set and variants
    for a random deal (easy, standard when neither is given)."""

    model_config = ConfigDict(extra="forbid")
    code: str | None = Field(default=None, max_length=500, examples=["TP1-E-AAAAAAB", "TP1-EOJ-AAAAAAB"])
    rules: Literal["easy", "classic"] | None = None
    variants: list[str] | None = Field(
        default=None,
        max_length=8,
        description="Variants for a random deal: open_peaks, empty_waste, joker, traditional"
        " (or their letters O, W, J, T); none for the standard game",
        examples=[["open_peaks", "joker"]],
    )
    layout: LayoutWord | None = Field(
        default=None,
        description="The layout of a random deal (docs/layouts.md); three-peaks when none is given",
    )
    end_attempt: bool = Field(
        default=False,
        description="With the day's daily deal: end your ranked attempt at it first, as it stands"
        " (it counts as unfinished), so that this game may be dealt as practice",
    )

    @model_validator(mode="after")
    def one_of(self) -> NewGame:
        if self.code is not None and (self.rules, self.variants, self.layout) != (None, None, None):
            raise ValueError(
                "give either 'code', or 'rules', 'layout' and 'variants': a code carries its layout"
                " and its variants"
            )
        return self


def whole_number(value: object) -> object:
    """JSON's integer: ``17`` or ``17.0`` (JSON Schema's integer is any number with no fraction);
    never ``"17"`` nor ``true``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class RemoveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position: Annotated[int, BeforeValidator(whole_number)] = Field(
        ge=0,
        lt=MOST_POSITIONS,
        strict=True,
        description="A tableau position: 0 to 27 in three peaks, 0 to N - 1 in a layout of N cards",
    )


class SlotState(BaseModel):
    position: int
    row: int = Field(description="The position's row, top first (docs/layouts.md)")
    column: int = Field(description="The position's column in half-card units, left first")
    card: str | None = Field(
        description="Text form (AS, 10H; JK the joker) when face up; null when face down or removed"
    )
    face_up: bool
    removed: bool


class GameState(BaseModel):
    id: str
    code: str
    rules: Literal["easy", "classic"]
    layout: LayoutWord = Field(description="The game's layout (docs/layouts.md)")
    variants: list[Literal["open_peaks", "empty_waste", "joker", "traditional"]] = Field(
        description="The game's variants (docs/variants.md), in the order of their letters OWJT"
    )
    tableau: list[SlotState]
    waste: str | None = Field(
        description="The waste card (JK the joker); null while the waste is empty (empty-waste"
        " variant, before the first action: then any exposed card can be removed)"
    )
    stock_count: int
    score: int
    moves: int
    undo_available: int = Field(description="How many actions can be undone")
    status: Literal["playing", "won", "blocked"]
    peaks_cleared: list[bool]
    run: int = Field(
        description="Removals in a row since the last draw (scored only under traditional"
        " scoring, where the next removal scores run + 1)"
    )
    longest_run: int = Field(description="The longest run of removals without a draw so far")
    started_at: float | None = Field(
        description="When the first action was made, in seconds since the epoch; null before it"
    )
    ended_after: float | None = Field(
        description="Once the game is won or blocked: the seconds from its first action to its"
        " end; null while it is played (the clock then shows now minus started_at)"
    )


def game_state(stored: StoredGame) -> GameState:
    game = stored.game
    tableau = []
    shown = game.face_up_mask()
    for p, spot in enumerate(game.layout.spots):
        removed = game.is_removed(p)
        face_up = bool(shown >> p & 1)
        card = game.card_at(p) if face_up else None
        tableau.append(
            SlotState(
                position=p,
                row=spot.row,
                column=spot.column,
                card=card.text() if card else None,
                face_up=face_up,
                removed=removed,
            )
        )
    return GameState(
        id=stored.id,
        code=game.code_text(),
        rules="easy" if game.rules is Rules.EASY else "classic",
        layout=game.layout.word,  # type: ignore[arg-type]
        variants=game.variants.words,  # type: ignore[arg-type]
        tableau=tableau,
        waste=None if game.waste is None else game.waste.text(),
        stock_count=game.stock_count,
        score=game.score,
        moves=game.moves,
        undo_available=game.undo_available,
        status=game.status.value,
        peaks_cleared=list(game.peaks_cleared),
        run=game.run,
        longest_run=game.longest_run,
        started_at=game.started_at,
        ended_after=game.ended_after,
    )


async def api_game(store: GameStore, game_id: str) -> StoredGame:
    stored = await store.aget(game_id)
    if stored is None:
        raise GameNotFound()
    return stored


REFUSAL_RESPONSES: dict[int | str, dict[str, object]] = {
    404: {"description": "No such game"},
    409: {
        "description": "The rules do not allow that action now (the game's refusal: rank_mismatch,"
        " card_blocked, no_card, stock_empty, nothing_to_undo, game_over), or the game's race is not"
        " running (race_not_started, race_over, race_left); nothing changed. With an Idempotency-Key:"
        " the key used for another request on this game (idempotency_key_reused), or its first"
        " request still being answered (idempotency_key_in_use, Retry-After)"
    },
}


def game_refusal(refusal: Refusal) -> ProblemResponse:
    """The game's refusal as a 409 problem, in the client's language (Accept-Language)."""
    return problem_response(409, current_locale().refusal_message(refusal), refusal.value)


async def apply(
    request: Request, store: GameStore, game_id: str, action: Callable[[Game], object]
) -> GameState | JSONResponse:
    """Apply one action to the latest state of the game, as one locked step in the store.

    Two clients acting on one game at once are applied one after the other, never lost.
    """
    try:  # the race's check, the store's step, the signal (app/web/game_changes.py)
        updated = await play(request, store, game_id, action)
    except RefusedAction as refused:
        return game_refusal(refused.refusal)
    except PositionError as error:  # a position of a bigger layout than the game's
        raise Refused(422, str(error), "bad_position") from None
    if updated is None:
        raise GameNotFound()
    return game_state(updated[0])


@router.post(
    "/games",
    status_code=201,
    response_model=GameState,
    responses={
        409: {"description": "Your ranked attempt at the day's deal is under way (attempt_unfinished)"},
        422: {"description": "A bad code (bad_code) or variant (bad_variant), or a body the API cannot read"},
    },
)
def create_game(
    request: Request, store: StoreDep, player: PlayerDep, body: Annotated[NewGame | None, Body()] = None
) -> GameState | JSONResponse:
    """Deal a game: a given code, or a random deal of the given rules and variants.

    A request with the player's cookie (or personal token) makes the player's game, as a
    page does: it becomes their current game and counts in their statistics.

    The day's daily deal (its code, ``GET /api/daily``) begins the player's ranked attempt,
    as the page does, when it is their first game of it that day (the player is the one of
    the cookie this request carries); a later one is practice. While that attempt is under
    way, another game of the deal is a 409 problem with ``"error": "attempt_unfinished"``
    (nothing dealt), unless ``end_attempt`` ends the attempt first.

    A bad code, or a word in ``variants`` that names no variant, is a 422 saying why;
    nothing is stored."""
    body = body or NewGame()
    if body.code is not None:
        try:
            code = GameCode.parse(body.code)
        except CodeError:
            raise Refused(422, current_locale().code_error(body.code), "bad_code") from None
    else:
        try:
            variants = Variants.from_words(body.variants) if body.variants else STANDARD
        except VariantError as error:
            raise Refused(422, str(error), "bad_variant") from None
        layout = layout_named(body.layout or "three-peaks")
        code = GameCode.random(Rules.from_word(body.rules or "easy"), variants, layout)
    day = day_of_page(daily_key(request), code)
    if day is not None and body.end_attempt:
        store.end_attempt(day, player)
    owner = player if request.state.player_known else None
    try:  # the store makes the day's deal the cookie player's attempt if it is their first
        stored = store.create(Game(code), owner, player=player)
    except AttemptUnfinished:
        return problem_response(409, current_locale().gettext(UNFINISHED), "attempt_unfinished")
    return game_state(stored)


@router.get("/games/{game_id}", response_model=GameState, responses={404: {"description": "No such game"}})
async def get_game(game_id: GameIdPath, store: StoreDep) -> GameState:
    return game_state(await api_game(store, game_id))


@router.post("/games/{game_id}/remove", response_model=GameState, responses=REFUSAL_RESPONSES)
async def remove(
    request: Request, game_id: GameIdPath, body: RemoveBody, store: StoreDep, key: IdempotencyKey = None
) -> Answer:
    """Move the exposed card at ``position`` onto the waste."""
    act = lambda: apply(request, store, game_id, lambda game: game.remove(body.position))  # noqa: E731
    return await answered_once(request, store, game_id, key, act)


@router.post("/games/{game_id}/draw", response_model=GameState, responses=REFUSAL_RESPONSES)
async def draw(request: Request, game_id: GameIdPath, store: StoreDep, key: IdempotencyKey = None) -> Answer:
    """Turn the top stock card onto the waste."""
    act = lambda: apply(request, store, game_id, lambda game: game.draw())  # noqa: E731
    return await answered_once(request, store, game_id, key, act)


@router.post("/games/{game_id}/undo", response_model=GameState, responses=REFUSAL_RESPONSES)
async def undo(request: Request, game_id: GameIdPath, store: StoreDep, key: IdempotencyKey = None) -> Answer:
    """Take back the latest removal or draw."""
    act = lambda: apply(request, store, game_id, lambda game: game.undo())  # noqa: E731
    return await answered_once(request, store, game_id, key, act)


class HintOut(BaseModel):
    action: Literal["remove", "draw", "undo"] | None = Field(
        description="remove the card at `position`, draw, or undo `undos` times to a position"
        " that can still be won; null: no line wins this deal"
    )
    position: int | None = None
    undos: int | None = None


@router.post("/games/{game_id}/hint", response_model=HintOut, responses=REFUSAL_RESPONSES)
async def give_hint(
    request: Request, game_id: GameIdPath, store: StoreDep, key: IdempotencyKey = None
) -> Answer:
    """A hint (counted: with an ``Idempotency-Key``, a retry is answered and counted once),
    as the page's Hint gives one to a player: an action on a winning line (towards
    the best score), or how many undos lead back to a position that can be won. Counted
    with the game's hints, as the page's are (a daily attempt with a hint ranks after
    those without). A racer's game gets none before the deal or after the finish: the
    409 a move gets there."""
    return await answered_once(request, store, game_id, key, lambda: hint(request, store, game_id))


async def hint(request: Request, store: GameStore, game_id: str) -> HintOut | JSONResponse:
    await check_move(request, store, game_id)  # a racer's game: 409 unless the race runs
    while True:  # the page's one path: a hint for the game as it is, counted in the same step
        stored = await api_game(store, game_id)
        if stored.game.is_over:
            return game_refusal(Refusal.GAME_OVER)
        counted = await to_thread.run_sync(counted_hint, store, stored)
        if counted is not None:  # else the game moved on in between: the hint is made again
            advice = counted[1]
            break
    if advice.action is not None:
        if advice.action.position is None:
            return HintOut(action="draw")
        return HintOut(action="remove", position=advice.action.position)
    if advice.undos_to_winnable:
        return HintOut(action="undo", undos=advice.undos_to_winnable)
    return HintOut(action=None)
