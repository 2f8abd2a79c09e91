"""Tables of friends as JSON (issue 39), for the player asking (cookie or personal token).

* ``POST /api/tables`` ``{"name"}`` → 201 ``{"id", "name", "invite_url"}``; 409 for a player in
  20 tables; 422 for a name the display names' rules refuse;
* ``POST /api/tables/join`` ``{"token"}`` → 200 ``{"id", "name"}``; 404 for a token unknown or
  renewed; 409 for a full table or a player in 20 tables;
* ``GET /api/tables`` → the player's tables;
* ``GET /api/tables/{id}`` → the table, its members and its three boards; 404 for anyone not
  a member;
* ``POST /api/tables/{id}/invite`` → 201 ``{"invite_url"}`` (the maker only, else 403);
* ``DELETE /api/tables/{id}/members/me`` → 204 (leave);
  ``DELETE /api/tables/{id}/members/{member_id}`` → 204 (the maker only, else 403).

A member's ``id`` names the membership, never the player. Errors are ``HTTPException`` s: the
app's handlers give them their shape (app/web/errors.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from anyio import to_thread
from fastapi import APIRouter, Body, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from app.i18n import current_locale
from app.store.tables import TableRefused
from app.web.deps import MemberIdPath, PlayerDep, StoreDep, TableIdPath
from app.web.presentation.table_page import boards, invite_url
from app.web.table_access import (
    LEAVE_INSTEAD,
    NO_SUCH_MEMBER,
    NO_SUCH_TABLE,
    BadDisplayName,
    invite_token,
    maker_of,
    member_of,
    refusal,
    table_name,
)

router = APIRouter(prefix="/api/tables", tags=["tables"])


def _problems(*codes: int) -> dict[int | str, dict[str, Any]]:
    words = {
        403: "Only the table's maker may do that",
        404: "No such table of yours (or an invite unknown or renewed)",
        409: "A full table (1,000 members), or a player in 20 tables already",
        422: "A name the display names' rules refuse (empty, too long, control characters)",
        429: "Too many tables made or joined from this address just now",
    }
    return {code: {"description": words[code]} for code in codes}


class NameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200, examples=["Friday club"])


class TokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(
        pattern=r"^[A-Za-z0-9_-]{1,64}$", description="The invite link's last part (`/t/<token>`)"
    )


class TableMade(BaseModel):
    id: str
    name: str
    invite_url: str


class TableJoined(BaseModel):
    id: str
    name: str


class TableListed(BaseModel):
    id: str
    name: str
    members: int
    maker: bool = Field(description="Whether you made it (or it passed to you)")


class InviteOut(BaseModel):
    invite_url: str


class MemberOut(BaseModel):
    id: str = Field(description="The membership's id (never the player's own)")
    name: str = Field(description="The display name, or “Anonymous”")
    maker: bool


class TodayOut(BaseModel):
    member: str = Field(description="The membership's id")
    name: str
    played: bool = Field(description="Whether the member's attempt of today counts on the board yet")
    rank: int | None = Field(default=None, description="Place among the members' ranked attempts")
    won: bool | None = None
    score: int | None = None
    seconds: float | None = None
    hints: int | None = None
    ranked: bool | None = Field(
        default=None, description="False for an attempt played faster than a person can"
    )


class WeekOut(BaseModel):
    member: str
    name: str
    days_won: int
    score: int
    seconds: float
    days: list[str] = Field(
        description="Monday to Sunday (UTC): won, blocked, unfinished, playing, late, not-played or future"
    )


class AllTimeOut(BaseModel):
    member: str
    name: str
    current_streak: int
    longest_streak: int
    dailies_won: int
    best_score: int | None = Field(description="The best daily attempt's score (in the daily's order)")
    best_day: str | None
    best_par: int | None = Field(description="That deal's par, when known and allowed")


class TableOut(BaseModel):
    id: str
    name: str
    members: list[MemberOut]
    today: list[TodayOut] = Field(
        description="The members' counted attempts of today in the day's order (scores once your"
        " attempt has ended or the day is over, as the day's board), then who has not played"
    )
    par: int | None = Field(description="Today's par, when the daily's rules allow it")
    week: list[WeekOut]
    all_time: list[AllTimeOut]


def _name(name: str | None) -> str:
    return name or current_locale().gettext("Anonymous")


@router.post("", status_code=201, response_model=TableMade, responses=_problems(409, 422, 429))
def make_table(
    request: Request, body: Annotated[NameIn, Body()], store: StoreDep, player: PlayerDep
) -> TableMade:
    """Make a table; you are its maker and first member."""
    try:
        table = store.make_table(player, table_name(body.name))
    except BadDisplayName as error:
        raise HTTPException(422, str(error)) from None
    except TableRefused as error:
        raise refusal(error) from None
    return TableMade(id=table.id, name=table.name, invite_url=invite_url(request, table))


@router.post("/join", response_model=TableJoined, responses=_problems(404, 409, 429))
def join_table(body: Annotated[TokenIn, Body()], store: StoreDep, player: PlayerDep) -> TableJoined:
    """Join the table of an invite (a member already: nothing changes)."""
    try:
        table = store.join_table(invite_token(body.token), player)
    except TableRefused as error:
        raise refusal(error) from None
    return TableJoined(id=table.id, name=table.name)


@router.get("", response_model=list[TableListed])
def list_tables(store: StoreDep, player: PlayerDep) -> list[TableListed]:
    """Your tables, the one joined first first."""
    return [
        TableListed(id=t.id, name=t.name, members=t.members, maker=t.maker == player)
        for t in store.player_tables(player)
    ]


@router.get("/{table_id}", response_model=TableOut, responses=_problems(404))
async def get_table(request: Request, table_id: TableIdPath, store: StoreDep, player: PlayerDep) -> TableOut:
    """The table, its members and its boards (members only)."""
    table, _ = await member_of(store, table_id, player)

    def read() -> TableOut:
        members = store.table_members(table.id)
        found = boards(request, store, table, members, player)
        today = []
        for row in found.today:
            a = row.attempt if found.opened else None
            out = TodayOut(
                member=row.member.id,
                name=_name(row.member.name),
                played=row.attempt is not None,
                rank=a.rank if a else None,
                won=bool(a.won) if a else None,
                score=a.score if a else None,
                seconds=a.seconds if a else None,
                hints=a.hints if a else None,
                ranked=bool(a.plausible) if a else None,
            )
            today.append(out)
        return TableOut(
            id=table.id,
            name=table.name,
            members=[MemberOut(id=m.id, name=_name(m.name), maker=m.maker) for m in members],
            today=today,
            par=found.par,
            week=[
                WeekOut(
                    member=r.member.id,
                    name=_name(r.member.name),
                    days_won=r.days_won,
                    score=r.score,
                    seconds=r.seconds,
                    days=r.days,
                )
                for r in found.week
            ],
            all_time=[
                AllTimeOut(
                    member=r.member.id,
                    name=_name(r.member.name),
                    current_streak=r.current_streak,
                    longest_streak=r.longest_streak,
                    dailies_won=r.dailies_won,
                    best_score=r.best.score if r.best else None,
                    best_day=r.best.day if r.best else None,
                    best_par=r.best_par,
                )
                for r in found.all_time
            ],
        )

    return await to_thread.run_sync(read)


@router.post("/{table_id}/invite", status_code=201, response_model=InviteOut, responses=_problems(403, 404))
async def renew_invite(
    request: Request, table_id: TableIdPath, store: StoreDep, player: PlayerDep
) -> InviteOut:
    """A new invite link (the maker only); the old one stops at once."""
    table, _ = await maker_of(store, table_id, player)
    token = await to_thread.run_sync(store.renew_invite, table.id)
    if token is None:
        raise HTTPException(404, NO_SUCH_TABLE)
    return InviteOut(invite_url=f"{request.base_url}t/{token}")


NO_CONTENT: Final[dict[int | str, dict[str, Any]]] = {204: {"description": "Done"}}


@router.delete("/{table_id}/members/me", status_code=204, responses={**NO_CONTENT, **_problems(404)})
async def leave_table(table_id: TableIdPath, store: StoreDep, player: PlayerDep) -> Response:
    """Leave the table (a maker who leaves hands it to the member who joined first after them)."""
    table, _ = await member_of(store, table_id, player)
    await to_thread.run_sync(store.leave_table, table.id, player)
    return Response(status_code=204)


@router.delete(
    "/{table_id}/members/{member_id}", status_code=204, responses={**NO_CONTENT, **_problems(403, 404, 409)}
)
async def remove_member(
    table_id: TableIdPath, member_id: MemberIdPath, store: StoreDep, player: PlayerDep
) -> Response:
    """Remove a member (the maker only); the invite is renewed, so their old link stops too."""
    table, me = await maker_of(store, table_id, player)
    if member_id == me.id:
        raise HTTPException(409, LEAVE_INSTEAD)
    if not await to_thread.run_sync(store.remove_member, table.id, member_id[:40]):
        raise HTTPException(404, NO_SUCH_MEMBER)
    return Response(status_code=204)
