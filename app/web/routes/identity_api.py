"""A player on every device, as JSON (issue 38): link codes, recovery codes, devices, personal
tokens, passkeys, the player's data and "Delete me".

* ``POST /api/players/me/link-codes`` → 201 ``{"code", "url", "expires_at"}``;
* ``POST /api/link`` ``{"code", "bring_history"}`` → 200 and the player's statistics, with the
  new cookie; 404 for a code wrong, used or expired alike; 429 when throttled;
* ``POST /api/players/me/recovery-code`` → 201 ``{"code"}``; ``POST /api/recover`` ``{"code"}``;
* ``GET /api/players/me/devices``; ``DELETE /api/players/me/devices/{id}`` → 204;
* ``POST /api/players/me/tokens`` → 201 ``{"token"}``; ``GET`` lists them;
  ``DELETE /api/players/me/tokens/{id}`` → 204;
* ``GET /api/players/me/export``; ``DELETE /api/players/me`` → 204;
* the passkeys' ceremonies for ``static/devices.js``: ``POST /api/passkeys/options`` and
  ``POST /api/passkeys`` (add one), ``POST /api/passkeys/sign-in/options`` and
  ``POST /api/passkeys/sign-in`` (become its player).

Errors are ``HTTPException`` s: they take whatever shape the app's handlers give (app/web/errors.py).
Making codes, tokens and passkeys, signing out and deleting want the player's browser: a
personal token gets 403 there (:func:`app.web.linking.browser_only`).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Final

from fastapi import Body, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.i18n import N_, current_locale
from app.store.base import GameStore
from app.store.codes import new_token
from app.store.identity import CodeKind, Passkey, SignedOut
from app.web import passkeys
from app.web.deps import TOKEN, PlayerDep, StoreDep, checked_id
from app.web.linking import (
    NO_SUCH_CODE,
    NO_SUCH_RECOVERY_CODE,
    NO_SUCH_TOKEN,
    become,
    browser_only,
    delete_player,
    in_thread,
    known_devices,
    leave,
    make_link_code,
    make_recovery_code,
    redeem_link_code,
    redeem_recovery_code,
    secret_key,
    sign_out,
    watch_of,
)
from app.web.player_data import export
from app.web.prefixed import PrefixedRouter
from app.web.presentation.devices import device_kind, kind_words
from app.web.presentation.player_stats import PlayerOut, player_out

router = PrefixedRouter(
    prefix="/api", tags=["devices"], starts=("/api/link", "/api/recover", "/api/players/me", "/api/passkeys")
)

NO_SUCH_DEVICE: Final = N_("No such device of yours")
PASSKEY_REFUSED: Final = N_("The passkey could not be checked. Try again.")
NO_SUCH_PASSKEY: Final = N_(
    "This passkey is not known here: it may have been removed. Use a link code or your recovery code."
)
UNAVAILABLE: Final = N_("Passkeys cannot be used at this address.")


class Problem(BaseModel):
    detail: str


class LinkCodeOut(BaseModel):
    code: str = Field(
        examples=["K7M-Q2X-9RT"],
        description="To type on the other device (any case; dashes and spaces ignored)",
    )
    url: str = Field(description="The link to open on the other device (its page redeems the code)")
    expires_at: dt.datetime


class CodeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(max_length=200)
    bring_history: bool = Field(
        default=False,
        description="Whether this browser's own history (games, results, records, daily attempts)"
        " moves to the player (docs/store.md, Devices and merges)",
    )


class RecoveryCodeOut(BaseModel):
    code: str = Field(description="Shown once: 32 symbols in groups of four, at least 128 bits")


class DeviceOut(BaseModel):
    id: str
    kind: str = Field(examples=["Firefox on Android"])
    last_seen: dt.datetime = Field(description="To within an hour")
    this_device: bool


class TokenOut(BaseModel):
    token: str = Field(description="Shown once: send it as `Authorization: Bearer <token>`")


class TokenListed(BaseModel):
    id: str = Field(description="The token's id: the part between `tpk_` and the dot")
    created: dt.datetime


class PasskeyOut(BaseModel):
    id: str


class CredentialIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    credential: dict[str, Any]
    bring_history: bool = False


NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": Problem}}
DeviceIdPath = Annotated[str, "the device id"]


def moment(epoch: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch, dt.UTC)


# -- link codes and recovery codes ------------------------------------------------------------


@router.post("/players/me/link-codes", status_code=201, response_model=LinkCodeOut)
async def new_link_code(request: Request, store: StoreDep, player: PlayerDep) -> LinkCodeOut:
    """A link code for another browser: single use, valid 10 minutes (a newer one voids it)."""
    browser_only(request)
    made = await make_link_code(request, store, player)
    return LinkCodeOut(code=made.code, url=made.url, expires_at=moment(made.expires_at))


async def stats_after(store: GameStore, player: str) -> PlayerOut:
    return await in_thread(lambda: player_out(store, player))


@router.post("/link", response_model=PlayerOut, responses={404: {"model": Problem}, 429: {"model": Problem}})
async def link(
    request: Request, response: Response, body: Annotated[CodeIn, Body()], store: StoreDep
) -> PlayerOut:
    """Make this browser the player whose link code this is; a new cookie comes with the answer."""
    browser_only(request)
    player = await redeem_link_code(request, store, body.code)
    if player is None:
        raise HTTPException(404, NO_SUCH_CODE)
    await become(request, response, store, player, bring_history=body.bring_history)
    return await stats_after(store, player)


@router.post("/players/me/recovery-code", status_code=201, response_model=RecoveryCodeOut)
async def new_recovery_code(request: Request, store: StoreDep, player: PlayerDep) -> RecoveryCodeOut:
    """A recovery code (the one before is void from now on): shown this once."""
    browser_only(request)
    return RecoveryCodeOut(code=await make_recovery_code(store, player))


@router.post(
    "/recover", response_model=PlayerOut, responses={404: {"model": Problem}, 429: {"model": Problem}}
)
async def recover(
    request: Request, response: Response, body: Annotated[CodeIn, Body()], store: StoreDep
) -> PlayerOut:
    """Make this browser the player whose recovery code this is (the code stays good)."""
    browser_only(request)
    player = await redeem_recovery_code(store, body.code)
    if player is None:
        raise HTTPException(404, NO_SUCH_RECOVERY_CODE)
    await become(request, response, store, player, bring_history=body.bring_history)
    return await stats_after(store, player)


# -- devices ----------------------------------------------------------------------------------


@router.get("/players/me/devices", response_model=list[DeviceOut])
async def my_devices(request: Request, store: StoreDep, player: PlayerDep) -> list[DeviceOut]:
    """Each browser that is this player: its kind, when it was last seen, whether it is this one."""
    this = getattr(request.state, "device", None)
    return [
        DeviceOut(id=d.id, kind=kind_words(d.kind), last_seen=moment(d.last_seen), this_device=d.id == this)
        for d in await known_devices(request, store, player)
    ]


@router.delete("/players/me/devices/{device_id}", status_code=204, responses=NOT_FOUND)
async def delete_device(request: Request, device_id: str, store: StoreDep, player: PlayerDep) -> Response:
    """Sign the device out: its next request is a new player's (on every server within 30 s)."""
    browser_only(request)
    checked_id(device_id, TOKEN, NO_SUCH_DEVICE)
    response = Response(status_code=204)
    if not await sign_out(request, response, store, player, device_id):
        raise HTTPException(404, NO_SUCH_DEVICE)
    return response


# -- personal tokens --------------------------------------------------------------------------


@router.post("/players/me/tokens", status_code=201, response_model=TokenOut)
async def new_personal_token(request: Request, store: StoreDep, player: PlayerDep) -> TokenOut:
    """A personal token for a bot: it acts as the player on the JSON API. Shown this once."""
    browser_only(request)
    token_id, token, digest = new_token()
    await in_thread(lambda: store.add_token(player, token_id, digest))
    return TokenOut(token=token)


@router.get("/players/me/tokens", response_model=list[TokenListed])
async def my_tokens(store: StoreDep, player: PlayerDep) -> list[TokenListed]:
    """The player's personal tokens (never the tokens themselves)."""
    return [
        TokenListed(id=t.id, created=moment(t.created))
        for t in await store.aread(lambda: store.tokens(player))
    ]


@router.delete("/players/me/tokens/{token_id}", status_code=204, responses=NOT_FOUND)
async def revoke_token(request: Request, token_id: str, store: StoreDep, player: PlayerDep) -> Response:
    """Revoke a personal token: refused from now on, on every server within 30 s."""
    browser_only(request)
    checked_id(token_id, TOKEN, NO_SUCH_TOKEN)
    if not await in_thread(lambda: store.revoke_token(player, token_id)):
        raise HTTPException(404, NO_SUCH_TOKEN)
    watch_of(request).sign_out(SignedOut.TOKEN, token_id)
    return Response(status_code=204)


# -- the player's data ------------------------------------------------------------------------


@router.get("/players/me/export")
async def export_me(request: Request, store: StoreDep, player: PlayerDep) -> JSONResponse:
    """Everything the installation keeps about the player, as JSON (a download)."""
    this = getattr(request.state, "device", None)
    data = await in_thread(lambda: export(store, player, this))
    return JSONResponse(
        data,
        headers={
            "Content-Disposition": 'attachment; filename="tripeaks-my-data.json"',
            "Cache-Control": "no-store",
        },
    )


@router.delete("/players/me", status_code=204)
async def delete_me(request: Request, store: StoreDep, player: PlayerDep) -> Response:
    """Delete the player: name, devices, codes, passkeys, tokens, games. Results stay only as
    anonymous rows where records and leaderboards need them (docs/security.md). For good."""
    browser_only(request)
    await delete_player(request, store, player)
    response = Response(status_code=204)
    leave(request, response)
    return response


# -- passkeys ---------------------------------------------------------------------------------


def party_of(request: Request) -> passkeys.RelyingParty:
    found = passkeys.relying_party(request)
    if isinstance(found, passkeys.Unavailable):
        raise HTTPException(409, UNAVAILABLE)
    return found


def challenge_digest(request: Request, challenge: str) -> str:
    from app.store.codes import code_digest

    return code_digest(secret_key(request), "passkey", challenge)


@router.post("/passkeys/options")
async def passkey_options(request: Request, store: StoreDep, player: PlayerDep) -> dict[str, Any]:
    """The options of ``navigator.credentials.create`` for a new passkey of the player."""
    browser_only(request)
    party = party_of(request)
    name = await store.aread(lambda: store.display_name(player)) or current_locale().gettext(
        "TriPeaks player"
    )
    existing = await store.aread(lambda: store.passkeys(player))
    options, challenge = passkeys.registration_options(party, secret_key(request), player, name, existing)
    digest = challenge_digest(request, challenge)
    await in_thread(lambda: store.keep_code(CodeKind.PASSKEY_ADD, digest, player, passkeys.CHALLENGE_TTL_S))
    return options


@router.post("/passkeys", status_code=201, response_model=PasskeyOut, responses={400: {"model": Problem}})
async def add_passkey(
    request: Request, body: Annotated[CredentialIn, Body()], store: StoreDep, player: PlayerDep
) -> PasskeyOut:
    """Keep the passkey the authenticator made for the options above."""
    browser_only(request)
    party = party_of(request)
    try:
        challenge = passkeys.challenge_text(body.credential)
        digest = challenge_digest(request, challenge)
        found = await in_thread(lambda: store.redeem_code(CodeKind.PASSKEY_ADD, digest))
        if found is None or found[0] != player:
            raise passkeys.PasskeyRefused("no such challenge for this player")
        credential_id, public_key, count = passkeys.verify_registration(party, body.credential, challenge)
    except passkeys.PasskeyRefused:
        raise HTTPException(400, PASSKEY_REFUSED) from None
    kind = device_kind(request.headers.get("user-agent", ""))
    await in_thread(
        lambda: store.add_passkey(Passkey(credential_id, player, public_key, count, 0.0, None, kind))
    )
    return PasskeyOut(id=credential_id)


@router.post("/passkeys/sign-in/options")
async def sign_in_options(request: Request, store: StoreDep) -> dict[str, Any]:
    """The options of ``navigator.credentials.get``: any passkey of this site."""
    browser_only(request)
    party = party_of(request)
    options, challenge = passkeys.authentication_options(party)
    digest = challenge_digest(request, challenge)
    await in_thread(lambda: store.keep_code(CodeKind.PASSKEY_IN, digest, None, passkeys.CHALLENGE_TTL_S))
    return options


@router.post(
    "/passkeys/sign-in",
    response_model=PlayerOut,
    responses={400: {"model": Problem}, 404: {"model": Problem}},
)
async def sign_in(
    request: Request, response: Response, body: Annotated[CredentialIn, Body()], store: StoreDep
) -> PlayerOut:
    """Make this browser the player of the passkey the authenticator signed with."""
    browser_only(request)
    party = party_of(request)
    try:
        challenge = passkeys.challenge_text(body.credential)
        credential_id = passkeys.credential_id(body.credential)
    except passkeys.PasskeyRefused:
        raise HTTPException(400, PASSKEY_REFUSED) from None
    key = await store.aread(lambda: store.passkey(credential_id))
    if key is None:
        raise HTTPException(404, NO_SUCH_PASSKEY)
    try:
        digest = challenge_digest(request, challenge)
        if await in_thread(lambda: store.redeem_code(CodeKind.PASSKEY_IN, digest)) is None:
            raise passkeys.PasskeyRefused("no such challenge")
        count = passkeys.verify_authentication(party, body.credential, challenge, key)
    except passkeys.PasskeyRefused:
        raise HTTPException(400, PASSKEY_REFUSED) from None
    await in_thread(lambda: store.passkey_used(credential_id, count))
    await become(request, response, store, key.player, bring_history=body.bring_history)
    return await stats_after(store, key.player)
