"""The player's remembered choices of how the game looks and sounds.

* ``GET /display`` and ``POST /display``: the Display page (card back, table, deck). Each choice
  is a cookie; every page then carries them as classes on ``<html>`` (``back-red table-wine
  deck-four``), which ``static/themes.css`` turns into colours. A value the page never offers
  is refused (422, a clear message) and changes nothing.
* ``POST /settings/sound``: sound on or off, the switch in the game page's top bar (an htmx
  request gets the switch back; a plain form post goes back to the page it came from).
* ``POST /settings/language``: the language (``tp_lang``), which
  :class:`~app.web.middleware.language.LocaleMiddleware` then picks for every request; the
  same page is shown again in that language.

Every choice is kept 400 days, like Error help.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app.i18n import LANGUAGE_COOKIE, LANGUAGES, current_locale
from app.web.deps import PagesDep
from app.web.presentation.display_choices import CHOICES, SETTING_MAX_AGE, back_to
from app.web.presentation.render import is_htmx
from app.web.presentation.sound import SOUND_COOKIE, sound_on

router = APIRouter()

DISPLAY_PAGE: Final = "display.html"


def _remember(request: Request, response: Response, cookie: str, value: str) -> Response:
    secure = bool(getattr(request.app.state.settings, "cookie_secure", False))
    response.set_cookie(cookie, value, max_age=SETTING_MAX_AGE, samesite="lax", httponly=True, secure=secure)
    return response


def _context(request: Request, chosen: dict[str, str], **extra: Any) -> dict[str, Any]:
    gettext = current_locale().gettext
    questions = [
        (choice.field, [(value, gettext(name)) for value, name in choice.values], chosen[choice.field])
        for choice in CHOICES
    ]
    return {"request": request, "questions": questions, "oob": False, "saved": False, "error": None, **extra}


@router.get("/display", name="display", include_in_schema=False)
def display_page(request: Request, pages: PagesDep) -> Response:
    chosen = {choice.field: choice.of(request) for choice in CHOICES}
    saved = request.query_params.get("saved") == "1"
    return pages.page(DISPLAY_PAGE, _context(request, chosen, saved=saved))


@router.post("/display", name="choose_display", include_in_schema=False)
def choose_display(
    request: Request,
    pages: PagesDep,
    back: Annotated[str, Form(max_length=20)] = "",
    table: Annotated[str, Form(max_length=20)] = "",
    deck: Annotated[str, Form(max_length=20)] = "",
) -> Response:
    sent = {"back": back, "table": table, "deck": deck}
    if any(sent[choice.field] not in choice.words() for choice in CHOICES):
        chosen = {choice.field: choice.of(request) for choice in CHOICES}
        error = current_locale().gettext("That choice is not one this page offers: nothing was changed.")
        return pages.page(DISPLAY_PAGE, _context(request, chosen, error=error), status_code=422)
    response = RedirectResponse("/display?saved=1", status_code=303)
    for choice in CHOICES:
        _remember(request, response, choice.cookie, sent[choice.field])
    return response


@router.post("/settings/sound", name="toggle_sound", include_in_schema=False)
def toggle_sound(request: Request, pages: PagesDep) -> Response:
    """Sound on or off (on by default); the switch in the game page's top bar."""
    on = not sound_on(request)
    response: Response
    if is_htmx(request):
        response = pages.page("_sound_switch.html", {"request": request, "sound": on, "oob": False})
    else:
        response = RedirectResponse(back_to(request), status_code=303)
    return _remember(request, response, SOUND_COOKIE, "1" if on else "0")


@router.post("/settings/language", name="choose_language")
def set_language(request: Request, lang: Annotated[str, Form(max_length=16)] = "") -> Response:
    """Remember the chosen language (an unknown one is ignored) and show the page again.

    Without JavaScript: a redirect back to the page. With htmx: ``HX-Refresh``, so
    htmx reloads the page it is on (which may be a URL it pushed).
    """
    response: Response
    if request.headers.get("hx-request") == "true":
        response = Response(status_code=200, headers={"HX-Refresh": "true"})
    else:
        response = RedirectResponse(back_to(request), status_code=303)
    if lang in LANGUAGES:
        _remember(request, response, LANGUAGE_COOKIE, lang)
    return response
