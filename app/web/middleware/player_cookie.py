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
from typing import Final

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PLAYER_COOKIE: Final = "tp_player"
NO_PLAYER_PATHS: Final = frozenset(
    {"/healthz", "/readyz", "/metrics", "/manifest.webmanifest", "/sw.js", "/offline"}
)
"""For monitors and scrapers, and the installed app's own files: no player made, no cookie set."""
_MAX_AGE: Final = 400 * 24 * 3600
KNOWN_TOKENS_MOST: Final = 10_000
"""Player cookies whose signature was checked, kept at most (then forgotten all at once)."""


def read_cookies(scope: Scope) -> Mapping[str, str]:
    """The request's cookies, read once a request (the language, the player and the error help
    switch all want them) and kept in the scope's state. Of two cookies of one name, the first
    (browsers send the one with the longest path first)."""
    state = scope.setdefault("state", {})
    cookies: Mapping[str, str] | None = state.get(_COOKIES)
    if cookies is None:
        found: dict[str, str] = {}
        for name, value in cookie_pairs(scope):
            found.setdefault(name, value)
        cookies = state[_COOKIES] = found
    return cookies


_COOKIES: Final = "tripeaks_cookies"


def cookie_pairs(scope: Scope) -> list[tuple[str, str]]:
    """Every ``name=value`` of the request's ``Cookie`` headers, in order, read as browsers
    write them (RFC 6265, section 5.4): split on ``;``, then at the first ``=``; space around
    each trimmed, one pair of double quotes around a value taken off. Nothing is refused: a
    cookie another app on this host name set, in a form a stricter parser cannot read
    (``prefs={"theme":"dark"}``, ``x=a b``, ``junk="a``, ``x=\\``), is read as it is and
    cannot hide the cookies after it. Several ``Cookie`` lines (HTTP/2 sends one per cookie)
    are read as one."""
    pairs: list[tuple[str, str]] = []
    for header, line in scope.get("headers", ()):
        if header != b"cookie":
            continue
        for chunk in line.decode("latin-1").split(";"):
            name, equals, value = chunk.partition("=")
            name = name.strip()
            if not equals or not name:
                continue
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            pairs.append((name, value))
    return pairs


class PlayerCookieMiddleware:
    def __init__(self, app: ASGIApp, *, secret: str, secure: bool = False) -> None:
        self.app = app
        self.signer = URLSafeSerializer(secret, salt="tripeaks.player")
        self.secure = secure
        self._known: dict[str, str] = {}
        """Valid tokens already checked, and their player: a cookie comes back with every
        request, and checking its signature (HMAC, base64, JSON) cost a move about 35 µs.
        Only valid tokens are kept: a forged one is checked (and refused) every time."""

    def player_from(self, token: str | None) -> str | None:
        if not token or len(token) > 200:
            return None
        known = self._known.get(token)
        if known is not None:
            return known
        player = self._check(token)
        if player is not None:
            if len(self._known) >= KNOWN_TOKENS_MOST:
                self._known.clear()
            self._known[token] = player
        return player

    def _check(self, token: str) -> str | None:
        try:
            player = self.signer.loads(token)
        except (BadSignature, UnicodeDecodeError, ValueError):
            return None
        return player if isinstance(player, str) and 16 <= len(player) <= 64 else None

    @staticmethod
    def _tokens(scope: Scope) -> list[str]:
        return [value for name, value in cookie_pairs(scope) if name == PLAYER_COOKIE][1:]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path.startswith("/static/") or path in NO_PLAYER_PATHS:
            await self.app(scope, receive, send)
            return
        player = self.player_from(read_cookies(scope).get(PLAYER_COOKIE))
        if player is None:  # another tp_player before ours (another app's, a stale one)?
            player = next(
                (p for p in map(self.player_from, self._tokens(scope)) if p is not None), None
            )
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
