"""The SQL schema, versioned: created on first start, migrated step by step on later ones.

``tp_schema`` holds one row: the schema version the database is at. On start
:func:`migrate` takes a lock (PostgreSQL: a transaction-level advisory lock;
SQLite: ``BEGIN IMMEDIATE``), so of several processes starting at once one
creates or migrates and the others then see it done. A database at a newer
version than this code knows is refused rather than written to.

To change the schema: append a step to :data:`MIGRATIONS` (it receives the
connection, inside the transaction) and change the table definitions below to
match the result. Version 1 is created from these definitions directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Double,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    insert,
    inspect,
    select,
    text,
    update,
)

SCHEMA_VERSION: Final = 6

CODE_LENGTH: Final = 24
"""Room for any game code: ``TP1-EOWJT-AAAAAAB`` is 17 characters (16 before the variants)."""
KIND_LENGTH: Final = 8
"""Room for a code's rules and variant letters: ``EOWJT`` is 5."""

metadata = MetaData()

schema_table = Table(
    "tp_schema",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", Integer, nullable=False),
    Column("migrated", Double, nullable=False),
)

players = Table(
    "tp_players",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("display_name", String(40)),
    Column("current_game_id", String(64)),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
)

games = Table(
    "tp_games",
    metadata,
    Column(
        "seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("id", String(64), nullable=False, unique=True),
    Column("owner", String(64)),
    Column("code", String(CODE_LENGTH), nullable=False),
    Column("state", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("status", String(8), nullable=False),
    Column("moves", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("cards_left", Integer, nullable=False),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
    Index("tp_games_owner_code", "owner", "code", "seq"),
    Index("tp_games_updated", "updated"),
)

results = Table(
    "tp_results",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("game_seq", BigInteger, nullable=False),
    Column("player", String(64)),
    Column("code", String(CODE_LENGTH), nullable=False),
    # The code's rules letter and its variants' letters (``E``, ``CWJ``): statistics are kept
    # per rule set and variants. Version 3 widened it from the rules letter alone.
    Column("rules", String(KIND_LENGTH), nullable=False),
    Column("won", Boolean, nullable=False),
    Column("score", Integer, nullable=False),
    Column("cards_left", Integer, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("feats", String(64), nullable=False),
    Column("at", Double, nullable=False),
    # Version 2: the game's longest run and its time, for display (NULL in older results).
    Column("longest_run", Integer),
    Column("seconds", Double),
    Column("line", Text, nullable=False, server_default=""),
    Index("tp_results_player", "player", "rules", "game_seq"),
)

deals = Table(
    "tp_deals",
    metadata,
    Column("code", String(CODE_LENGTH), primary_key=True),
    Column("wins", Integer, nullable=False),
    Column("finished", Integer, nullable=False),
    Column("first_game", String(64)),
    Column("first_player", String(64)),
    Column("first_score", Integer),
    Column("first_at", Double),
    Column("best_score", Integer),
    Column("best_game", String(64)),
    Column("best_player", String(64)),
    Column("best_at", Double),
    Column("unfinished_cards_left", Integer),
    Column("unfinished_game", String(64)),
    Column("unfinished_player", String(64)),
    Column("unfinished_at", Double),
)

DEAL_FIELDS: Final = tuple(c.name for c in deals.columns if c.name != "code")

DAY_LENGTH: Final = 10
"""A UTC day as ISO text: ``2026-12-03``."""

daily = Table(
    # Version 4: the daily challenge (docs/deals.md). One row per player and day: the
    # player's first game of that day's deal (the ranked attempt, or "late" when begun
    # after its day), kept up to date by every save while its day runs, so that an attempt
    # still unfinished when the day ends is left as it was then.
    "tp_daily",
    metadata,
    Column("day", String(DAY_LENGTH), primary_key=True),
    Column("player", String(64), primary_key=True),
    Column("game_id", String(64), nullable=False),
    Column("code", String(CODE_LENGTH), nullable=False),
    Column("late", Boolean, nullable=False),
    # Won or blocked within its day: it counts from then on (an unfinished one, once the
    # day is over).
    Column("ended", Boolean, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("score", Integer, nullable=False),
    Column("seconds", Double),
    Column("hints", Integer, nullable=False),
    Column("plausible", Boolean, nullable=False),
    # The intervals between actions seen so far, and how many were quicker than a person
    # plays (app.store.ranking.plausible).
    Column("gaps", Integer, nullable=False),
    Column("quick", Integer, nullable=False),
    # Its place in the day's order as one number (app.store.ranking.board_key).
    Column("board_key", BigInteger, nullable=False),
    Column("started", Double, nullable=False),
    Column("last_action", Double),
    # When it ended, or (while playing) its latest change: the last tie-break, "who
    # finished first".
    Column("at", Double, nullable=False),
    # The leaderboard's order, the columns it filters on last: the top 100 and "12th of
    # 340" are index ranges, never a sort or a table read.
    Index("tp_daily_board", "day", "late", "board_key", "at", "ended"),
    Index("tp_daily_game", "game_id", unique=True),
    Index("tp_daily_player", "player", "day"),
)


races = Table(
    # Version 5: race rooms (issue 24, app/store/races.py). One row per room: its maker, the
    # deal of its current round, when that round's deal is (None: the lobby) and when it was
    # seen to finish.
    "tp_races",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("maker", String(64), nullable=False),
    Column("code", String(CODE_LENGTH), nullable=False),
    Column("round", Integer, nullable=False),
    Column("created", Double, nullable=False),
    Column("starts", Double),
    Column("ended", Double),
    Column("updated", Double, nullable=False),
    Index("tp_races_maker", "maker", "updated"),
    Index("tp_races_updated", "updated"),
)

racers = Table(
    # Version 5: the racers of each round of a room, and their (ordinary, stored) games.
    "tp_racers",
    metadata,
    Column("race_id", String(64), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("player", String(64), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("game_id", String(64), nullable=False),
    Column("joined", Double, nullable=False),
    # When the racer's page was last connected (None: never, a JSON API client).
    Column("seen", Double),
    # Version 6: when the racer left with "Leave the race" (None: not left, or back since).
    Column("left_at", Double),
    Index("tp_racers_game", "game_id", unique=True),
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


MIGRATIONS: Final[dict[int, Callable[[Connection], None]]] = {
    2: _version_2,
    3: _version_3,
    4: _version_4,
    5: _version_5,
    6: _version_6,
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
