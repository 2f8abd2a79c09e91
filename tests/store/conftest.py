"""Store fixtures: the same tests run on every backend.

``store`` is parametrized (``database_url``, with ``BACKENDS`` of ``tests/support/store.py``)
over ``memory``, ``sqlite`` (a file in ``tmp_path``) and ``postgresql`` (``pg_database`` of
``tests/conftest.py``: the server at ``TRIPEAKS_TEST_POSTGRES_URL``, each test in a schema
of its own that is dropped afterwards; without a reachable server the PostgreSQL cases skip,
saying why, unless ``TRIPEAKS_REQUIRE_POSTGRES=1`` (as in ``.ci/run``), where they fail).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store.base import GameStore
from app.store.memory import MemoryStore
from tests.support.store import Clock, StoreFactory


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL for the backend the test is parametrized with (``backend``)."""
    backend = request.param if hasattr(request, "param") else "sqlite"
    if backend == "memory":
        return "memory://"
    if backend == "sqlite":
        return f"sqlite:///{tmp_path}/data/tripeaks.db"
    return str(request.getfixturevalue("pg_database"))


@pytest.fixture
def make_store(database_url: str) -> Iterator[StoreFactory]:
    """Open a store on the test's database; several calls give several stores on one database."""
    opened: list[GameStore] = []
    memory: list[MemoryStore] = []

    def make(**options: object) -> GameStore:
        store: GameStore
        if database_url.startswith("memory:"):
            if memory and not options:
                return memory[0]
            store = MemoryStore(**options)  # type: ignore[arg-type]
            memory.append(store)
        else:
            from app.store.database.sql import SqlStore

            store = SqlStore(database_url, **options)  # type: ignore[arg-type]
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(make_store: StoreFactory, clock: Clock) -> GameStore:
    return make_store(clock=clock)
