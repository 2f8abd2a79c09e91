"""The store's SQL: every statement (SQLAlchemy Core), and the one way they are run.

This module owns *what* is asked of the database, for both dialects; it knows nothing of
transactions, locks or syncs (those are :mod:`app.store.database.sqlite` and
:mod:`app.store.database.postgres`). Every statement is built once, here, at import, with its values
as ``b_``-prefixed bind parameters; :func:`run` runs one on a connection of either kind:

* a ``sqlite3.Connection`` (the SQLite store talks to the driver directly): the statement
  is compiled once for SQLite and the SQL text kept, since SQLAlchemy's own execute costs
  several times the query (about 60 µs against 10 µs for a game's row);
* a SQLAlchemy ``Connection`` (PostgreSQL, through psycopg 3).

What :func:`run` returns has ``fetchone``, ``fetchall`` and ``rowcount`` either way; rows
are tuples in the order of the statement's columns.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Final

from sqlalchemy import Connection, bindparam, case, delete, exists, func, insert, select, update
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect

from app.engine import Game, Status
from app.engine.state import game_from_state, state_of
from app.store.base import StoredGame
from app.store.database.schema import DEAL_FIELDS, deals, games, players, results

Db = Connection | sqlite3.Connection
"""Where a statement runs: the SQLite driver's connection, or a SQLAlchemy one (PostgreSQL)."""

GAME_TOUCH_EVERY_S: Final = 600.0
"""A save moves a game's ``updated`` time only when it is older than this."""
CLEANUP_BATCH: Final = 200

_COMPILED: dict[Any, tuple[str, dict[str, Any]]] = {}
"""SQL text of each statement for SQLite, with the values it carries itself (a LIMIT, say).
Filled on first use; two threads compiling one statement at once write the same entry."""
_COMPACT_JSON: Final = json.JSONEncoder(separators=(",", ":"))


def run(db: Db, statement: Any, params: dict[str, Any] | None = None) -> Any:
    """Run one of this module's statements (a ``{dialect: statement}`` pair picks its own)."""
    params = params or {}
    if not isinstance(db, sqlite3.Connection):
        if isinstance(statement, dict):
            statement = statement["postgresql"]
        return db.execute(statement, params)
    if isinstance(statement, dict):
        statement = statement["sqlite"]
    compiled = _COMPILED.get(statement)
    if compiled is None:
        done = statement.compile(dialect=sqlite_dialect.dialect(paramstyle="named"))
        own = {name: value for name, value in done.params.items() if not name.startswith("b_")}
        compiled = _COMPILED[statement] = (str(done), own)
    sql, own = compiled
    return db.execute(sql, {**own, **params} if own else params)


def insert_ignore(table: Any, **values: Any) -> dict[str, Any]:
    """``INSERT … ON CONFLICT DO NOTHING``, one statement per dialect (see :func:`run`)."""
    return {
        "sqlite": sqlite_dialect.insert(table).values(**values).on_conflict_do_nothing(),
        "postgresql": pg_dialect.insert(table).values(**values).on_conflict_do_nothing(),
    }


# -- games ------------------------------------------------------------------------------------

GAME_COLUMNS: Final = (
    "id", "owner", "code", "version", "created", "updated", "state", "status", "moves", "score",
    "cards_left",
)  # fmt: skip
NEW_GAME = insert(games).values({name: bindparam("b_" + name) for name in GAME_COLUMNS})
_STORED_COLUMNS: Final = (games.c.id, games.c.owner, games.c.state, games.c.version)
GET = select(*_STORED_COLUMNS).where(games.c.id == bindparam("b_id"))
GET_FOR_UPDATE = GET.with_for_update()
CURRENT = (
    select(*_STORED_COLUMNS)
    .join(players, players.c.current_game_id == games.c.id)
    .where(players.c.id == bindparam("b_owner"))
)
FIND = (
    select(*_STORED_COLUMNS)
    .where(games.c.owner == bindparam("b_owner"), games.c.code == bindparam("b_code"))
    .order_by(games.c.seq.desc())
    .limit(1)
)
SAVE = (
    update(games)
    .where(games.c.id == bindparam("b_id"), games.c.version == bindparam("b_version"))
    .values(
        version=bindparam("b_new_version"),
        state=bindparam("b_state"),
        status=bindparam("b_status"),
        moves=bindparam("b_moves"),
        score=bindparam("b_score"),
        cards_left=bindparam("b_cards_left"),
        # When it was last played, to within GAME_TOUCH_EVERY_S (idle cleanup counts in
        # days): most saves then leave the (updated) index alone, a page less to write.
        updated=case(
            (games.c.updated < bindparam("b_touch_before"), bindparam("b_updated")),
            else_=games.c.updated,
        ),
    )
)
GAME_OWNER = select(games.c.owner).where(games.c.id == bindparam("b_id"))
DELETE_GAME = delete(games).where(games.c.id == bindparam("b_id"))
COUNT_GAMES = select(func.count()).select_from(games)
COUNT_OWN_GAMES = COUNT_GAMES.where(games.c.owner == bindparam("b_owner"))
OLDEST_GAMES = (  # the owner's games to remove beyond the bound: not won first, oldest first
    select(games.c.id)
    .where(games.c.owner == bindparam("b_owner"), games.c.id != bindparam("b_keep"))
    .order_by(case((games.c.status == Status.WON.value, 1), else_=0), games.c.seq)
    .limit(bindparam("b_limit"))
)
_IDLE = (games.c.updated < bindparam("b_cutoff")) & (games.c.status != Status.WON.value)
IDLE_GAMES = select(games.c.id).where(_IDLE).limit(CLEANUP_BATCH)
STILL_IDLE = select(games.c.id).where(games.c.id == bindparam("b_id"), _IDLE).with_for_update()

# -- players ----------------------------------------------------------------------------------

NEW_PLAYER = insert_ignore(
    players, id=bindparam("b_id"), created=bindparam("b_created"), updated=bindparam("b_updated")
)
IS_CURRENT = select(players.c.id).where(
    players.c.id == bindparam("b_owner"), players.c.current_game_id == bindparam("b_game")
)
PLAYER_TO_CHANGE = (
    select(players.c.current_game_id).where(players.c.id == bindparam("b_id")).with_for_update()
)
MAKE_CURRENT = (
    update(players)
    .where(players.c.id == bindparam("b_id"))
    .values(current_game_id=bindparam("b_game"), updated=bindparam("b_updated"))
)
DISPLAY_NAME = select(players.c.display_name).where(players.c.id == bindparam("b_id"))
SET_DISPLAY_NAME = (
    update(players)
    .where(players.c.id == bindparam("b_id"))
    .values(display_name=bindparam("b_name"), updated=bindparam("b_updated"))
)
FORGET_IDLE_PLAYERS = delete(players).where(
    players.c.display_name.is_(None),
    players.c.updated < bindparam("b_cutoff"),
    ~exists().where(games.c.owner == players.c.id),
    ~exists().where(results.c.player == players.c.id),
)

# -- results and deals (used by app.store.database.records) --------------------------------------------

GAME_TO_RECORD = (
    select(games.c.seq, games.c.owner, games.c.state)
    .where(games.c.id == bindparam("b_id"))
    .with_for_update()
)
RESULT_COLUMNS: Final = (
    results.c.game_id, results.c.player, results.c.code, results.c.won, results.c.score,
    results.c.cards_left, results.c.moves, results.c.feats, results.c.at, results.c.longest_run,
    results.c.seconds, results.c.line,
)  # fmt: skip
RESULT = select(*RESULT_COLUMNS).where(results.c.game_id == bindparam("b_id"))
RECENT_RESULTS = (
    select(*RESULT_COLUMNS)
    .where(results.c.player == bindparam("b_player"))
    .order_by(results.c.at.desc(), results.c.game_seq.desc())
    .limit(bindparam("b_limit"))
)
PLAYER_RESULTS = (
    select(results.c.rules, results.c.won, results.c.score, results.c.longest_run, results.c.seconds)
    .where(
        results.c.player == bindparam("b_player"),
        # A game left unfinished counts only once it cannot be taken up again (docs/store.md).
        ~exists().where(games.c.id == results.c.game_id, games.c.status == Status.PLAYING.value),
    )
    .order_by(results.c.game_seq)
)
_RESULT_FIELDS: Final = (
    "won", "score", "cards_left", "moves", "feats", "at", "longest_run", "seconds", "line",
)  # fmt: skip
INSERT_RESULT = insert(results).values(
    {
        name: bindparam("b_" + name)
        for name in ("game_id", "game_seq", "player", "code", "rules", *_RESULT_FIELDS)
    }
)
UPDATE_RESULT = (
    update(results)
    .where(results.c.game_id == bindparam("b_game_id"))
    .values({name: bindparam("b_" + name) for name in _RESULT_FIELDS})
)
DEAL = select(*(deals.c[name] for name in DEAL_FIELDS)).where(deals.c.code == bindparam("b_code"))
DEAL_TO_RECORD = DEAL.with_for_update()
NEW_DEAL = insert_ignore(deals, code=bindparam("b_code"), wins=0, finished=0)
SAVE_DEAL = (
    update(deals)
    .where(deals.c.code == bindparam("b_code"))
    .values({name: bindparam("b_" + name) for name in DEAL_FIELDS})
)
HOLDER_NAMES = select(players.c.id, players.c.display_name).where(
    players.c.id.in_([bindparam("b_first"), bindparam("b_best"), bindparam("b_unfinished")])
)


# -- rows and parameters ----------------------------------------------------------------------


def columns(game: Game) -> dict[str, Any]:
    """The game's columns, as the statements' parameters (``b_state``, ``b_status``, …)."""
    return {
        "b_state": _COMPACT_JSON.encode(state_of(game)),
        "b_status": game.status.value,
        "b_moves": game.moves,
        "b_score": game.score,
        "b_cards_left": game.cards_left(),
    }


def touch(now: float) -> dict[str, float]:
    """The parameters of :data:`SAVE` that move ``updated`` (see :data:`GAME_TOUCH_EVERY_S`)."""
    return {"b_updated": now, "b_touch_before": now - GAME_TOUCH_EVERY_S}


def stored_of(row: Any) -> StoredGame:
    """The stored game of a row of (id, owner, state, version)."""
    game_id, owner, state, version = row
    return StoredGame(game_id, owner, game_from_state(json.loads(state)), version)
