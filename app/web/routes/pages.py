"""The game page and the htmx actions on it (the moves themselves are in :mod:`app.web.routes.moves`).

Every GET renders a whole page. Every action is a POST: an htmx request gets
the blocks it swaps (the table, and out of band the score, the move counter, the
undo button, the status line, the board in words, and the deal's record when a
game ends); a plain form post (no JavaScript) is
answered with a redirect to the page, so every state has a URL that renders
in full: ``/g/<code>`` shows the player's own game of that deal.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from app.engine import (
    CodeError,
    Game,
    GameCode,
    Refusal,
    Rules,
    Status,
)
from app.engine.layout import LAYOUTS
from app.engine.search.review import Difficulty
from app.i18n import N_, current_locale
from app.store import GameStore, StoredGame, VersionConflict
from app.store.attempts import AttemptUnfinished
from app.web.deps import (
    PagesDep,
    PlayerDep,
    PlayersGameDep,
    StoreDep,
)
from app.web.game_changes import counted_hint
from app.web.leaving import deal_for, remember_left, under_way
from app.web.presentation.daily.days import daily_key, day_of_page
from app.web.presentation.daily.practice import attempt_choice
from app.web.presentation.display_choices import SETTING_MAX_AGE
from app.web.presentation.game_context import (
    ERROR_HELP_COOKIE,
    GAME_PAGE,
    LARGE_CARDS_COOKIE,
    error_help_on,
    game_context,
    large_cards_on,
    page_of_dealt,
    page_url,
)
from app.web.presentation.layouts_on_page import LAYOUT_COOKIE, LayoutWord, layout_choices
from app.web.presentation.newgame import (
    MAX_CODE_INPUT,
    WINNABLE_ONLY_COOKIE,
    new_game_form,
    read_code,
    winnable_only_on,
)
from app.web.presentation.render import Pages, is_htmx
from app.web.presentation.variants_on_page import VARIANTS_COOKIE, TickedVariants, variant_choices
from app.web.presentation.views import Event, Happened
from app.web.race_changes import RaceOver, RaceRunning
from app.web.solver_worker import winnable_code

router = APIRouter()


# -- pages ---------------------------------------------------------------------------------


@router.get("/", name="home")
def home(store: StoreDep, player: PlayerDep) -> Response:
    stored = store.current(player) or store.create(Game(GameCode.random()), player)
    return RedirectResponse(page_url(stored.game), status_code=303)


@router.get("/g/{code}", name="deal_page")
def deal_page(
    request: Request, code: str, store: StoreDep, pages: PagesDep, player: PlayerDep
) -> Response:
    try:
        parsed = GameCode.parse(code)
    except CodeError:
        return pages.page(
            "new.html",
            new_game_context(
                request, new_game_form(request, code_input=code, code_error=current_locale().code_error(code))
            ),
            status_code=400,
        )
    if parsed.text() != code:
        return RedirectResponse(f"/g/{parsed.text()}", status_code=308)
    try:  # a day's deal: the store makes the player's first game of it their attempt
        stored, left = deal_for(store, player, parsed)
    except AttemptUnfinished as refused:  # under way in a game not theirs to show (the API's)
        return attempt_choice(request, pages, store, player, refused, f"/daily/{refused.day.isoformat()}")
    return page_of_dealt(request, pages, store, player, stored, left)


@router.get("/new", name="new_game_page")
def new_game_page(request: Request, pages: PagesDep) -> Response:
    return pages.page(
        "new.html",
        new_game_context(request, new_game_form(request, winnable_only=winnable_only_on(request))),
    )


def new_game_context(
    request: Request, form: dict[str, Any], *, difficulty: str = ""
) -> dict[str, Any]:
    """The New game window as a page of its own (``new.html``), or its form sent back refused;
    ``form``: :func:`~app.web.presentation.newgame.new_game_form`'s."""
    return {
        "request": request,
        **form,
        "chosen_difficulty": difficulty,
        "oob": False,
        "standalone": not is_htmx(request),
    }


@router.post("/new", name="new_game")
def new_game(
    request: Request,
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
    variants: TickedVariants,
    rules_word: Annotated[Literal["easy", "classic"], Form(alias="rules")] = "easy",
    code: Annotated[str, Form(max_length=MAX_CODE_INPUT)] = "",
    winnable_only: Annotated[bool, Form()] = False,
    difficulty: Annotated[Literal["", "easy", "medium", "hard", "expert"], Form()] = "",
    layout_word: Annotated[LayoutWord, Form(alias="layout")] = "three-peaks",
    end_attempt: Annotated[bool, Form()] = False,
) -> Response:
    """A game of the code typed, else a random deal of the choices made. The day's deal while
    the player's ranked attempt at it is under way: the choice to end it first (or keep
    playing it; :func:`~app.web.presentation.daily.practice.attempt_choice`)."""
    rules = Rules.from_word(rules_word)
    layout = LAYOUTS[layout_word]
    left = store.current(player)

    def refused(code_error: str) -> Response:
        form = new_game_form(
            request, code_input=code, code_error=code_error, rules=rules,
            winnable_only=winnable_only, variants=variants, layout=layout,
        )
        context = new_game_context(request, form, difficulty=difficulty)
        if is_htmx(request):
            return pages.blocks(
                GAME_PAGE,
                ["new_game_form"],
                context,
                status_code=400,
                headers={"HX-Retarget": "#new-game-form", "HX-Reswap": "outerHTML"},
            )
        return pages.page("new.html", context, status_code=400)

    if code.strip():
        try:
            parsed = read_code(code)
        except CodeError:
            return refused(code_error=current_locale().code_error(code))
        try:
            stored = deal_code(request, store, player, parsed, end_attempt=end_attempt)
        except AttemptUnfinished as unfinished:
            fields = [
                ("code", code), ("rules", rules_word), ("difficulty", difficulty), ("layout", layout_word),
                *(("variants", word) for word in variants.words),
                *((("winnable_only", "true"),) if winnable_only else ()),
            ]  # fmt: skip
            return attempt_choice(request, pages, store, player, unfinished, "/new", fields)
    else:
        if winnable_only:  # of the difficulty asked for, if one was
            dealt = winnable_code(rules, Difficulty(difficulty) if difficulty else None, variants, layout)
        else:
            dealt = GameCode.random(rules, variants, layout)
        stored = store.create(Game(dealt), player)
    response = show_new_game(
        request, pages, store, player, stored, left=left,
        form={
            "winnable_only": winnable_only,
            "variant_choices": variant_choices(variants),
            "layout_choices": layout_choices(layout),
        },
    )
    remembered = (
        (WINNABLE_ONLY_COOKIE, "1" if winnable_only else "0"),
        (VARIANTS_COOKIE, variants.letters),
        (LAYOUT_COOKIE, layout.word),
    )
    for name, value in remembered:
        response.set_cookie(name, value, max_age=SETTING_MAX_AGE, samesite="lax", httponly=True)
    return response


def show_new_game(
    request: Request,
    pages: Pages,
    store: GameStore,
    player: str,
    stored: StoredGame,
    *,
    left: StoredGame | None = None,
    event: Event | None = None,
    form: dict[str, Any] | None = None,
) -> Response:
    """The new current game. ``left``: the game it replaces; while that one was under way, the
    page offers a way back to it (New game and Restart ask nothing, and lose nothing;
    :mod:`app.web.leaving`). ``form``: the New game window's choices just made (its cookies
    are not read back yet)."""
    response: Response
    if not is_htmx(request):
        response = RedirectResponse(page_url(stored.game), status_code=303)
    else:
        way_back = left if left is not None and left.id != stored.id and under_way(left) else None
        # The game swaps in whole; the New game window's form comes back fresh (out of band).
        context = game_context(
            request, pages, store, player, stored,
            event=event or Event(Happened.DEALT), form_oob=True, **(form or {}),
        )
        if way_back is not None:
            context["left_game"] = way_back
        blocks = ["game", "new_game_form", "skip"]
        response = pages.blocks(GAME_PAGE, blocks, context, headers={"HX-Push-Url": page_url(stored.game)})
    remember_left(response, left, stored)
    return response


@router.post("/settings/error-help", name="toggle_error_help")
def toggle_error_help(request: Request, pages: PagesDep) -> Response:
    return _toggle(request, pages, ERROR_HELP_COOKIE, "error_help", on=not error_help_on(request))


@router.post("/settings/large-cards", name="toggle_large_cards")
def toggle_large_cards(request: Request, pages: PagesDep) -> Response:
    """Taller cards where the screen's height allows (phones held upright); remembered."""
    return _toggle(request, pages, LARGE_CARDS_COOKIE, "large_cards", on=not large_cards_on(request))


def _toggle(request: Request, pages: Pages, cookie: str, block: str, *, on: bool) -> Response:
    """Flip a remembered switch of the game page: an htmx request gets the switch back."""
    if is_htmx(request):
        response: Response = pages.blocks(GAME_PAGE, [block], {"request": request, block: on, "oob": False})
    else:
        response = RedirectResponse("/", status_code=303)
    response.set_cookie(cookie, "1" if on else "0", max_age=SETTING_MAX_AGE, samesite="lax", httponly=True)
    return response


# -- actions -------------------------------------------------------------------------------


@router.post("/games/{game_id}/restart", name="restart", dependencies=[RaceOver])
def restart(
    request: Request,
    pages: PagesDep,
    players_game: PlayersGameDep,
    end_attempt: Annotated[bool, Form()] = False,
) -> Response:
    """Deal the same code again from the start (a new game; the old one is kept). The day's
    deal while the ranked attempt is under way: the choice to end it first, or keep playing."""
    stored, store, player = players_game.stored, players_game.store, players_game.player
    try:
        fresh = deal_code(request, store, player, stored.game.code, end_attempt=end_attempt)
    except AttemptUnfinished as unfinished:
        return attempt_choice(request, pages, store, player, unfinished, f"/games/{stored.id}/restart")
    return show_new_game(request, pages, store, player, fresh, left=stored)


def deal_code(
    request: Request, store: GameStore, player: str, code: GameCode, *, end_attempt: bool
) -> StoredGame:
    """A new game of ``code`` for the player (:meth:`GameStore.create`). With ``end_attempt``,
    their ranked attempt at the day's deal is ended first, when ``code`` is that deal."""
    if end_attempt:
        day = day_of_page(daily_key(request), code)
        if day is not None:
            store.end_attempt(day, player)
    return store.create(Game(code), player)


@router.post("/games/{game_id}/resume", name="resume")
def resume(request: Request, pages: PagesDep, players_game: PlayersGameDep) -> Response:
    """Go back to one of the player's own games (the one a New game or Restart left)."""
    stored, store, player = players_game.stored, players_game.store, players_game.player
    left = store.current(player)
    store.set_current(player, stored.id)
    return show_new_game(request, pages, store, player, stored, left=left, event=Event(Happened.RESUMED))


@router.post("/games/{game_id}/hint", name="hint", dependencies=[RaceRunning])
def give_hint(request: Request, pages: PagesDep, players_game: PlayersGameDep) -> Response:
    """Mark one move on a winning line, or say how far back a win still was. Hints are counted."""
    stored, store, player = players_game.stored, players_game.store, players_game.player
    game = stored.game
    if game.is_over:
        event = Event(Happened.REFUSED, refusal=Refusal.GAME_OVER)
        return pages.blocks(
            GAME_PAGE,
            ["status"],
            game_context(request, pages, store, player, stored, event=event, oob=True, record=False),
            status_code=409,
        )
    counted = counted_hint(store, stored)
    if counted is None:  # the game moved on in between: shown as it is now, no hint
        fresh = store.get(stored.id)
        if fresh is None:  # pragma: no cover - games are not deleted while played
            raise VersionConflict(stored.id)
        stored, shown, marked = fresh, None, None
    else:
        stored, advice = counted
        # Once no win is left, the move towards the best score still reachable is marked.
        lost = advice.action is None
        move = advice.towards_best if lost else advice.action
        if move is None:
            event = Event(Happened.HINTED, undos=advice.undos_to_winnable, lost=lost)
        elif move.position is None:
            event = Event(Happened.HINTED, hint_draw=True, undos=advice.undos_to_winnable, lost=lost)
        else:
            card = game.deal.tableau[move.position]
            event = Event(Happened.HINTED, card=card, undos=advice.undos_to_winnable, lost=lost)
        marked = move.position if move else None
        shown = event
    if not is_htmx(request):
        return pages.page(
            GAME_PAGE, game_context(request, pages, store, player, stored, event=shown, hint=marked)
        )
    return pages.blocks(
        GAME_PAGE,
        ("table", "hints", "status"),
        game_context(request, pages, store, player, stored, event=shown, oob=True, hint=marked, record=False),
    )


@router.get("/games/{game_id}/outlook", name="outlook")
def outlook(request: Request, pages: PagesDep, players_game: PlayersGameDep) -> Response:
    """What the deal allowed (could it be won, its best score), shown once the game has ended."""
    stored, store, player = players_game.stored, players_game.store, players_game.player
    if stored.game.status is Status.PLAYING:
        raise HTTPException(409, N_("The game is not over yet."))
    context = game_context(request, pages, store, player, stored, record=False)
    return pages.blocks(GAME_PAGE, ["outlook"], context)
