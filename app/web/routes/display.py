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

from dataclasses import dataclass
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app.i18n import LANGUAGE_COOKIE, LANGUAGES, N_, current_locale
from app.web.deps import PagesDep
from app.web.middleware.player_cookie import read_cookies
from app.web.presentation.render import is_htmx
from app.web.presentation.sound import SOUND_COOKIE, sound_on

router = APIRouter()

SETTING_MAX_AGE: Final = 400 * 24 * 3600
DISPLAY_PAGE: Final = "display.html"


@dataclass(frozen=True, slots=True)
class Choice:
    """One of the Display page's questions: its cookie and its values (the first, the game's own)."""

    field: str
    cookie: str
    values: tuple[tuple[str, str], ...]
    """(value, its name for the player, to be translated)."""

    def of(self, request: Request | None) -> str:
        kept = read_cookies(request.scope).get(self.cookie) if request is not None else None
        return kept if kept in self.words() else self.values[0][0]

    def words(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.values)


BACK: Final = Choice(
    "back", "tp_back", (("blue", N_("Blue")), ("red", N_("Red")), ("lattice", N_("Lattice")))
)
TABLE: Final = Choice(
    "table", "tp_table", (("green", N_("Green felt")), ("blue", N_("Blue felt")), ("wine", N_("Wine felt")))
)
DECK: Final = Choice(
    "deck",
    "tp_deck",
    (("two", N_("Two colours: red and black")), ("four", N_("Four colours: diamonds blue, clubs green"))),
)
CHOICES: Final = (BACK, TABLE, DECK)
THEME_COLOURS: Final = {"green": "#0b5a33", "blue": "#0c3d63", "wine": "#5c1a2a"}
"""The light felt of each table: the browser's colour for the page (``theme-color``)."""


def display_classes(request: Request | None) -> str:
    """The classes of ``<html>`` for the player's choices: ``back-blue table-green deck-two``."""
    return " ".join(f"{choice.field}-{choice.of(request)}" for choice in CHOICES)


def theme_colour(request: Request | None) -> str:
    return THEME_COLOURS[TABLE.of(request)]


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


def back_to(request: Request) -> str:
    """The page the form was sent from (a path on this site), else the home page."""
    referer = request.headers.get("referer", "")
    try:
        parts = urlsplit(referer)
    except ValueError:
        return "/"
    if parts.netloc != request.url.netloc or not parts.path.startswith("/") or parts.path.startswith("//"):
        return "/"
    if parts.path.startswith("/settings/"):
        return "/"
    return parts.path + (f"?{parts.query}" if parts.query else "")


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
