"""Tables of friends in the in-process store (see :mod:`app.store.tables`): mixed into
:class:`app.store.memory.MemoryStore`, under its one lock."""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections.abc import Callable

from app.store.attempts import AttemptRow, attempt_of, counted, day_text, streaks
from app.store.tables import (
    FriendsTable,
    Member,
    MemberPast,
    NoSuchInvite,
    TableFull,
    Tables,
    TooManyTables,
    new_invite,
    new_member_id,
    new_table_id,
)


class MemoryTables(Tables):
    """The table methods of :class:`app.store.memory.MemoryStore`."""

    _lock: threading.RLock
    _clock: Callable[[], float]
    _daily: dict[tuple[str, str], AttemptRow]

    _display: Callable[[str], str | None]

    def _table_tables(self) -> None:
        self._tables: dict[str, FriendsTable] = {}
        self._members: dict[str, Member] = {}  # membership id → member (its name not kept)

    def _count(self, table_id: str) -> int:
        return sum(m.table_id == table_id for m in self._members.values())

    def _set_count(self, table_id: str) -> None:
        found = self._tables.get(table_id)
        if found is not None:
            self._tables[table_id] = dataclasses.replace(found, members=self._count(table_id))

    def _tables_of(self, player: str) -> list[Member]:
        return sorted((m for m in self._members.values() if m.player == player), key=lambda m: m.joined)

    def _named(self, member: Member) -> Member:
        table = self._tables[member.table_id]
        return dataclasses.replace(
            member, name=self._display(member.player), maker=table.maker == member.player
        )

    def make_table(self, player: str, name: str) -> FriendsTable:
        with self._lock:
            if len(self._tables_of(player)) >= self.max_tables_per_player:
                raise TooManyTables(player)
            now = self._clock()
            table = FriendsTable(new_table_id(), name, player, new_invite(), 1, now)
            self._tables[table.id] = table
            member = Member(new_member_id(), table.id, player, None, True, now)
            self._members[member.id] = member
            return table

    def table(self, table_id: str) -> FriendsTable | None:
        with self._lock:
            return self._tables.get(table_id)

    def invited_table(self, token: str) -> FriendsTable | None:
        with self._lock:
            return next((t for t in self._tables.values() if t.invite == token), None)

    def join_table(self, token: str, player: str) -> FriendsTable:
        with self._lock:
            table = self.invited_table(token)
            if table is None:
                raise NoSuchInvite(token)
            if self.membership(table.id, player) is not None:
                return table
            if table.members >= self.max_table_members:
                raise TableFull(table.id)
            if len(self._tables_of(player)) >= self.max_tables_per_player:
                raise TooManyTables(player)
            member = Member(new_member_id(), table.id, player, None, False, self._clock())
            self._members[member.id] = member
            self._set_count(table.id)
            return self._tables[table.id]

    def player_tables(self, player: str) -> list[FriendsTable]:
        with self._lock:
            return [self._tables[m.table_id] for m in self._tables_of(player)]

    def table_members(self, table_id: str) -> list[Member]:
        with self._lock:
            found = [self._named(m) for m in self._members.values() if m.table_id == table_id]
        return sorted(found, key=lambda m: (not m.maker, m.joined, m.id))

    def membership(self, table_id: str, player: str) -> Member | None:
        with self._lock:
            found = next(
                (m for m in self._members.values() if m.table_id == table_id and m.player == player), None
            )
            return self._named(found) if found is not None else None

    def rename_table(self, table_id: str, name: str) -> bool:
        with self._lock:
            found = self._tables.get(table_id)
            if found is None:
                return False
            self._tables[table_id] = dataclasses.replace(found, name=name)
            return True

    def renew_invite(self, table_id: str) -> str | None:
        with self._lock:
            found = self._tables.get(table_id)
            if found is None:
                return None
            token = new_invite()
            self._tables[table_id] = dataclasses.replace(found, invite=token)
            return token

    def _drop(self, member: Member) -> None:
        """The membership goes; the maker passes on; an empty table goes (the lock held)."""
        del self._members[member.id]
        table = self._tables[member.table_id]
        left = sorted((m for m in self._members.values() if m.table_id == table.id), key=lambda m: m.joined)
        if not left:
            del self._tables[table.id]
            return
        maker = table.maker if table.maker != member.player else left[0].player
        self._tables[table.id] = dataclasses.replace(table, maker=maker, members=len(left))

    def remove_member(self, table_id: str, member_id: str) -> bool:
        with self._lock:
            found = self._members.get(member_id)
            if found is None or found.table_id != table_id:
                return False
            self._drop(found)
            if table_id in self._tables:  # the removed member's link stops with everyone's
                self._tables[table_id] = dataclasses.replace(self._tables[table_id], invite=new_invite())
            return True

    def leave_table(self, table_id: str, player: str) -> bool:
        with self._lock:
            found = next(
                (m for m in self._members.values() if m.table_id == table_id and m.player == player), None
            )
            if found is None:
                return False
            self._drop(found)
            return True

    def set_table_race(self, table_id: str, race_id: str) -> None:
        with self._lock:
            found = self._tables.get(table_id)
            if found is not None:
                self._tables[table_id] = dataclasses.replace(found, race=race_id, race_at=self._clock())

    def table_attempts(self, table_id: str, first_day: str | None, last_day: str) -> list[AttemptRow]:
        with self._lock:
            players = {m.player for m in self._members.values() if m.table_id == table_id}
            rows = [
                row
                for (day, player), row in self._daily.items()
                if player in players and (first_day is None or day >= first_day) and day <= last_day
            ]
        return sorted(rows, key=lambda row: (row.player, row.day))

    def table_past(self, table_id: str, day: dt.date) -> dict[str, MemberPast]:
        yesterday = day_text(day - dt.timedelta(days=1))
        mine: dict[str, list[AttemptRow]] = {}
        for row in self.table_attempts(table_id, None, yesterday):
            mine.setdefault(row.player, []).append(row)
        found = {}
        for player, rows in mine.items():
            ranked = [row for row in rows if counted(row, True)]
            best = min(ranked, key=lambda row: (row.board_key, row.at), default=None)
            kept = streaks((attempt_of(row, None) for row in rows), day)
            found[player] = MemberPast(kept, sum(row.won for row in ranked), best)
        return found

    # -- identity's merge and deletion (the lock held) ----------------------------------------

    def _merge_tables(self, old: str, new: str) -> None:
        for member in [m for m in self._members.values() if m.player == old]:
            table = self._tables[member.table_id]
            if any(m.table_id == table.id and m.player == new for m in self._members.values()):
                del self._members[member.id]
            else:
                self._members[member.id] = dataclasses.replace(member, player=new)
            maker = new if table.maker == old else table.maker
            self._tables[table.id] = dataclasses.replace(table, maker=maker, members=self._count(table.id))

    def _delete_tables_of(self, player: str) -> None:
        for member in [m for m in self._members.values() if m.player == player]:
            self._drop(member)
