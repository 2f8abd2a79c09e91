"""The player's remembered choices of how the game looks and sounds: ``POST /settings/sound``.

Each is a cookie (400 days, like Error help). An htmx request gets its switch back, swapped in
place; a plain form post goes back to the page it came from.
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.web.deps import PagesDep
from app.web.language import back_to
from app.web.render import is_htmx
from app.web.sound import SOUND_COOKIE, sound_on

router = APIRouter(include_in_schema=False)

SETTING_MAX_AGE: Final = 400 * 24 * 3600


def _remember(request: Request, response: Response, cookie: str, value: str) -> Response:
    secure = bool(getattr(request.app.state.settings, "cookie_secure", False))
    response.set_cookie(cookie, value, max_age=SETTING_MAX_AGE, samesite="lax", httponly=True, secure=secure)
    return response


@router.post("/settings/sound", name="toggle_sound")
def toggle_sound(request: Request, pages: PagesDep) -> Response:
    """Sound on or off (on by default); the switch in the game page's top bar."""
    on = not sound_on(request)
    response: Response
    if is_htmx(request):
        response = pages.page("_sound_switch.html", {"request": request, "sound": on, "oob": False})
    else:
        response = RedirectResponse(back_to(request), status_code=303)
    return _remember(request, response, SOUND_COOKIE, "1" if on else "0")
