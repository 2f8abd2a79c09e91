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

from app.engine.layout import THREE_PEAKS
from app.web.deps import PagesDep
from app.web.presentation.layouts import layout_choices
from app.web.presentation.render import is_htmx
from app.web.routes.display import back_to

router = APIRouter(tags=["pages"])

HOWTO_COOKIE: Final = "tp_howto"
_MAX_AGE: Final = 400 * 24 * 3600


def _remember(request: Request, response: Response) -> None:
    """Set the cookie that stops the offer (once: a page view that has it sets nothing)."""
    if request.cookies.get(HOWTO_COOKIE) is None:
        secure = bool(getattr(request.app.state.settings, "cookie_secure", False))
        response.set_cookie(
            HOWTO_COOKIE, "1", max_age=_MAX_AGE, samesite="lax", httponly=True, secure=secure
        )


@router.get("/how-to-play", name="how_to_play", include_in_schema=False)
def how_to_play(request: Request, pages: PagesDep) -> Response:
    context = {"request": request, "howto_page": True, "oob": False, "layouts": layout_choices(THREE_PEAKS)}
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
