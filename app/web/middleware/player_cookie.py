"""Who is playing: a player and a device, in a signed, HttpOnly, SameSite=Lax cookie.

The cookie names the player (a random id) and the device, the browser (a random id of its
own, so that one browser can be signed out: issue 38). A pure ASGI middleware reads it before
the route runs and puts them in ``scope["state"]``: ``player``, ``device`` and whether they
came from a valid cookie (``player_known``). A missing, forged, truncated or stale cookie, or
one whose device or player is signed out (:class:`app.web.device_watch.DeviceWatch`: two set
look-ups, no database), gives a new player and device, set on the response.

A cookie of before devices (the player id alone) keeps working: its device is a keyed hash
of its player id (:meth:`PlayerCookies.legacy_device`), the same on every server and every
request, written as a device row like any other at most once an hour; nothing is rewritten.

Under ``/api/``, ``Authorization: Bearer tpk_…`` (a personal token) acts as the token's
player instead (``state["token"]``: its id; no device, no cookie); a token that is not valid
is a 401.

Cookies are ``Secure`` when the request was made over https (``scope["scheme"]``; behind
a TLS-terminating proxy that is the forwarded scheme, see ``TRIPEAKS_TRUST_PROXY``) or
when ``secure`` is set: then every cookie the response sets (the player's, and those the
routes set) is marked ``Secure``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping
from typing import Final

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import N_, current_locale
from app.web.device_watch import DeviceWatch
from app.web.middleware.headers import header, send_json_error
from app.web.presentation.devices import device_kind

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
    for name, line in scope.get("headers", ()):
        if name != b"cookie":
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


class PlayerCookies:
    """The player cookie's value: ``[player, device]`` signed (itsdangerous, HMAC-SHA-1 with the
    installation's key); a value of before devices is the player id alone."""

    def __init__(self, secret: str) -> None:
        self.signer = URLSafeSerializer(secret, salt="tripeaks.player")
        self._legacy = hashlib.sha256(b"tripeaks.legacy-device:" + secret.encode()).digest()

    def value(self, player: str, device: str) -> str:
        return self.signer.dumps([player, device])

    def legacy_device(self, player: str) -> str:
        """The device of a cookie of before devices: the same for its player on every server."""
        digest = hmac.new(self._legacy, player.encode(), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")

    def read(self, token: str) -> tuple[str, str] | None:
        """(player, device) of a cookie value, or ``None`` when its signature or shape is wrong."""
        try:
            found = self.signer.loads(token)
        except (BadSignature, UnicodeDecodeError, ValueError):
            return None
        if isinstance(found, str):
            return (found, self.legacy_device(found)) if _an_id(found) else None
        if isinstance(found, list) and len(found) == 2:
            player, device = found
            if isinstance(player, str) and isinstance(device, str) and _an_id(player) and _an_id(device):
                return player, device
        return None

    def set_cookie(self, player: str, device: str, *, secure: bool = False) -> str:
        """The ``Set-Cookie`` value that makes a browser this player on this device."""
        return (
            f"{PLAYER_COOKIE}={self.value(player, device)}; Path=/; Max-Age={_MAX_AGE}; "
            "HttpOnly; SameSite=Lax" + ("; Secure" if secure else "")
        )

    @staticmethod
    def clear_cookie() -> str:
        return f"{PLAYER_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"


def _an_id(text: str) -> bool:
    return 16 <= len(text) <= 64


BEARER: Final = "bearer tpk_"
NOT_A_TOKEN: Final = N_(
    "That personal token is not valid: it is mistyped, revoked, or its player was deleted."
)


class PlayerCookieMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        secret: str | None = None,
        cookies: PlayerCookies | None = None,
        secure: bool = False,
        watch: DeviceWatch | None = None,
    ) -> None:
        self.app = app
        if cookies is None:
            assert secret is not None, "a secret or the cookies"
            cookies = PlayerCookies(secret)
        self.cookies = cookies
        self.signer = cookies.signer
        self.secure = secure
        self.watch = watch if watch is not None else DeviceWatch()
        self._known: dict[str, tuple[str, str]] = {}
        """Valid tokens already checked, and their player and device: a cookie comes back with
        every request, and checking its signature (HMAC, base64, JSON) cost a move about 35 µs.
        Only valid tokens are kept: a forged one is checked (and refused) every time."""

    def identity_from(self, token: str | None) -> tuple[str, str] | None:
        if not token or len(token) > 200:
            return None
        known = self._known.get(token)
        if known is not None:
            return known
        found = self.cookies.read(token)
        if found is not None:
            if len(self._known) >= KNOWN_TOKENS_MOST:
                self._known.clear()
            self._known[token] = found
        return found

    def player_from(self, token: str | None) -> str | None:
        found = self.identity_from(token)
        return found[0] if found is not None else None

    @staticmethod
    def _tokens(scope: Scope) -> list[str]:
        return [value for name, value in cookie_pairs(scope) if name == PLAYER_COOKIE][1:]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path.startswith("/static/") or path in NO_PLAYER_PATHS:
            await self.app(scope, receive, send)
            return
        if path.startswith("/api/") and await self._by_token(scope, receive, send):
            return
        identity = self.identity_from(read_cookies(scope).get(PLAYER_COOKIE))
        if identity is None:  # another tp_player before ours (another app's, a stale one)?
            identity = next(
                (i for i in map(self.identity_from, self._tokens(scope)) if i is not None), None
            )
        watch = self.watch
        if identity is not None and watch.refused(*identity):
            identity = None  # signed out: a new player
        fresh = identity is None
        if identity is None:
            player, device = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        else:
            player, device = identity
            if watch.due(device, time.monotonic()):
                watch.touch(device, player, device_kind(header(scope, b"user-agent") or ""))
        state = scope.setdefault("state", {})
        state["player"], state["device"], state["player_known"] = player, device, not fresh
        secure = self.secure or scope.get("scheme") == "https"

        if not fresh and not secure:
            await self.app(scope, receive, send)
            return

        cookie = self.cookies.set_cookie(player, device, secure=secure) if fresh else ""

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if secure:
                    mark_secure(headers)
                if fresh and not state.get(COOKIE_SET):  # a route that made it a player set its own
                    headers.append("set-cookie", cookie)
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    async def _by_token(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """A request with a personal token: as its player (``True``), or refused with 401
        (``True``); ``False`` when it carries none."""
        authorization = header(scope, b"authorization")
        if authorization is None or authorization[: len(BEARER)].lower() != BEARER:
            return False
        found = await self.watch.token_player(authorization[len("bearer ") :].strip())
        if found is None:
            message = current_locale().gettext(NOT_A_TOKEN)
            await send_json_error(send, 401, message, {"WWW-Authenticate": "Bearer"})
            return True
        state = scope.setdefault("state", {})
        state["player"], state["token"] = found
        state["device"], state["player_known"] = None, True
        await self.app(scope, receive, send)
        return True


COOKIE_SET: Final = "player_cookie_set"
"""In ``scope["state"]``: a route set the player cookie itself (the browser became a player)."""


def mark_secure(headers: MutableHeaders) -> None:
    """Add ``Secure`` to every ``Set-Cookie`` that lacks it."""
    cookies = headers.getlist("set-cookie")
    if not cookies:
        return
    del headers["set-cookie"]
    for cookie in cookies:
        flags = {part.strip().lower() for part in cookie.split(";")[1:]}
        headers.append("set-cookie", cookie if "secure" in flags else cookie + "; Secure")
