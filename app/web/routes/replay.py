"""Game review: the replay page, its JSON, and the links into it (issue 14).

``GET /replay/<code>/<line>?step=N&reveal=1`` shows the deal after ``N`` actions of
the line (0 is the deal; the default is the line's end), as the player saw it (with
``reveal=1``, every card face up: hindsight), with what the solver says of every step.
A plain request gets the page; an htmx request (``HX-Request: true``, not a history
restore) gets the ``step`` block, and out of band the track of steps and (unless the
slider asked) the slider, with ``HX-Push-Url`` set to the step's own URL.
``/replay/<code>`` is the empty line.

``GET /api/replay/<code>/<line>`` answers the same review as JSON. A bad code, line or
step gets a 400 page or ``{"error", "message", "index"}``; nothing is ever stored.

What other pages show of a review (its URL, the record holder's, the recent games) is in
``app/web/presentation/reviews.py``.
Reviews run the solver: the routes are plain ``def`` (the thread pool), and reviews are
kept per line (:func:`app.engine.search.review.review`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Final

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from app.engine import Action, CodeError, GameCode
from app.engine.line import MAX_ACTIONS, Line, LineError, LineProblem
from app.engine.search.review import Review, deal_difficulty, review
from app.i18n import current_locale
from app.store import GameStore
from app.web.deps import PagesDep, PlayerDep, StoreDep
from app.web.presentation.daily.days import answers_open, daily_key, day_of_page
from app.web.presentation.render import Pages, is_htmx
from app.web.presentation.reviews import difficulty_word, replay_url
from app.web.problems import problem_response
from app.web.solver_worker import analyses

router = APIRouter(tags=["review"])

REPLAY_PAGE: Final = "replay.html"
MAX_LINE_INPUT: Final = 4 * MAX_ACTIONS
"""The longest line text read (200 actions of two digits and a dot is 600 characters)."""


# -- reading a link ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BadLink(Exception):
    """Why a replay link cannot be shown: the API's ``error`` word, the message, the index."""

    error: str
    message: str
    index: int | None = None
    token: str | None = None
    line_text: str = ""


def line_problem_message(error: LineError) -> str:
    words = current_locale()
    values = {"number": error.index + 1, "token": error.token[:20], "most": MAX_ACTIONS}
    if error.problem is LineProblem.UNKNOWN_TOKEN:
        text = words.gettext(
            "Action %(number)s of the line, “%(token)s”, is not an action: write d for a draw"
            " or a position 0 to %(last)s."
        )
        values["last"] = error.positions - 1  # the layout's last position: 27 in three peaks
    elif error.problem is LineProblem.REFUSED:
        why = words.refusal_message(error.refusal) if error.refusal else ""
        text = words.gettext(
            "Action %(number)s of the line, “%(token)s”, is not allowed at that point: %(why)s."
        )
        values["why"] = why
    else:
        text = words.gettext("A line has at most %(most)s actions; this one goes on past action %(most)s.")
    return text % values


def read_link(code: str, line_text: str, step: str | None) -> tuple[Review, int]:
    """The review a link names and the step it shows; raises :class:`BadLink`."""
    words = current_locale()
    try:
        parsed = GameCode.parse(code)
    except CodeError:
        raise BadLink("bad_code", words.code_error(code)) from None
    try:
        line = Line.parse(line_text[: MAX_LINE_INPUT + 1], parsed.layout.count)
        analyses.get(parsed)  # the deal's analysis made in the worker, off this process's GIL
        found = review(parsed, line)
    except LineError as error:
        raise BadLink(
            error.problem.value, line_problem_message(error), error.index, error.token, line_text
        ) from None
    last = len(found.line)
    if step is None:
        return found, last
    if not (step.isascii() and step.isdigit() and len(step) <= 4 and int(step) <= last):
        message = words.gettext("There is no step “%(step)s” in this game: steps run from 0 to %(last)s.")
        raise BadLink("bad_step", message % {"step": step[:20], "last": last})
    return found, int(step)


def reveal_on(value: str | None) -> bool:
    return value == "1"


# -- the page ----------------------------------------------------------------------------------


def action_words(found: Review, action: Action, step: int) -> str:
    """An action at ``step`` in words: "drawing", "removing the 8 of diamonds"."""
    words = current_locale()
    if action.position is None:
        return words.gettext("drawing")
    card = found.steps[step - 1].game.deal.tableau[action.position]
    return words.gettext("removing the %(card)s") % {"card": words.card_words(card)}


def replay_context(request: Request, found: Review, step: int, reveal: bool, **extra: Any) -> dict[str, Any]:
    shown = found.steps[step]

    def url(n: int, revealed: bool = reveal) -> str:
        return replay_url(found.code, found.line, n, revealed)

    return {
        "request": request,
        "review": found,
        "step": shown,
        "game": shown.game,
        "last": len(found.line),
        "reveal": reveal,
        "difficulty": difficulty_word(found.difficulty),
        "point": found.point_of_no_return,
        "url": url,
        "base_url": replay_url(found.code, found.line),
        "action_words": lambda action, n: action_words(found, action, n),
        "share_url": f"{request.base_url}{replay_url(found.code, found.line).lstrip('/')}",
        "oob": False,
        **extra,
    }


def wants_blocks(request: Request) -> bool:
    """An htmx request for the step's blocks (a history restore wants the whole page)."""
    headers = request.headers
    return (
        is_htmx(request)
        and headers.get("hx-history-restore-request") != "true"
        and headers.get("hx-request-type", "partial") != "full"
    )


def bad_link_page(request: Request, pages: Pages, bad: BadLink, status_code: int = 400) -> Response:
    context = {"request": request, "bad": bad, "tokens": bad.line_text.split(".") if bad.line_text else [],
               "oob": False}
    return pages.page("replay_error.html", context, status_code=status_code)


def withheld(request: Request, store: GameStore, player: str, code: GameCode, reveal: bool) -> BadLink | None:
    """Why this review is not served to ``player`` (no spoilers,
    ``app.web.presentation.daily.days``), or ``None``: no review of the day's deal before their
    attempt has ended or the day is over; no hindsight of a deal while their own game of it is
    under way."""
    day = day_of_page(daily_key(request), code)
    if answers_open(store, player, code, day):
        return None
    words = current_locale()
    if day is not None and not store.day_over(day):
        message = words.gettext(
            "The day's deal can be reviewed once your attempt has ended, or once the day is over."
        )
        return BadLink("not_yet", message)
    if reveal:
        message = words.gettext("Hindsight is offered once your game of this deal has ended.")
        return BadLink("not_yet", message)
    return None


@router.get("/replay/{code}", name="replay_deal", include_in_schema=False)
def replay_deal(
    request: Request,
    code: str,
    pages: PagesDep,
    store: StoreDep,
    player: PlayerDep,
    step: Annotated[str | None, Query(max_length=20)] = None,
    reveal: Annotated[str | None, Query(max_length=5)] = None,
) -> Response:
    return replay_page(request, code, "", pages, store, player, step, reveal)


@router.get("/replay/{code}/{line}", name="replay", include_in_schema=False)
def replay_page(
    request: Request,
    code: str,
    line: str,
    pages: PagesDep,
    store: StoreDep,
    player: PlayerDep,
    step: Annotated[str | None, Query(max_length=20)] = None,
    reveal: Annotated[str | None, Query(max_length=5)] = None,
) -> Response:
    try:
        found, shown = read_link(code, line, step)
    except BadLink as bad:
        return bad_link_page(request, pages, bad)
    revealed = reveal_on(reveal)
    refused = withheld(request, store, player, found.code, revealed)
    if refused is not None:
        return bad_link_page(request, pages, refused, status_code=403)
    if found.code.text() != code:  # a lenient code: its canonical link
        asked = shown if step is not None else None
        return RedirectResponse(replay_url(found.code, found.line, asked, revealed), status_code=308)
    hindsight = answers_open(store, player, found.code, day_of_page(daily_key(request), found.code))
    if not wants_blocks(request):
        return pages.page(REPLAY_PAGE, replay_context(request, found, shown, revealed, hindsight=hindsight))
    blocks = ["step", "track"]  # the track out of band
    if request.headers.get("hx-source", "") != "form#slider-form":
        blocks.append("slider")  # out of band too; not while the slider itself is moved
    return pages.blocks(
        REPLAY_PAGE,
        blocks,
        replay_context(request, found, shown, revealed, oob=True, hindsight=hindsight),
        headers={"HX-Push-Url": replay_url(found.code, found.line, shown, revealed)},
    )


# -- JSON --------------------------------------------------------------------------------------


def review_json(found: Review, reveal: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "code": found.code.text(),
        "rules": found.code.rules.word,
        "steps": [
            {
                "step": s.index,
                "action": None if s.action is None else ("d" if s.action.is_draw else str(s.action.position)),
                "winnable": s.winnable,
                "best_score": s.best_score,
                "score": s.game.score,
                "moves": s.game.moves,
            }
            for s in found.steps
        ],
        "point_of_no_return": found.point_of_no_return.step if found.point_of_no_return else None,
        "par": found.par,
        "difficulty": found.difficulty.value,
    }
    if reveal:  # hindsight: the whole deal, face-down cards included
        deal = found.code.deal()
        body["deal"] = {
            "tableau": [c.text() for c in deal.tableau],
            "waste": None if deal.waste is None else deal.waste.text(),
            "stock": [c.text() for c in deal.stock],
        }
    return body


@router.get("/api/replay/{code}", include_in_schema=False)
def api_replay_deal(
    request: Request, code: str, store: StoreDep, player: PlayerDep,
    reveal: Annotated[str | None, Query(max_length=5)] = None,
) -> JSONResponse:
    return api_replay(request, code, "", store, player, reveal)


@router.get("/api/replay/{code}/{line}", tags=["api"])
def api_replay(
    request: Request, code: str, line: str, store: StoreDep, player: PlayerDep,
    reveal: Annotated[str | None, Query(max_length=5)] = None,
) -> JSONResponse:
    """The review of a line on a deal: every step's verdict, the point of no return, par.

    ``line`` is the game's actions joined by ``.`` (a position 0-27, or ``d`` for a draw).
    A bad code or line is a 400 problem (docs/api.md) with its ``error`` (``bad_code``,
    ``bad_line``…) and ``index``, the first bad action's (from 0). The whole deal is given
    only with ``reveal=1``.
    """
    try:
        found, _ = read_link(code, line, None)
    except BadLink as bad:
        return problem_response(400, bad.message, bad.error, index=bad.index)
    refused = withheld(request, store, player, found.code, reveal_on(reveal))
    if refused is not None:
        return problem_response(403, refused.message, refused.error)
    return JSONResponse(review_json(found, reveal_on(reveal)))


# -- ways in -----------------------------------------------------------------------------------


@router.get("/replay-difficulty/{code}", name="deal_difficulty", include_in_schema=False)
def difficulty_fragment(request: Request, code: str, pages: PagesDep) -> Response:
    """The deal's difficulty, for the result box (loaded on its own: it runs the solver)."""
    try:
        parsed = GameCode.parse(code)
    except CodeError:
        return bad_link_page(request, pages, BadLink("bad_code", current_locale().code_error(code)))
    rating = difficulty_word(deal_difficulty(parsed))
    context = {"request": request, "difficulty": rating, "oob": False}
    return pages.blocks("_review_links.html", ["difficulty"], context)


