"""The game page and the htmx actions on it (the moves themselves are in :mod:`app.web.routes.moves`).

Every GET renders a whole page. Every action is a POST: an htmx request gets
the blocks it swaps (the table, and out of band the score, the move counter, the
undo button, the status line, the board in words, and the deal's record when a
game ends); a plain form post (no JavaScript) is
answered with a redirect to the page, so every state has a URL that renders
in full: ``/g/<code>`` shows the player's own game of that deal.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

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
from app.web.deps import (
    PagesDep,
    PlayerDep,
    PlayersGameDep,
    StoreDep,
)
from app.web.leaving import remember_left, under_way
from app.web.presentation.daily.days import daily_key, day_of_page, today
from app.web.presentation.game_context import (
    ERROR_HELP_COOKIE,
    GAME_PAGE,
    LARGE_CARDS_COOKIE,
    error_help_on,
    game_context,
    large_cards_on,
    page_url,
)
from app.web.presentation.layouts import LAYOUT_COOKIE, LayoutWord, layout_choices
from app.web.presentation.newgame import (
    MAX_CODE_INPUT,
    WINNABLE_ONLY_COOKIE,
    new_game_form,
    read_code,
    winnable_only_on,
)
from app.web.presentation.render import Pages, is_htmx
from app.web.presentation.variant_words import VARIANTS_COOKIE, TickedVariants, variant_choices
from app.web.presentation.views import Event, Happened
from app.web.solving import hint_for, winnable_code

router = APIRouter()

SETTING_MAX_AGE: Final = 400 * 24 * 3600


def deal_for(store: GameStore, player: str, code: GameCode) -> tuple[StoredGame, StoredGame | None]:
    """The player's own game of this deal (the current game if it is one, else the latest), or a
    fresh deal of it; it becomes the current game. Second: the game this left, if any."""
    current = store.current(player)
    if current is not None and current.game.code == code:
        return current, None
    stored = store.find(player, code)
    if stored is None:
        return store.create(Game(code), player), current
    store.set_current(player, stored.id)
    return stored, current


def page_of_dealt(
    request: Request, pages: Pages, store: GameStore, player: str, stored: StoredGame, left: StoredGame | None
) -> Response:
    """The whole page of the game a link dealt, offering the way back to the one it left."""
    context = game_context(request, pages, store, player, stored)
    if left is not None and left.id != stored.id and under_way(left):  # (the cookie not read back yet)
        context["left_game"] = left
    response = pages.page(GAME_PAGE, context)
    remember_left(response, left, stored)
    return response


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
    stored, left = deal_for(store, player, parsed)
    day = day_of_page(daily_key(request), parsed)
    if day is not None:  # a day's deal: the player's first game of it is their attempt
        store.begin_attempt(day, player, stored, late=day != today())
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
) -> Response:
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
        stored = store.create(Game(parsed), player)
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
        response = pages.blocks(
            GAME_PAGE, ["game", "new_game_form"], context, headers={"HX-Push-Url": page_url(stored.game)}
        )
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


@router.post("/games/{game_id}/restart", name="restart")
def restart(request: Request, pages: PagesDep, players_game: PlayersGameDep) -> Response:
    """Deal the same code again from the start (a new game; the old one is kept)."""
    stored, store, player = players_game.stored, players_game.store, players_game.player
    fresh = store.create(Game(stored.game.code), player)
    return show_new_game(request, pages, store, player, fresh, left=stored)


@router.post("/games/{game_id}/resume", name="resume")
def resume(request: Request, pages: PagesDep, players_game: PlayersGameDep) -> Response:
    """Go back to one of the player's own games (the one a New game or Restart left)."""
    stored, store, player = players_game.stored, players_game.store, players_game.player
    left = store.current(player)
    store.set_current(player, stored.id)
    return show_new_game(request, pages, store, player, stored, left=left, event=Event(Happened.RESUMED))


@router.post("/games/{game_id}/hint", name="hint")
def give_hint(request: Request, pages: PagesDep, players_game: PlayersGameDep) -> Response:
    """Mark one move on a winning line, or say how far back a win still was. Hints are counted."""
    stored, store, player = players_game.stored, players_game.store, players_game.player
    game = stored.game.copy()
    if game.is_over:
        event = Event(Happened.REFUSED, refusal=Refusal.GAME_OVER)
        return pages.blocks(
            GAME_PAGE,
            ["status"],
            game_context(request, pages, store, player, stored, event=event, oob=True, record=False),
            status_code=409,
        )
    advice = hint_for(game)
    # Once no win is left, the move towards the best score still reachable is marked.
    lost = advice.action is None
    move = advice.towards_best if lost else advice.action
    if move is None:
        event = Event(Happened.HINTED, undos=advice.undos_to_winnable, lost=lost)
    elif move.position is None:
        event = Event(Happened.HINTED, hint_draw=True, undos=advice.undos_to_winnable, lost=lost)
    else:
        event = Event(
            Happened.HINTED, card=game.deal.tableau[move.position], undos=advice.undos_to_winnable, lost=lost
        )
    game.count_hint()
    try:
        stored = store.save(stored, game)
    except VersionConflict:
        fresh = store.get(stored.id)
        if fresh is None:  # pragma: no cover - games are not deleted while played
            raise
        stored, event = fresh, None  # type: ignore[assignment]
    marked = move.position if move and event else None
    if not is_htmx(request):
        return pages.page(
            GAME_PAGE, game_context(request, pages, store, player, stored, event=event, hint=marked)
        )
    return pages.blocks(
        GAME_PAGE,
        ("table", "hints", "status"),
        game_context(request, pages, store, player, stored, event=event, oob=True, hint=marked, record=False),
    )


@router.get("/games/{game_id}/outlook", name="outlook")
def outlook(request: Request, pages: PagesDep, players_game: PlayersGameDep) -> Response:
    """What the deal allowed (could it be won, its best score), shown once the game has ended."""
    stored, store, player = players_game.stored, players_game.store, players_game.player
    if stored.game.status is Status.PLAYING:
        raise HTTPException(409, N_("The game is not over yet."))
    context = game_context(request, pages, store, player, stored, record=False)
    return pages.blocks(GAME_PAGE, ["outlook"], context)
