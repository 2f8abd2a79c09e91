"""Tables of friends in the SQL store (SQLite and PostgreSQL): the statements and the jobs.

Mixed into :class:`app.store.database.sql.SqlStore`. A join locks the player's row, then the
table's (PostgreSQL: ``FOR UPDATE``; SQLite's writes are one at a time), counts, and writes:
two joins at once never pass a limit. The rules are :mod:`app.store.tables`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from typing import Any, Final, TypeVar

from sqlalchemy import bindparam, delete, exists, func, insert, literal_column, select, text, update
from sqlalchemy.orm import aliased

from app.store.attempts import FIELDS, Attempt, AttemptRow, Streaks, day_text
from app.store.database import queries as q
from app.store.database.queries import Db, run
from app.store.database.schema import daily, friends_tables, players, table_members
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

T = TypeVar("T")
t = friends_tables
m = table_members

_TABLE: Final = (t.c.id, t.c.name, t.c.maker, t.c.invite, t.c.members, t.c.created, t.c.race, t.c.race_at)
TABLE = select(*_TABLE).where(t.c.id == bindparam("b_id"))
TABLE_TO_CHANGE = TABLE.with_for_update()
INVITED = select(*_TABLE).where(t.c.invite == bindparam("b_token"))
INVITED_TO_JOIN = INVITED.with_for_update()
NEW_TABLE = insert(t).values(
    id=bindparam("b_id"),
    name=bindparam("b_name"),
    maker=bindparam("b_maker"),
    invite=bindparam("b_invite"),
    members=1,
    created=bindparam("b_now"),
)
NEW_MEMBER = insert(m).values(
    id=bindparam("b_id"),
    table_id=bindparam("b_table"),
    player=bindparam("b_player"),
    joined=bindparam("b_now"),
)
LOCK_PLAYER = select(players.c.id).where(players.c.id == bindparam("b_id")).with_for_update()
PLAYER_COUNT = select(func.count()).select_from(m).where(m.c.player == bindparam("b_player"))
_MEMBER: Final = (m.c.id, m.c.table_id, m.c.player, players.c.display_name, t.c.maker, m.c.joined)
_MEMBERS = select(*_MEMBER).join(t, t.c.id == m.c.table_id).outerjoin(players, players.c.id == m.c.player)
MEMBERSHIP = _MEMBERS.where(m.c.table_id == bindparam("b_table"), m.c.player == bindparam("b_player"))
MEMBERS = _MEMBERS.where(m.c.table_id == bindparam("b_table")).order_by(m.c.joined, m.c.id)
MEMBER_BY_ID = _MEMBERS.where(m.c.table_id == bindparam("b_table"), m.c.id == bindparam("b_id"))
PLAYER_TABLES = (
    select(*_TABLE)
    .join(m, m.c.table_id == t.c.id)
    .where(m.c.player == bindparam("b_player"))
    .order_by(m.c.joined)
)
RENAME = update(t).where(t.c.id == bindparam("b_id")).values(name=bindparam("b_name"))
RENEW = update(t).where(t.c.id == bindparam("b_id")).values(invite=bindparam("b_invite"))
SET_RACE = (
    update(t).where(t.c.id == bindparam("b_id")).values(race=bindparam("b_race"), race_at=bindparam("b_now"))
)
COUNT_UP = update(t).where(t.c.id == bindparam("b_id")).values(members=t.c.members + 1)
DELETE_MEMBER = delete(m).where(m.c.id == bindparam("b_id"))
FIRST_LEFT = (
    select(m.c.player)
    .where(m.c.table_id == bindparam("b_table"))
    .order_by(m.c.joined, m.c.id)
    .limit(literal_column("1"))
)
COUNT_MEMBERS = select(func.count()).select_from(m).where(m.c.table_id == bindparam("b_table"))
SET_MAKER = (
    update(t)
    .where(t.c.id == bindparam("b_id"))
    .values(maker=bindparam("b_maker"), members=bindparam("b_members"))
)
DELETE_TABLE = delete(t).where(t.c.id == bindparam("b_id"))
ATTEMPTS = (
    select(*(daily.c[name] for name in FIELDS))
    .join(m, m.c.player == daily.c.player)
    .where(
        m.c.table_id == bindparam("b_table"),
        daily.c.day >= bindparam("b_first"),
        daily.c.day <= bindparam("b_last"),
    )
)

# The all-time board's past, set-based (docs/performance.md, "Tables of friends"): a day as a
# number, so that a run of days is the days whose number minus their row number is the same.
_DAY_NUMBER: Final = {
    "sqlite": "CAST(julianday({}) AS INTEGER)",
    "postgresql": "(CAST({} AS DATE) - DATE '2000-01-01')",
}
_PAST_RUNS = """
WITH days AS (
  SELECT d.player AS player, {n} AS n, d.won AS won
  FROM tp_daily d JOIN tp_table_members m ON m.player = d.player
  WHERE m.table_id = :b_table AND d.day < :b_day
    AND NOT d.late AND d.ended AND d.last_action IS NOT NULL
),
runs AS (
  SELECT player, 0 AS kind, n - ROW_NUMBER() OVER (PARTITION BY player ORDER BY n) AS g, n FROM days
  UNION ALL
  SELECT player, 1, n - ROW_NUMBER() OVER (PARTITION BY player ORDER BY n), n FROM days WHERE won
),
lengths AS (SELECT player, kind, COUNT(*) AS length, MAX(n) AS last FROM runs GROUP BY player, kind, g)
SELECT player, kind, MAX(length), MAX(CASE WHEN last = {yesterday} THEN length ELSE 0 END)
FROM lengths GROUP BY player, kind
"""
_PAST_BEST = """
SELECT {fields}, wins FROM (
  SELECT {d_fields},
    ROW_NUMBER() OVER (PARTITION BY d.player ORDER BY d.board_key, d.at, d.day) AS k,
    SUM(CASE WHEN d.won THEN 1 ELSE 0 END) OVER (PARTITION BY d.player) AS wins
  FROM tp_daily d JOIN tp_table_members m ON m.player = d.player
  WHERE m.table_id = :b_table AND d.day < :b_day AND NOT d.late AND d.last_action IS NOT NULL
) ranked WHERE k = 1
"""
PAST_RUNS: Final = {
    name: text(_PAST_RUNS.format(n=number.format("d.day"), yesterday=number.format(":b_yesterday")))
    for name, number in _DAY_NUMBER.items()
}
PAST_BEST: Final = text(
    _PAST_BEST.format(fields=", ".join(FIELDS), d_fields=", ".join(f"d.{name}" for name in FIELDS))
)
_other = aliased(m)
MOVE_MEMBERS = (
    update(m)
    .where(
        m.c.player == bindparam("b_old"),
        ~exists(
            select(_other.c.id).where(
                _other.c.table_id == m.c.table_id, _other.c.player == bindparam("b_new")
            )
        ),
    )
    .values(player=bindparam("b_new"))
)
DROP_MEMBERS = delete(m).where(m.c.player == bindparam("b_old"))
MOVE_MAKERS = update(t).where(t.c.maker == bindparam("b_old")).values(maker=bindparam("b_new"))
RECOUNT = (
    update(t)
    .where(t.c.id.in_(select(m.c.table_id).where(m.c.player == bindparam("b_new"))))
    .values(members=select(func.count()).select_from(m).where(m.c.table_id == t.c.id).scalar_subquery())
)
MEMBERSHIPS = select(m.c.id, m.c.table_id).where(m.c.player == bindparam("b_player"))


def _table(row: Any) -> FriendsTable:
    return FriendsTable(row[0], row[1], row[2], row[3], int(row[4]), row[5], row[6], row[7])


def _member(row: Any) -> Member:
    member_id, table_id, player, name, maker, joined = row
    return Member(member_id, table_id, player, name, maker == player, joined)


class SqlTables(Tables):
    """The table methods of :class:`app.store.database.sql.SqlStore`."""

    _clock: Callable[[], float]

    def _read(self, query: Callable[[Db], T]) -> T:
        raise NotImplementedError  # pragma: no cover - SqlStore's

    def _write(self, job: Callable[[Db], T]) -> T:
        raise NotImplementedError  # pragma: no cover - SqlStore's

    def _lock_player(self, db: Db, player: str, now: float) -> int:
        """The player's row locked (made if need be); how many tables they are in."""
        run(db, q.NEW_PLAYER, {"b_id": player, "b_created": now, "b_updated": now})
        run(db, LOCK_PLAYER, {"b_id": player}).fetchone()
        return int(run(db, PLAYER_COUNT, {"b_player": player}).fetchone()[0])

    def make_table(self, player: str, name: str) -> FriendsTable:
        def job(db: Db) -> FriendsTable:
            now = self._clock()
            if self._lock_player(db, player, now) >= self.max_tables_per_player:
                raise TooManyTables(player)
            table = FriendsTable(new_table_id(), name, player, new_invite(), 1, now)
            run(
                db,
                NEW_TABLE,
                {"b_id": table.id, "b_name": name, "b_maker": player, "b_invite": table.invite, "b_now": now},
            )
            run(
                db,
                NEW_MEMBER,
                {"b_id": new_member_id(), "b_table": table.id, "b_player": player, "b_now": now},
            )
            return table

        return self._write(job)

    def table(self, table_id: str) -> FriendsTable | None:
        found = self._read(lambda db: run(db, TABLE, {"b_id": table_id}).fetchone())
        return _table(found) if found is not None else None

    def invited_table(self, token: str) -> FriendsTable | None:
        found = self._read(lambda db: run(db, INVITED, {"b_token": token}).fetchone())
        return _table(found) if found is not None else None

    def join_table(self, token: str, player: str) -> FriendsTable:
        def job(db: Db) -> FriendsTable:
            now = self._clock()
            count = self._lock_player(db, player, now)
            found = run(db, INVITED_TO_JOIN, {"b_token": token}).fetchone()
            if found is None:
                raise NoSuchInvite(token)
            table = _table(found)
            if run(db, MEMBERSHIP, {"b_table": table.id, "b_player": player}).fetchone() is not None:
                return table
            if table.members >= self.max_table_members:
                raise TableFull(table.id)
            if count >= self.max_tables_per_player:
                raise TooManyTables(player)
            run(
                db,
                NEW_MEMBER,
                {"b_id": new_member_id(), "b_table": table.id, "b_player": player, "b_now": now},
            )
            run(db, COUNT_UP, {"b_id": table.id})
            return dataclasses.replace(table, members=table.members + 1)

        return self._write(job)

    def player_tables(self, player: str) -> list[FriendsTable]:
        rows = self._read(lambda db: run(db, PLAYER_TABLES, {"b_player": player}).fetchall())
        return [_table(row) for row in rows]

    def table_members(self, table_id: str) -> list[Member]:
        rows = self._read(lambda db: run(db, MEMBERS, {"b_table": table_id}).fetchall())
        found = [_member(row) for row in rows]
        return sorted(found, key=lambda member: not member.maker)  # stable: then as joined

    def membership(self, table_id: str, player: str) -> Member | None:
        found = self._read(
            lambda db: run(db, MEMBERSHIP, {"b_table": table_id, "b_player": player}).fetchone()
        )
        return _member(found) if found is not None else None

    def rename_table(self, table_id: str, name: str) -> bool:
        return bool(self._write(lambda db: run(db, RENAME, {"b_id": table_id, "b_name": name}).rowcount))

    def renew_invite(self, table_id: str) -> str | None:
        token = new_invite()
        changed = self._write(lambda db: run(db, RENEW, {"b_id": table_id, "b_invite": token}).rowcount)
        return token if changed else None

    def _drop(self, db: Db, table_id: str, member_id: str) -> bool:
        """The membership goes; the maker passes on; an empty table goes."""
        found = run(db, TABLE_TO_CHANGE, {"b_id": table_id}).fetchone()
        member = run(db, MEMBER_BY_ID, {"b_table": table_id, "b_id": member_id}).fetchone()
        if found is None or member is None:
            return False
        table = _table(found)
        run(db, DELETE_MEMBER, {"b_id": member_id})
        left = int(run(db, COUNT_MEMBERS, {"b_table": table_id}).fetchone()[0])
        if not left:
            run(db, DELETE_TABLE, {"b_id": table_id})
            return True
        maker = table.maker
        if maker == member[2]:
            maker = run(db, FIRST_LEFT, {"b_table": table_id}).fetchone()[0]
        run(db, SET_MAKER, {"b_id": table_id, "b_maker": maker, "b_members": left})
        return True

    def remove_member(self, table_id: str, member_id: str) -> bool:
        def job(db: Db) -> bool:
            if not self._drop(db, table_id, member_id):
                return False
            run(db, RENEW, {"b_id": table_id, "b_invite": new_invite()})  # the removed one's link stops
            return True

        return self._write(job)

    def leave_table(self, table_id: str, player: str) -> bool:
        def job(db: Db) -> bool:
            found = run(db, MEMBERSHIP, {"b_table": table_id, "b_player": player}).fetchone()
            return found is not None and self._drop(db, table_id, found[0])

        return self._write(job)

    def set_table_race(self, table_id: str, race_id: str) -> None:
        params = {"b_id": table_id, "b_race": race_id, "b_now": self._clock()}
        self._write(lambda db: run(db, SET_RACE, params))

    def table_attempts(self, table_id: str, first_day: str | None, last_day: str) -> list[AttemptRow]:
        params = {"b_table": table_id, "b_first": first_day or "", "b_last": last_day}
        rows = self._read(lambda db: run(db, ATTEMPTS, params).fetchall())
        # As Attempts (an AttemptRow's kind, nameless): the boards read them so, made once here.
        return sorted((Attempt(*row) for row in rows), key=lambda row: (row.player, row.day))

    def table_past(self, table_id: str, day: dt.date) -> dict[str, MemberPast]:
        yesterday = day_text(day - dt.timedelta(days=1))
        params = {"b_table": table_id, "b_day": day_text(day), "b_yesterday": yesterday}

        def read(db: Db) -> tuple[list[Any], list[Any]]:
            return run(db, PAST_RUNS, params).fetchall(), run(db, PAST_BEST, params).fetchall()

        runs, bests = self._read(read)
        found: dict[str, list[int]] = {}
        for player, kind, longest, current in runs:
            kept = found.setdefault(player, [0, 0, 0, 0])
            kept[2 * kind], kept[2 * kind + 1] = int(current), int(longest)
        out = {}
        for row in bests:
            best = AttemptRow(*row[: len(FIELDS)])
            out[best.player] = MemberPast(Streaks(*found.pop(best.player, [0, 0, 0, 0])), int(row[-1]), best)
        for player, kept in found.items():  # pragma: no cover - a finished day is a ranked one
            out[player] = MemberPast(Streaks(*kept), 0, None)
        return out

    # -- identity's merge and deletion, in their transaction ------------------------------------

    def _merge_tables(self, db: Db, old: str, new: str) -> None:
        params = {"b_old": old, "b_new": new}
        for statement in (MOVE_MEMBERS, DROP_MEMBERS, MOVE_MAKERS, RECOUNT):
            run(db, statement, params)

    def _delete_tables_of(self, db: Db, player: str) -> None:
        for member_id, table_id in run(db, MEMBERSHIPS, {"b_player": player}).fetchall():
            self._drop(db, table_id, member_id)
