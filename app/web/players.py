"""Who is playing: a random player id in a signed, HttpOnly, SameSite=Lax cookie.

A pure ASGI middleware reads the cookie before the route runs and puts the
player id in ``scope["state"]["player"]`` (and whether it came from a valid cookie in
``scope["state"]["player_known"]``); a missing, forged, truncated or stale cookie gives a
new player id, which is set on the response.

Cookies are ``Secure`` when the request was made over https (``scope["scheme"]``; behind
a TLS-terminating proxy that is the forwarded scheme, see ``TRIPEAKS_TRUST_PROXY``) or
when ``secure`` is set: then every cookie the response sets (the player's, and those the
routes set) is marked ``Secure``.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from http.cookies import SimpleCookie
from typing import Final

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PLAYER_COOKIE: Final = "tp_player"
_MAX_AGE: Final = 400 * 24 * 3600


def read_cookies(scope: Scope) -> Mapping[str, str]:
    """The request's cookies, read once a request (the language, the player and the error help
    switch all want them) and kept in the scope's state."""
    state = scope.setdefault("state", {})
    cookies: Mapping[str, str] | None = state.get(_COOKIES)
    if cookies is None:
        cookies = state[_COOKIES] = _parse_cookies(scope)
    return cookies


_COOKIES: Final = "tripeaks_cookies"


def _parse_cookies(scope: Scope) -> Mapping[str, str]:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a garbled header is as good as none
                return {}
            return {key: morsel.value for key, morsel in jar.items()}
    return {}


class PlayerCookieMiddleware:
    def __init__(self, app: ASGIApp, *, secret: str, secure: bool = False) -> None:
        self.app = app
        self.signer = URLSafeSerializer(secret, salt="tripeaks.player")
        self.secure = secure

    def player_from(self, token: str | None) -> str | None:
        if not token or len(token) > 200:
            return None
        try:
            player = self.signer.loads(token)
        except (BadSignature, UnicodeDecodeError, ValueError):
            return None
        return player if isinstance(player, str) and 16 <= len(player) <= 64 else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/static/"):
            await self.app(scope, receive, send)
            return
        player = self.player_from(read_cookies(scope).get(PLAYER_COOKIE))
        fresh = player is None
        if player is None:
            player = secrets.token_urlsafe(16)
        state = scope.setdefault("state", {})
        state["player"], state["player_known"] = player, not fresh
        secure = self.secure or scope.get("scheme") == "https"

        if not fresh and not secure:
            await self.app(scope, receive, send)
            return

        cookie = (
            f"{PLAYER_COOKIE}={self.signer.dumps(player)}; Path=/; Max-Age={_MAX_AGE}; "
            "HttpOnly; SameSite=Lax" + ("; Secure" if secure else "")
            if fresh
            else ""
        )

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if secure:
                    mark_secure(headers)
                if fresh:
                    headers.append("set-cookie", cookie)
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def mark_secure(headers: MutableHeaders) -> None:
    """Add ``Secure`` to every ``Set-Cookie`` that lacks it."""
    cookies = headers.getlist("set-cookie")
    if not cookies:
        return
    del headers["set-cookie"]
    for cookie in cookies:
        flags = {part.strip().lower() for part in cookie.split(";")[1:]}
        headers.append("set-cookie", cookie if "secure" in flags else cookie + "; Secure")
