"""How to play: ``GET /how-to-play``, and the line that offers it on a first visit.

Every page offers the rules (``templates/_howto_offer.html``) until the player has read
them or said no thanks (``POST /settings/how-to-play``); either sets the ``tp_howto``
cookie. No JavaScript is involved: with htmx the line is swapped out, without it the
form's post comes back to the page it was sent from.
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.engine.deal import Deal
from app.engine.game import UNDO_LIMIT
from app.engine.layout import THREE_PEAKS
from app.engine.rules import BEST_SCORE, MOVE_COST, PEAK_BONUS, START_SCORE
from app.web.deps import PagesDep
from app.web.presentation.display_choices import back_to
from app.web.presentation.layouts_on_page import layout_choices
from app.web.presentation.render import is_htmx

router = APIRouter(tags=["pages"])

HOWTO_COOKIE: Final = "tp_howto"
_MAX_AGE: Final = 400 * 24 * 3600

_STOCK: Final = Deal.from_number(0).stock_size
SCORING: Final = {
    "start": START_SCORE,
    "move_cost": MOVE_COST,
    "peak_bonus": PEAK_BONUS,
    "all_peaks": PEAK_BONUS * THREE_PEAKS.peak_count,
    "best": BEST_SCORE,
    "cards": THREE_PEAKS.count,
    "stock": _STOCK,
    "all_drawn": BEST_SCORE - MOVE_COST * _STOCK,
    "undo_limit": UNDO_LIMIT,
}
"""The help page's numbers, from the rules (``app/engine/rules.py``, the three peaks' layout, the
standard deal's stock and the game's undo limit), never written by hand in the page."""


def _remember(request: Request, response: Response) -> None:
    """Set the cookie that stops the offer (once: a page view that has it sets nothing)."""
    if request.cookies.get(HOWTO_COOKIE) is None:
        secure = bool(getattr(request.app.state.settings, "cookie_secure", False))
        response.set_cookie(
            HOWTO_COOKIE, "1", max_age=_MAX_AGE, samesite="lax", httponly=True, secure=secure
        )


@router.get("/how-to-play", name="how_to_play", include_in_schema=False)
def how_to_play(request: Request, pages: PagesDep) -> Response:
    context = {
        "request": request, "howto_page": True, "oob": False, "layouts": layout_choices(THREE_PEAKS),
        "scoring": SCORING,
    }
    response = pages.page("howto.html", context)
    _remember(request, response)
    return response


@router.post("/settings/how-to-play", name="dismiss_how_to_play", include_in_schema=False)
def dismiss_how_to_play(request: Request) -> Response:
    """No thanks: stop offering the rules. htmx swaps the line for nothing."""
    response: Response
    if is_htmx(request):
        response = Response(status_code=200, media_type="text/html")
    else:
        response = RedirectResponse(back_to(request), status_code=303)
    _remember(request, response)
    return response
