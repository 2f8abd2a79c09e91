"""How a browser becomes a player (issue 38), for the pages and the JSON API alike: link codes and
recovery codes made and redeemed, and the one way a browser takes another player's identity
(:func:`become`: a new device, a new cookie value, the old device signed out, the history
brought along when the player says so).

Codes are kept hashed (:mod:`app.store.codes`); the key of the link codes' keyed hash is the
installation's secret key, the same on every server, so a code made on one is redeemed on
another. Every store call runs in a worker thread (a recovery code's scrypt too).

And how a player stops being one on a device: the player's devices (this one written first),
one signed out, the player deleted; each told to this server's :class:`DeviceWatch` at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, TypeVar, cast

from anyio import to_thread
from fastapi import HTTPException, Request, Response

from app.i18n import N_
from app.store.base import GameStore
from app.store.codes import (
    LINK_CODE_LENGTH,
    LINK_CODE_TTL_S,
    RECOVERY_CODE_LENGTH,
    code_digest,
    grouped,
    new_link_code,
    new_recovery_code,
    recovery_parts,
    scrypt_digest,
    scrypt_matches,
    typed_code,
)
from app.store.identity import CodeKind, SignedOut, new_device_id
from app.web.device_watch import DeviceWatch
from app.web.middleware.player_cookie import COOKIE_SET, PlayerCookies
from app.web.presentation.devices import device_kind

T = TypeVar("T")

LINK_GROUP: Final = 3
RECOVERY_GROUP: Final = 4
NO_SUCH_CODE: Final = N_(
    "That code does not work: it may be mistyped, used already, or more than 10 minutes old."
    " Make a new one on your other device."
)
NO_SUCH_RECOVERY_CODE: Final = N_("That recovery code does not work: check it against the one you saved.")
BROWSERS_ONLY: Final = N_("This needs a browser signed in as the player (its cookie), not a personal token.")


async def in_thread(call: Callable[[], T]) -> T:
    return await to_thread.run_sync(call)


def secret_key(request: Request) -> bytes:
    """The installation's secret key (read once per app): the link codes' keyed hash."""
    state = request.app.state
    key: bytes | None = getattr(state, "code_key", None)
    if key is None:
        key = state.code_key = state.settings.signing_key().encode("utf-8")
    return key


def public_base(request: Request) -> str:
    """``https://tripeaks.example``: ``TRIPEAKS_PUBLIC_URL``, else the address of this request."""
    configured: str | None = request.app.state.settings.public_url
    return configured or str(request.base_url).rstrip("/")


def browser_only(request: Request) -> None:
    """Refuse a request made with a personal token (403): making codes, tokens and passkeys,
    signing out and deleting want the player's own browser."""
    if getattr(request.state, "token", None) is not None:
        raise HTTPException(403, BROWSERS_ONLY)


# -- link codes -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LinkCode:
    code: str
    """As shown: ``K7M-Q2X-9RT``."""
    url: str
    """``https://…/link/K7MQ2X9RT``."""
    expires_at: float


async def make_link_code(request: Request, store: GameStore, player: str) -> LinkCode:
    code = new_link_code()
    digest = code_digest(secret_key(request), CodeKind.LINK.value, code)
    await in_thread(lambda: store.keep_code(CodeKind.LINK, digest, player, LINK_CODE_TTL_S))
    return LinkCode(
        grouped(code, LINK_GROUP), f"{public_base(request)}/link/{code}", store.now() + LINK_CODE_TTL_S
    )


async def redeem_link_code(request: Request, store: GameStore, typed: str) -> str | None:
    """The player whose live link code this is (it is used now), else ``None``."""
    code = typed_code(typed, LINK_CODE_LENGTH)
    if code is None:
        return None
    digest = code_digest(secret_key(request), CodeKind.LINK.value, code)
    found = await in_thread(lambda: store.redeem_code(CodeKind.LINK, digest))
    return found[0] if found is not None else None


# -- recovery codes ---------------------------------------------------------------------------


async def make_recovery_code(store: GameStore, player: str) -> str:
    """A new recovery code for the player (the one before is void), as shown: in groups of four."""
    while True:
        code = new_recovery_code()
        selector, secret = recovery_parts(code)
        if await store.aread(partial(store.recovery, selector)) is None:  # selectors are unique
            break
    digest = await in_thread(lambda: scrypt_digest(secret))
    await in_thread(lambda: store.set_recovery(player, selector, digest))
    return grouped(code, RECOVERY_GROUP)


async def redeem_recovery_code(store: GameStore, typed: str) -> str | None:
    """The player whose recovery code this is, else ``None``."""
    code = typed_code(typed, RECOVERY_CODE_LENGTH)
    if code is None:
        return None
    selector, secret = recovery_parts(code)
    found = await store.aread(lambda: store.recovery(selector))
    if found is None:
        return None
    player, digest = found
    return player if await in_thread(lambda: scrypt_matches(secret, digest)) else None


# -- becoming a player ------------------------------------------------------------------------


async def has_history(request: Request, store: GameStore) -> bool:
    """Whether this browser's own player has anything to bring along."""
    state = request.state
    if not state.player_known:
        return False
    player = cast(str, state.player)
    return await store.aread(lambda: store.has_history(player))


async def become(
    request: Request, response: Response, store: GameStore, player: str, *, bring_history: bool
) -> None:
    """Make this browser ``player``: a new device of its own, a new cookie value on ``response``;
    the device it was is signed out; with ``bring_history`` the history of the player it was
    moves to ``player`` (app/store/identity.py)."""
    state = request.state
    leaving = cast(str, state.player) if state.player_known else None
    left_device = cast("str | None", getattr(state, "device", None)) if leaving is not None else None
    device = new_device_id()
    kind = device_kind(request.headers.get("user-agent", ""))
    await in_thread(
        lambda: store.become(
            player, device, kind, leaving=leaving, left_device=left_device, bring_history=bring_history
        )
    )
    watch: DeviceWatch = request.app.state.device_watch
    watch.seen_now(device)
    if left_device is not None:
        watch.sign_out(SignedOut.DEVICE, left_device)
    issue_cookie(request, response, player, device)


def issue_cookie(request: Request, response: Response, player: str, device: str) -> None:
    cookies: PlayerCookies = request.app.state.player_cookies
    secure = request.app.state.settings.cookie_secure or request.url.scheme == "https"
    response.headers.append("set-cookie", cookies.set_cookie(player, device, secure=secure))
    request.scope.setdefault("state", {})[COOKIE_SET] = True


def leave(request: Request, response: Response) -> None:
    """This browser is no one now (signed out, or its player deleted): the cookie goes; the next
    request makes a new player."""
    response.headers.append("set-cookie", PlayerCookies.clear_cookie())
    request.scope.setdefault("state", {})[COOKIE_SET] = True


NO_SUCH_TOKEN: Final = N_("No such personal token of yours")


def watch_of(request: Request) -> DeviceWatch:
    return cast(DeviceWatch, request.app.state.device_watch)


async def known_devices(request: Request, store: GameStore, player: str) -> list[Any]:
    """The player's devices, this one written first if it never was."""
    device = getattr(request.state, "device", None)
    if device is not None and request.state.player_known:
        found = await store.aread(lambda: store.devices(player))
        if all(d.id != device for d in found):
            kind = device_kind(request.headers.get("user-agent", ""))
            await in_thread(lambda: store.touch_device(device, player, kind))
    return await store.aread(lambda: store.devices(player))


async def sign_out(request: Request, response: Response, store: GameStore, player: str, device: str) -> bool:
    """Sign one of the player's devices out (this one too: it is then no one); whether it was theirs."""
    if not await in_thread(lambda: store.sign_out_device(player, device)):
        return False
    watch_of(request).sign_out(SignedOut.DEVICE, device)
    if device == getattr(request.state, "device", None):
        leave(request, response)
    return True


async def delete_player(request: Request, store: GameStore, player: str) -> None:
    await in_thread(lambda: store.delete_player(player))
    watch_of(request).sign_out(SignedOut.PLAYER, player)
