"""The request's language, as a pure ASGI middleware.

:class:`LocaleMiddleware` chooses the language before any route runs (the
``tp_lang`` cookie, else ``Accept-Language``, else English; the JSON API goes by
``Accept-Language`` alone) and makes it the current locale for the whole request,
exception handlers included. The player's choice is remembered by
``POST /settings/language`` (:mod:`app.web.routes.display`).
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import LANGUAGE_COOKIE, choose_language, get_locale, load_all, use_locale
from app.web.middleware.headers import header
from app.web.middleware.player_cookie import read_cookies


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
        locale = get_locale(choose_language(cookie, header(scope, b"accept-language")))
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
