"""The SQL schema's versions: a new database created from the definitions
(:mod:`app.store.database.schema`), an older one migrated step by step.

``tp_schema`` holds one row: the schema version the database is at. On start :func:`migrate`
takes a lock (PostgreSQL: a transaction-level advisory lock; SQLite: ``BEGIN IMMEDIATE``), so of
several processes starting at once one creates or migrates and the others then see it done. A
database at a newer version than this code knows is refused rather than written to.

Step ``n`` of :data:`MIGRATIONS` takes a database from version ``n - 1`` to ``n`` (it receives
the connection, inside the transaction); every step from 2 to :data:`SCHEMA_VERSION` is one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sqlalchemy import Connection, Table, insert, inspect, select, text, update

from app.store.database.schema import (
    CODE_LENGTH,
    IDENTITY_TABLES,
    KIND_LENGTH,
    SCHEMA_VERSION,
    answers,
    daily,
    daily_pace,
    deals,
    friends_tables,
    games,
    metadata,
    racers,
    races,
    results,
    schema_table,
    table_members,
)


def _add_columns(table: Table, *names: str) -> Callable[[Connection], None]:
    """A step that adds nullable columns of ``table`` as defined above, typed in the
    database's own dialect (SQLite: ``REAL``, PostgreSQL: ``DOUBLE PRECISION``)."""

    def step(conn: Connection) -> None:
        for name in names:
            column_type = table.c[name].type.compile(dialect=conn.dialect)
            conn.exec_driver_sql(f"ALTER TABLE {table.name} ADD COLUMN {name} {column_type}")

    return step


def _version_2(conn: Connection) -> None:
    """Step 2: each result keeps its longest run and its time (for display), and its game's
    line (for its review)."""
    _add_columns(results, "longest_run", "seconds")(conn)
    conn.exec_driver_sql("ALTER TABLE tp_results ADD COLUMN line TEXT NOT NULL DEFAULT ''")


def _version_3(conn: Connection) -> None:
    """Step 3: variant codes (``TP1-EOWJT-…``, 17 characters) fit the code columns, and a
    result's ``rules`` holds the variants' letters too. SQLite does not enforce a length."""
    if conn.dialect.name != "postgresql":
        return
    for table in (games, results, deals):
        conn.exec_driver_sql(
            f"ALTER TABLE {table.name} ALTER COLUMN code TYPE VARCHAR({CODE_LENGTH})"
        )
    conn.exec_driver_sql(f"ALTER TABLE tp_results ALTER COLUMN rules TYPE VARCHAR({KIND_LENGTH})")


def _version_4(conn: Connection) -> None:
    """Step 4: the daily challenge's attempts (``tp_daily``) and their indexes (kept if there)."""
    daily.create(conn, checkfirst=True)


def _version_5(conn: Connection) -> None:
    """Step 5: race rooms and their racers (``tp_races``, ``tp_racers``), kept if there."""
    races.create(conn, checkfirst=True)
    racers.create(conn, checkfirst=True)


def _version_6(conn: Connection) -> None:
    """Step 6: a racer who left a race says when (``tp_racers.left_at``); step 5 made from
    these definitions has it already."""
    if "left_at" not in {column["name"] for column in inspect(conn).get_columns(racers.name)}:
        _add_columns(racers, "left_at")(conn)


def _version_7(conn: Connection) -> None:
    """Step 7: a player on every device: devices, what is signed out, single-use codes,
    recovery codes, passkeys and personal tokens (kept if there)."""
    for table in IDENTITY_TABLES:
        table.create(conn, checkfirst=True)


def _version_8(conn: Connection) -> None:
    """Step 8: an attempt keeps whether its player ended it (``tp_daily.stopped``) and the
    peaks its game had cleared (``tp_daily.peaks``); step 4 made from these definitions has them."""
    present = {column["name"] for column in inspect(conn).get_columns(daily.name)}
    if "stopped" not in present:
        conn.exec_driver_sql("ALTER TABLE tp_daily ADD COLUMN stopped BOOLEAN NOT NULL DEFAULT false")
    if "peaks" not in present:
        _add_columns(daily, "peaks")(conn)


def _version_9(conn: Connection) -> None:
    """Step 9: the JSON API's answers kept for a retry (``tp_answers``), kept if there."""
    answers.create(conn, checkfirst=True)


def _version_10(conn: Connection) -> None:
    """Step 10: tables of friends and their members (``tp_tables``, ``tp_table_members``),
    kept if there."""
    friends_tables.create(conn, checkfirst=True)
    table_members.create(conn, checkfirst=True)


def _version_11(conn: Connection) -> None:
    """Step 11: the pace of each daily attempt (``tp_daily_pace``), kept if there."""
    daily_pace.create(conn, checkfirst=True)


MIGRATIONS: Final[dict[int, Callable[[Connection], None]]] = {
    2: _version_2,
    3: _version_3,
    4: _version_4,
    5: _version_5,
    6: _version_6,
    7: _version_7,
    8: _version_8,
    9: _version_9,
    10: _version_10,
    11: _version_11,
}
"""Step ``n`` takes a database from version ``n - 1`` to ``n``."""

_ADVISORY_LOCK: Final = int.from_bytes(b"tripeaks", "big")


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer release of the app."""


def schema_version(conn: Connection) -> int | None:
    """The schema version the database is at (``None``: no schema yet), read without a lock."""
    if not inspect(conn).has_table(schema_table.name):
        return None
    version: int = conn.execute(select(schema_table.c.version).where(schema_table.c.id == 1)).scalar_one()
    return version


def is_current(conn: Connection) -> bool:
    """Whether the database is at this code's schema version (checked without a write lock)."""
    return schema_version(conn) == SCHEMA_VERSION


def migrate(conn: Connection, dialect: str, now: float) -> int:
    """Create or migrate the schema inside the caller's (write) transaction; returns the version."""
    if dialect == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK})
    if not inspect(conn).has_table(schema_table.name):
        metadata.create_all(conn)
        conn.execute(insert(schema_table).values(id=1, version=SCHEMA_VERSION, migrated=now))
        return SCHEMA_VERSION
    version = conn.execute(select(schema_table.c.version).where(schema_table.c.id == 1)).scalar_one()
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"the database is at schema version {version}; this release knows versions up to {SCHEMA_VERSION}"
        )
    for step in range(version + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[step](conn)
    if version != SCHEMA_VERSION:
        conn.execute(
            update(schema_table).where(schema_table.c.id == 1).values(version=SCHEMA_VERSION, migrated=now)
        )
    return SCHEMA_VERSION
