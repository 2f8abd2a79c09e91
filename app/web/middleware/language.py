"""The request's language: a pure ASGI middleware picks it, a small form changes it.

:class:`LocaleMiddleware` chooses the language before any route runs (the
``tp_lang`` cookie, else ``Accept-Language``, else English; the JSON API goes by
``Accept-Language`` alone) and makes it the current locale for the whole request,
exception handlers included. ``POST /settings/language`` remembers the player's
choice in the cookie and shows the same page again in that language.
"""

from __future__ import annotations

from typing import Annotated, Final
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import LANGUAGE_COOKIE, LANGUAGES, choose_language, get_locale, load_all, use_locale
from app.web.middleware.player_cookie import read_cookies

router = APIRouter()

_MAX_AGE: Final = 400 * 24 * 3600


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == wanted:
            return bytes(value).decode("latin-1")
    return None


class LocaleMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        load_all()  # compile and load every catalog now: a broken one fails at start

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/static/"):
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")
        cookie = None if api else read_cookies(scope).get(LANGUAGE_COOKIE)
        locale = get_locale(choose_language(cookie, _header(scope, b"accept-language")))
        scope.setdefault("state", {})["locale"] = locale

        async def send_varying(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.add_vary_header("Accept-Language")
                if not api:
                    headers.add_vary_header("Cookie")
            await send(message)

        with use_locale(locale):
            await self.app(scope, receive, send_varying)


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
        secure = bool(getattr(request.app.state.settings, "cookie_secure", False))
        response.set_cookie(
            LANGUAGE_COOKIE, lang, max_age=_MAX_AGE, samesite="lax", httponly=True, secure=secure
        )
    return response
