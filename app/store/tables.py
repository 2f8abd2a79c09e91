"""Tables of friends (issue 39): the store's part, as an interface and its pure rules.

A **table** is a small group of players who see each other's daily results. It has a name,
its maker, and an **invite token** (the last part of its link ``/t/<token>``): whoever opens
the link may join. The maker renames it, removes members and renews the token (the old one
stops at once); any member leaves. A **membership** has an id of its own (what pages and the
API name a member by: never the player's own id).

Limits: a player is in at most :data:`MAX_TABLES_PER_PLAYER` tables, a table has at most
:data:`MAX_MEMBERS` members. A join past either is refused (:class:`TableFull`,
:class:`TooManyTables`), nothing changed. The store checks both in the transaction that
joins (the table's row and the player's row locked), so two joins at once never pass a limit.

When the maker leaves (or is deleted) the member who joined first after them becomes the
maker; a table nobody is in is removed. When identity's merge brings a player's history to
another player (:meth:`app.store.identity.Identities.become`), the memberships come too (a
table both were in keeps the one membership of the player who stays; the maker stays maker).

The boards are made from the members' daily attempts by :mod:`app.web.presentation.tables`
(the past before today set-based: :meth:`Tables.table_past`).
"""

from __future__ import annotations

import abc
import datetime as dt
import secrets
from dataclasses import dataclass
from typing import Final

from app.store.attempts import AttemptRow, Streaks

MAX_TABLES_PER_PLAYER: Final = 20
MAX_MEMBERS: Final = 1000


class TableRefused(ValueError):
    """A change to a table that its rules refuse; nothing was changed."""


class NoSuchInvite(TableRefused):
    """The invite token is unknown, or was renewed."""


class TableFull(TableRefused):
    """The table has :data:`MAX_MEMBERS` members already."""


class TooManyTables(TableRefused):
    """The player is in :data:`MAX_TABLES_PER_PLAYER` tables already."""


@dataclass(frozen=True, slots=True)
class FriendsTable:
    id: str
    name: str
    maker: str | None
    """The maker's player id (never shown; pages compare it with the player asking)."""
    invite: str
    """The invite token: the link's last part."""
    members: int
    created: float
    race: str | None = None
    """The latest race made for the table ("Race the table"), if any."""
    race_at: float | None = None


@dataclass(frozen=True, slots=True)
class Member:
    id: str
    """The membership's id: what pages and the API name a member by."""
    table_id: str
    player: str
    name: str | None
    """Their display name now (``None``: anonymous)."""
    maker: bool
    joined: float


@dataclass(frozen=True, slots=True)
class MemberPast:
    """What a member's dailies before a day give the all-time board (those days are over)."""

    streaks: Streaks
    """``streaks(their attempts before the day, the day)``: runs ending the day before."""
    won: int
    """Their ranked dailies won."""
    best: AttemptRow | None
    """Their best ranked daily in the daily's order (``board_key``, ``at``), if any."""


def new_table_id() -> str:
    return secrets.token_urlsafe(9)


def new_member_id() -> str:
    return secrets.token_urlsafe(9)


def new_invite() -> str:
    """An invite token: 128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


class Tables(abc.ABC):
    """The store's table methods (mixed into :class:`app.store.base.GameStore`). Blocking."""

    max_tables_per_player: int = MAX_TABLES_PER_PLAYER
    max_table_members: int = MAX_MEMBERS

    @abc.abstractmethod
    def make_table(self, player: str, name: str) -> FriendsTable:
        """A new table named ``name`` (cleaned already), with ``player`` its maker and first
        member; :class:`TooManyTables` when they are in 20 already."""

    @abc.abstractmethod
    def table(self, table_id: str) -> FriendsTable | None: ...

    @abc.abstractmethod
    def invited_table(self, token: str) -> FriendsTable | None:
        """The table whose invite token is ``token`` now (``None``: unknown or renewed)."""

    @abc.abstractmethod
    def join_table(self, token: str, player: str) -> FriendsTable:
        """``player`` joins the table of the invite (a member already: nothing changes);
        :class:`NoSuchInvite`, :class:`TableFull` or :class:`TooManyTables`, nothing changed."""

    @abc.abstractmethod
    def player_tables(self, player: str) -> list[FriendsTable]:
        """The player's tables, the one joined first first."""

    @abc.abstractmethod
    def table_members(self, table_id: str) -> list[Member]:
        """The table's members, the maker first, then in the order they joined."""

    @abc.abstractmethod
    def membership(self, table_id: str, player: str) -> Member | None: ...

    @abc.abstractmethod
    def rename_table(self, table_id: str, name: str) -> bool:
        """Whether there was such a table."""

    @abc.abstractmethod
    def renew_invite(self, table_id: str) -> str | None:
        """A new invite token (the old one stops at once); ``None``: no such table."""

    @abc.abstractmethod
    def remove_member(self, table_id: str, member_id: str) -> bool:
        """The membership goes (see :meth:`leave_table`) and the invite is renewed, so that the
        removed member's link stops too; whether it was the table's."""

    @abc.abstractmethod
    def leave_table(self, table_id: str, player: str) -> bool:
        """The player leaves; whether they were a member. A maker who leaves hands the table
        to the member who joined first after them; a table left empty is removed."""

    @abc.abstractmethod
    def set_table_race(self, table_id: str, race_id: str) -> None:
        """The race just made for the table (its members' pages offer it)."""

    @abc.abstractmethod
    def table_attempts(self, table_id: str, first_day: str | None, last_day: str) -> list[AttemptRow]:
        """The members' daily rows (ranked and late) from ``first_day`` (``None``: the first)
        to ``last_day``, both included, each member's in the order of their days."""

    @abc.abstractmethod
    def table_past(self, table_id: str, day: dt.date) -> dict[str, MemberPast]:
        """Each member's :class:`MemberPast` of their dailies before ``day``, by player (a
        member with none is left out). Set-based in SQL: the streaks by a window over the
        members' days, the wins and the best by one grouped read; never a year of rows."""
