"""A player on every device, as pages (issue 38): "Your devices", adding one, linking this browser.

* ``GET /devices``: the player's devices (sign one out, or every other), "Add a device", the
  recovery code, passkeys, personal tokens, "Download my data" and "Delete me";
* ``POST /devices/link-code``: a link code with its QR code and link (the ``link_code`` block
  for htmx: "Add a device" on /stats and in a daily's result box swaps it in place);
* ``POST /devices/{id}/sign-out``, ``POST /devices/sign-out-others``;
* ``POST /devices/recovery-code``, ``POST /devices/tokens`` (each shown once),
  ``POST /devices/tokens/{id}/revoke``, ``POST /devices/passkeys/remove``;
* ``GET /link`` (type a code, or sign in with a passkey), ``GET /link/<code>`` (the QR code's
  link: the code is redeemed by the page's POST, never by the GET), ``POST /link``;
  ``GET /recover``, ``POST /recover``;
* ``GET /players/me/delete`` (what "Delete me" does, and its confirmation), ``POST``.

Every form is a plain POST (htmx only adds the link code in place): the cross-site refusal of
app/web/middleware/security.py guards them as it does every form.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, cast

from fastapi import Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from app.i18n import N_, current_locale
from app.store.base import GameStore
from app.store.codes import LINK_CODE_LENGTH, grouped, new_token, typed_code
from app.store.identity import SignedOut
from app.web import passkeys
from app.web.deps import TOKEN, PagesDep, PlayerDep, StoreDep, checked_id
from app.web.linking import (
    LINK_GROUP,
    NO_SUCH_CODE,
    NO_SUCH_RECOVERY_CODE,
    NO_SUCH_TOKEN,
    become,
    browser_only,
    delete_player,
    has_history,
    in_thread,
    known_devices,
    leave,
    make_link_code,
    make_recovery_code,
    redeem_link_code,
    redeem_recovery_code,
    sign_out,
    watch_of,
)
from app.web.prefixed import PrefixedRouter
from app.web.presentation.devices import kind_words, qr_svg, spelled, when_text
from app.web.presentation.render import is_htmx

router = PrefixedRouter(
    include_in_schema=False, starts=("/devices", "/link", "/recover", "/players/me/delete")
)

DEVICES_PAGE: Final = "devices.html"
LINK_PAGE: Final = "link.html"
MAX_CODE_INPUT: Final = 200
CHOOSE: Final = N_("Say whether to bring this browser's games along.")
NOT_CONFIRMED: Final = N_("Tick the box to say you understand: nothing can be brought back.")
NOT_YOURS: Final = N_("No such device of yours")

Mode = Literal["link", "recover"]


def passkey_words(found: passkeys.RelyingParty | passkeys.Unavailable, public_url: str | None) -> str | None:
    """Why passkeys cannot work here, in the player's words (``None``: they can)."""
    words = current_locale()
    if found is passkeys.Unavailable.NEEDS_HTTPS:
        return words.gettext(
            "Passkeys need a secure connection (https): this installation is served over plain http."
        )
    if found is passkeys.Unavailable.IP_ADDRESS:
        return words.gettext(
            "Browsers do not allow passkeys on an address made of numbers. Open the game at its name"
            " (on this computer: http://localhost) to use one."
        )
    if found is passkeys.Unavailable.NO_PUBLIC_URL:
        return words.gettext(
            "Passkeys are not set up on this installation: its operator has to give its public address"
            " (TRIPEAKS_PUBLIC_URL), over https."
        )
    if found is passkeys.Unavailable.OTHER_ADDRESS:
        return words.gettext("Passkeys work at this game's own address: %(address)s") % {
            "address": public_url
        }
    return None


def passkey_context(request: Request) -> dict[str, Any]:
    found = passkeys.relying_party(request)
    return {"passkeys_off": passkey_words(found, request.app.state.settings.public_url)}


# -- Your devices -----------------------------------------------------------------------------


async def devices_context(request: Request, store: GameStore, player: str, **extra: Any) -> dict[str, Any]:
    this = getattr(request.state, "device", None)
    found = await known_devices(request, store, player)
    held = await store.aread(lambda: store.holdings(player))
    keys = await store.aread(lambda: store.passkeys(player))
    tokens = await store.aread(lambda: store.tokens(player))
    return {
        "request": request,
        "devices": [
            {"id": d.id, "kind": kind_words(d.kind), "seen": when_text(d.last_seen), "this": d.id == this}
            for d in found
        ],
        "passkeys": [{"id": p.id, "kind": kind_words(p.kind), "made": when_text(p.created)} for p in keys],
        "tokens": [{"id": t.id, "made": when_text(t.created)} for t in tokens],
        "recovery_made": when_text(held.recovery_code_made) if held.recovery_code_made else None,
        "signed_out": request.query_params.get("signed_out"),
        "oob": False,
        **passkey_context(request),
        **extra,
    }


@router.get("/devices", name="devices_page")
async def devices_page(request: Request, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    return pages.page(DEVICES_PAGE, await devices_context(request, store, player))


@router.post("/devices/link-code")
async def link_code(request: Request, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    made = await make_link_code(request, store, player)
    words = current_locale()
    context = {
        "request": request,
        "link": made,
        "qr": qr_svg(made.url, words.gettext("QR code of the link")),
        "until": when_text(made.expires_at),
        "spelled": spelled,
        "oob": False,
    }
    if is_htmx(request):
        return pages.blocks("link_code.html", ["link_code"], context)
    return pages.page("link_code.html", context)


@router.post("/devices/sign-out-others")
async def sign_out_others(request: Request, store: StoreDep, player: PlayerDep) -> Response:
    this = cast("str | None", getattr(request.state, "device", None)) or ""
    found = await store.aread(lambda: store.devices(player))
    count = await in_thread(lambda: store.sign_out_others(player, this))
    watch = watch_of(request)
    for device in found:
        if device.id != this:
            watch.sign_out(SignedOut.DEVICE, device.id)
    return RedirectResponse(f"/devices?signed_out={count}", status_code=303)


@router.post("/devices/{device_id}/sign-out")
async def sign_out_device(request: Request, device_id: str, store: StoreDep, player: PlayerDep) -> Response:
    checked_id(device_id, TOKEN, NOT_YOURS)
    this = device_id == getattr(request.state, "device", None)
    response = RedirectResponse("/stats?signed_out=1" if this else "/devices?signed_out=1", status_code=303)
    if not await sign_out(request, response, store, player, device_id):
        raise HTTPException(404, NOT_YOURS)
    return response


@router.post("/devices/recovery-code")
async def recovery_code(request: Request, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    code = await make_recovery_code(store, player)
    return pages.page(DEVICES_PAGE, await devices_context(request, store, player, recovery_code=code))


@router.post("/devices/tokens")
async def make_token(request: Request, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    token_id, token, digest = new_token()
    await in_thread(lambda: store.add_token(player, token_id, digest))
    return pages.page(DEVICES_PAGE, await devices_context(request, store, player, new_token=token))


@router.post("/devices/tokens/{token_id}/revoke")
async def revoke(request: Request, token_id: str, store: StoreDep, player: PlayerDep) -> Response:
    checked_id(token_id, TOKEN, NO_SUCH_TOKEN)
    if not await in_thread(lambda: store.revoke_token(player, token_id)):
        raise HTTPException(404, NO_SUCH_TOKEN)
    watch_of(request).sign_out(SignedOut.TOKEN, token_id)
    return RedirectResponse("/devices#tokens", status_code=303)


@router.post("/devices/passkeys/remove")
async def remove_passkey(
    store: StoreDep, player: PlayerDep, passkey: Annotated[str, Form(max_length=1400)] = ""
) -> Response:
    await in_thread(lambda: store.remove_passkey(player, passkey))
    return RedirectResponse("/devices#passkeys", status_code=303)


# -- linking this browser ---------------------------------------------------------------------


async def link_context(
    request: Request,
    store: GameStore,
    mode: Mode,
    *,
    code: str = "",
    error: str | None = None,
    shown: str = "",
) -> dict[str, Any]:
    return {
        "request": request,
        "mode": mode,
        "code": code,
        "shown_code": shown,
        "error": error,
        "history": await has_history(request, store),
        "oob": False,
        **passkey_context(request),
    }


@router.get("/link", name="link_page")
async def link_page(request: Request, store: StoreDep, pages: PagesDep) -> Response:
    return pages.page(LINK_PAGE, await link_context(request, store, "link"))


@router.get("/link/{code}", name="link_code_page")
async def link_code_page(request: Request, code: str, store: StoreDep, pages: PagesDep) -> Response:
    """The QR code's link: shows the code with one button; only that button's POST redeems it (a
    link preview or a prefetch that opens the link uses nothing)."""
    found = typed_code(code, LINK_CODE_LENGTH) or ""
    shown = grouped(found, LINK_GROUP) if found else ""
    return pages.page(LINK_PAGE, await link_context(request, store, "link", code=found, shown=shown))


def bring_choice(answer: str, history: bool) -> bool | None:
    """The history question's answer (``None``: not answered, while there is a history)."""
    if answer in ("yes", "no"):
        return answer == "yes"
    return None if history else False


async def redeem_form(
    request: Request, store: GameStore, pages: Any, mode: Mode, code: str, answer: str
) -> Response:
    browser_only(request)
    history = await has_history(request, store)
    bring = bring_choice(answer, history)
    words = current_locale()
    if bring is None:
        context = await link_context(
            request, store, mode, code=code[:MAX_CODE_INPUT], error=words.gettext(CHOOSE)
        )
        return cast(Response, pages.page(LINK_PAGE, context, status_code=400))
    if mode == "link":
        player = await redeem_link_code(request, store, code)
    else:
        player = await redeem_recovery_code(store, code)
    if player is None:
        refusal = NO_SUCH_CODE if mode == "link" else NO_SUCH_RECOVERY_CODE
        message = words.gettext(refusal)
        context = await link_context(request, store, mode, code=code[:MAX_CODE_INPUT], error=message)
        return cast(Response, pages.page(LINK_PAGE, context, status_code=404))
    response = RedirectResponse("/stats?linked=1", status_code=303)
    await become(request, response, store, player, bring_history=bring)
    return response


@router.get("/recover", name="recover_page")
async def recover_page(request: Request, store: StoreDep, pages: PagesDep) -> Response:
    return pages.page(LINK_PAGE, await link_context(request, store, "recover"))


@router.post("/link")
@router.post("/recover")
async def code_form(
    request: Request,
    store: StoreDep,
    pages: PagesDep,
    code: Annotated[str, Form(max_length=MAX_CODE_INPUT)] = "",
    bring_history: Annotated[str, Form(max_length=3)] = "",
) -> Response:
    """A link code (``/link``) or the recovery code (``/recover``) typed, or the QR code's link's
    button: this browser becomes its player."""
    mode: Mode = "link" if request.url.path == "/link" else "recover"
    return await redeem_form(request, store, pages, mode, code, bring_history)


# -- Delete me --------------------------------------------------------------------------------


@router.get("/players/me/delete", name="delete_page")
async def delete_page(request: Request, pages: PagesDep) -> Response:
    return pages.page("delete.html", {"request": request, "error": None, "oob": False})


@router.post("/players/me/delete")
async def delete_form(
    request: Request,
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
    confirm: Annotated[str, Form(max_length=3)] = "",
) -> Response:
    browser_only(request)
    if confirm != "yes":
        context = {"request": request, "error": current_locale().gettext(NOT_CONFIRMED), "oob": False}
        return pages.page("delete.html", context, status_code=400)
    await delete_player(request, store, player)
    response = RedirectResponse("/stats?deleted=1", status_code=303)
    leave(request, response)
    return response
