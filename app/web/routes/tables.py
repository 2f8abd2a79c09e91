"""Tables of friends' pages (issue 39): make one, its invite link, its page and boards, its race.

* ``GET /tables``: Your tables, and the form that makes one; ``POST /tables`` makes it (303 to
  its page, which shows the invite link);
* ``GET /t/<token>``: the invite link's page: the table's name, its members' count, and one
  button, Join (``POST /t/<token>``, 303 to the table's page): two clicks from a shared link
  to a member. A renewed or unknown token is a 404 page that says so;
* ``GET /tables/<id>``: the table's page, for its members only (404 for anyone else): today's
  board, this week, all time, the members, the invite link, "Race the table", and the
  maker's controls: rename (``POST …/name``), remove a member (``POST …/members/<id>/remove``),
  renew the invite (``POST …/invite``); any member leaves (``POST …/leave``);
* ``POST /tables/<id>/race``: a race room on a deal as the New game window makes one; every
  member with the table's page open sees the invitation arrive (``GET /tables/<id>/events``,
  server-sent events through the races' signals, so across servers as races are).

Every form is a plain form answered by a 303 to a page that renders in full; htmx boosts them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable
from typing import Annotated, Any, Final, Literal, cast

from anyio import to_thread
from babel.numbers import format_decimal
from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app.engine import STANDARD, Rules
from app.i18n import current_locale
from app.store import GameStore
from app.store.tables import MAX_MEMBERS, MAX_TABLES_PER_PLAYER, FriendsTable, NoSuchInvite, TableRefused
from app.web.deps import PagesDep, PlayerDep, StoreDep
from app.web.presentation.render import is_htmx
from app.web.presentation.table_page import table_context
from app.web.race_changes import make_race, race_code, signals_of
from app.web.race_stream import RETRY_MS, StreamSlots, idle_wait
from app.web.solver_worker import winnable_code
from app.web.table_access import (
    LEAVE_INSTEAD,
    NO_SUCH_MEMBER,
    BadDisplayName,
    invite_token,
    maker_of,
    member_of,
    refusal,
    table_name,
)

router = APIRouter(tags=["tables"])

MAX_NAME_INPUT: Final = 200
NOTICES: Final = {"made", "renewed", "renamed", "removed", "joined"}


def table_signal(table_id: str) -> str:
    """The name a table's invitations go by among the races' signals."""
    return f"table.{table_id}"


# -- Your tables ------------------------------------------------------------------------------


def tables_context(request: Request, store: GameStore, player: str, **more: object) -> dict[str, object]:
    context: dict[str, object] = {
        "request": request,
        "tables": store.player_tables(player),
        "left": False,
        "name_error": None,
        "name_input": "",
        "oob": False,
        "max_members": format_decimal(MAX_MEMBERS, locale=current_locale().code),
        "max_tables": MAX_TABLES_PER_PLAYER,
    }
    return context | more


@router.get("/tables", name="tables_page", include_in_schema=False)
def tables_page(request: Request, store: StoreDep, pages: PagesDep, player: PlayerDep) -> Response:
    left = request.query_params.get("left") == "1"
    return pages.page("tables.html", tables_context(request, store, player, left=left))


@router.post("/tables", name="make_table", include_in_schema=False)
def make_table(
    request: Request,
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
    name: Annotated[str, Form(max_length=MAX_NAME_INPUT)] = "",
) -> Response:
    try:
        table = store.make_table(player, table_name(name))
    except BadDisplayName as error:
        message = current_locale().gettext(str(error))
        context = tables_context(request, store, player, name_error=message, name_input=name)
        return pages.page("tables.html", context, status_code=400)
    except TableRefused as error:
        raise refusal(error) from None
    return RedirectResponse(f"/tables/{table.id}?done=made", status_code=303)


# -- the invite link --------------------------------------------------------------------------


@router.get("/t/{token}", name="table_invite", include_in_schema=False)
def invite_page(
    request: Request, token: str, store: StoreDep, pages: PagesDep, player: PlayerDep
) -> Response:
    table = store.invited_table(invite_token(token))
    if table is None:
        raise refusal(NoSuchInvite(token[:64]))
    member = store.membership(table.id, player)
    context = {"request": request, "table": table, "token": token, "member": member, "oob": False}
    return pages.page("table_invite.html", context)


@router.post("/t/{token}", name="join_table", include_in_schema=False)
def join(token: str, store: StoreDep, player: PlayerDep) -> Response:
    try:
        table = store.join_table(invite_token(token), player)
    except TableRefused as error:
        raise refusal(error) from None
    return RedirectResponse(f"/tables/{table.id}?done=joined", status_code=303)


# -- the table's page -------------------------------------------------------------------------


@router.get("/tables/{table_id}", name="table_page", include_in_schema=False)
async def table_page(
    request: Request, table_id: str, store: StoreDep, pages: PagesDep, player: PlayerDep
) -> Response:
    table, member = await member_of(store, table_id, player)
    done = request.query_params.get("done", "")
    notice = done if done in NOTICES else None
    every = request.query_params.get("all") == "1"  # "Show all": a big table's every row

    def made() -> dict[str, object]:
        return table_context(request, store, table, member, notice=notice, every=every)

    return pages.page("table.html", await to_thread.run_sync(made))


@router.post("/tables/{table_id}/name", name="rename_table", include_in_schema=False)
async def rename(
    request: Request,
    table_id: str,
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
    name: Annotated[str, Form(max_length=MAX_NAME_INPUT)] = "",
) -> Response:
    table, member = await maker_of(store, table_id, player)
    try:
        cleaned = table_name(name)
    except BadDisplayName as error:
        message = current_locale().gettext(str(error))

        def context() -> dict[str, object]:
            return table_context(request, store, table, member, name_error=message, name_input=name)

        return pages.page("table.html", await to_thread.run_sync(context), status_code=400)
    await to_thread.run_sync(store.rename_table, table.id, cleaned)
    return RedirectResponse(f"/tables/{table.id}?done=renamed", status_code=303)


@router.post("/tables/{table_id}/invite", name="renew_invite", include_in_schema=False)
async def renew(table_id: str, store: StoreDep, player: PlayerDep) -> Response:
    table, _ = await maker_of(store, table_id, player)
    await to_thread.run_sync(store.renew_invite, table.id)
    return RedirectResponse(f"/tables/{table.id}?done=renewed#invite", status_code=303)


@router.post("/tables/{table_id}/members/{member_id}/remove", name="remove_member", include_in_schema=False)
async def remove(table_id: str, member_id: str, store: StoreDep, player: PlayerDep) -> Response:
    table, me = await maker_of(store, table_id, player)
    if member_id == me.id:
        raise HTTPException(409, LEAVE_INSTEAD)
    if not await to_thread.run_sync(store.remove_member, table.id, member_id[:40]):
        raise HTTPException(404, NO_SUCH_MEMBER)
    return RedirectResponse(f"/tables/{table.id}?done=removed", status_code=303)


@router.post("/tables/{table_id}/leave", name="leave_table", include_in_schema=False)
async def leave(table_id: str, store: StoreDep, player: PlayerDep) -> Response:
    table, _ = await member_of(store, table_id, player)
    await to_thread.run_sync(store.leave_table, table.id, player)
    return RedirectResponse("/tables?left=1", status_code=303)


# -- Race the table ---------------------------------------------------------------------------


@router.post("/tables/{table_id}/race", name="race_table", include_in_schema=False)
async def race_table(
    request: Request,
    table_id: str,
    store: StoreDep,
    player: PlayerDep,
    code: Annotated[str, Form(max_length=500)] = "",
    rules_word: Annotated[Literal["easy", "classic"], Form(alias="rules")] = "easy",
) -> Response:
    """A race room for the table: on the code typed, else a random winnable deal of the rules
    chosen (as the New game window's "Race a friend"); the members' pages are told at once."""
    table, _ = await member_of(store, table_id, player)
    if code.strip():
        dealt = race_code(code.strip())
    else:
        dealt = await to_thread.run_sync(winnable_code, Rules.from_word(rules_word), None, STANDARD)
    race = await to_thread.run_sync(make_race, store, player, dealt)  # its refusals as the races'
    await to_thread.run_sync(store.set_table_race, table.id, race.id)
    await signals_of(request).publish(table_signal(table.id))
    if is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": f"/race/{race.id}"})
    return RedirectResponse(f"/race/{race.id}", status_code=303)


async def table_slot(
    request: Request, table_id: str, store: StoreDep, player: PlayerDep
) -> tuple[FriendsTable, Any]:
    """A stream slot (the race streams' bounds, shared with them: 429 per player and per
    address, 503 per server) and the table (404 for anyone not in it), before the stream begins."""
    slots = cast(StreamSlots, request.app.state.race_streams)
    give_back = slots.take(player, request.client.host if request.client else "")
    try:
        table, _ = await member_of(store, table_id, player)
    except BaseException:
        give_back()
        raise
    return table, give_back


@router.get(
    "/tables/{table_id}/events",
    response_class=EventSourceResponse,
    name="table_events",
    include_in_schema=False,
)
async def table_events(
    request: Request,
    taken: Annotated[Any, Depends(table_slot)],
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
) -> AsyncIterable[ServerSentEvent]:
    """The table's invitations, live (text/event-stream): the "Race the table" offer whenever a
    member makes a race for it, a keep-alive comment meanwhile."""
    table, give_back = cast(tuple[FriendsTable, Any], taken)
    signals = signals_of(request)
    listener = signals.listen(table_signal(table.id))
    shown = request.query_params.get("race", "")[:40] or None
    closing: asyncio.Event = request.app.state.race_streams.closing
    try:
        yield ServerSentEvent(comment="table", retry=RETRY_MS)
        while not closing.is_set():
            found = await to_thread.run_sync(store.table, table.id)
            if found is None or await to_thread.run_sync(store.membership, table.id, player) is None:
                break
            if found.race and found.race != shown:
                shown = found.race
                context = {"request": request, "race_id": found.race, "table": found}
                html = bytes(pages.blocks("table.html", ["race_offer"], context).body).decode()
                yield ServerSentEvent(raw_data=html, id=found.race)
            wait = signals.poll_s or idle_wait()
            await listener.wait(wait)  # woken by a signal, or the keep-alive's turn
    finally:
        signals.stop_listening(listener)
        give_back()
