"""Who may see and change a table of friends (issue 39), for its pages and its JSON API alike.

* a table's page, boards and API are for its members: anyone else gets 404, as for someone
  else's game (:func:`member_of`);
* renaming, removing a member and renewing the invite are the maker's: 403 for another member
  (:func:`maker_of`);
* a refused join is 404 (the invite is unknown or renewed) or 409 (the table is full, or the
  player is in 20 tables) (:func:`refusal`).

Errors are ``HTTPException`` s: the app's handlers give them their shape (app/web/errors.py).
"""

from __future__ import annotations

import re
from typing import Final

from anyio import to_thread
from fastapi import HTTPException

from app.i18n import N_, current_locale
from app.store import GameStore
from app.store.base import BadDisplayName, clean_display_name
from app.store.tables import (
    MAX_MEMBERS,
    MAX_TABLES_PER_PLAYER,
    FriendsTable,
    Member,
    NoSuchInvite,
    TableFull,
    TableRefused,
    TooManyTables,
)
from app.web.problems import Refused

NO_SUCH_TABLE: Final = N_("No such table of yours")
NO_SUCH_INVITE: Final = N_(
    "This invite link does not work: it may have been renewed. Ask a member for the new one."
)
TABLE_FULL: Final = N_("This table is full: a table has at most %(count)s members.")
TOO_MANY_TABLES: Final = N_(
    "You are in %(count)s tables already, the most a player can be in. Leave one first."
)
MAKER_ONLY: Final = N_("Only the table's maker can do that")
NO_SUCH_MEMBER: Final = N_("No such member of this table")
LEAVE_INSTEAD: Final = N_("You cannot remove yourself: leave the table instead.")
ID_RULE: Final = re.compile(r"[A-Za-z0-9_-]{1,40}")
INVITE_RULE: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")


def refusal(error: TableRefused) -> HTTPException:
    """The answer to a refused join or a refused new table, in the request's language, with
    the API's ``error`` code (app/web/problems.py)."""
    words = current_locale()
    if isinstance(error, NoSuchInvite):
        return Refused(404, NO_SUCH_INVITE, "no_such_invite")
    if isinstance(error, TableFull):
        return Refused(409, words.gettext(TABLE_FULL) % {"count": MAX_MEMBERS}, "table_full")
    if isinstance(error, TooManyTables):
        message = words.gettext(TOO_MANY_TABLES) % {"count": MAX_TABLES_PER_PLAYER}
        return Refused(409, message, "too_many_tables")
    return Refused(409, str(error), "table_refused")  # pragma: no cover - every refusal is one of those


def invite_token(text: str) -> str:
    """An invite link's token as the app makes them (URL-safe, 64 characters at most); any
    other text (a NUL byte, which PostgreSQL refuses; a path) is the unknown invite's 404,
    before any database sees it."""
    if not INVITE_RULE.fullmatch(text):
        raise refusal(NoSuchInvite(text[:64]))
    return text


def table_name(text: str) -> str:
    """A table's name as kept, by the display names' rules (invisible and control characters
    refused); :class:`BadDisplayName` with the reason."""
    return clean_display_name(text)


async def member_of(store: GameStore, table_id: str, player: str) -> tuple[FriendsTable, Member]:
    """The table and the player's membership; 404 for an unknown table or a player not in it."""
    if not ID_RULE.fullmatch(table_id):
        raise HTTPException(404, NO_SUCH_TABLE)

    def read() -> tuple[FriendsTable | None, Member | None]:
        return store.table(table_id), store.membership(table_id, player)

    table, member = await to_thread.run_sync(read)
    if table is None or member is None:
        raise HTTPException(404, NO_SUCH_TABLE)
    return table, member


async def maker_of(store: GameStore, table_id: str, player: str) -> tuple[FriendsTable, Member]:
    """As :func:`member_of`, and 403 for a member who is not the maker."""
    table, member = await member_of(store, table_id, player)
    if not member.maker:
        raise HTTPException(403, MAKER_ONLY)
    return table, member


__all__ = [
    "LEAVE_INSTEAD",
    "NO_SUCH_MEMBER",
    "NO_SUCH_TABLE",
    "BadDisplayName",
    "maker_of",
    "member_of",
    "refusal",
    "table_name",
]
