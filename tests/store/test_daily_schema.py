"""Schema step 4: the daily challenge's attempts, with the indexes its leaderboard reads by."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text

from app.engine import Game, GameCode
from app.store.database.schema import SCHEMA_VERSION
from tests.support.store import SQL_BACKENDS

CODE = GameCode.parse("TP1-E-AAAAAAB")


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_a_version_3_database_gains_the_daily_table_and_keeps_its_games(database_url: str) -> None:
    from app.store.database.sql import SqlStore

    store = SqlStore(database_url)
    stored = store.create(Game(CODE), "p1")
    with store._engine.begin() as conn:  # back to schema 3: as the release before left it
        conn.execute(text("DROP TABLE tp_daily"))
        conn.execute(text("UPDATE tp_schema SET version = 3"))
    store.close()

    store = SqlStore(database_url)
    try:
        assert store.get(stored.id) == stored
        with store._engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM tp_schema")).scalar_one() == SCHEMA_VERSION >= 4
            indexes = {i["name"]: i for i in inspect(conn).get_indexes("tp_daily")}
            assert indexes["tp_daily_board"]["column_names"] == ["day", "late", "board_key", "at", "ended"]
            assert indexes["tp_daily_game"]["unique"]
            assert indexes["tp_daily_player"]["column_names"] == ["player", "day"]
            assert inspect(conn).get_pk_constraint("tp_daily")["constrained_columns"] == ["day", "player"]
    finally:
        store.close()
