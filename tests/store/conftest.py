"""Store fixtures: the same tests run on every backend.

``store`` is parametrized over ``memory``, ``sqlite`` (a file in ``tmp_path``) and
``postgresql`` (the server at ``TRIPEAKS_TEST_POSTGRES_URL``, default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``, each test in a schema of its
own that is dropped afterwards). Without a reachable server the PostgreSQL cases
skip, saying why, unless ``TRIPEAKS_REQUIRE_POSTGRES=1`` (as in ``.ci/run``), where
they fail instead.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.store.base import GameStore
from app.store.memory import MemoryStore

POSTGRES_URL = os.environ.get(
    "TRIPEAKS_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REQUIRE_POSTGRES = os.environ.get("TRIPEAKS_REQUIRE_POSTGRES") == "1"
BACKENDS = ["memory", "sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
SQL_BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def libpq_url(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test server's URL, once it answers; else skip (or fail when it is required)."""
    try:
        import psycopg

        with psycopg.connect(libpq_url(POSTGRES_URL), connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as error:
        reason = (
            f"PostgreSQL is not reachable at {POSTGRES_URL} ({type(error).__name__}: {error}); "
            "start it or set TRIPEAKS_TEST_POSTGRES_URL"
        )
        if REQUIRE_POSTGRES:
            pytest.fail(reason + " (TRIPEAKS_REQUIRE_POSTGRES=1: these tests must run)")
        pytest.skip(reason)
    return POSTGRES_URL


def with_search_path(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-csearch_path%3D{schema}"


@pytest.fixture
def pg_database(postgres_url: str) -> Iterator[str]:
    """A database URL whose tables live in a fresh schema, dropped after the test."""
    import psycopg

    schema = "tp_test_" + secrets.token_hex(6)
    with psycopg.connect(libpq_url(postgres_url), autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            yield with_search_path(postgres_url, schema)
        finally:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


class Clock:
    """A clock the tests move by hand."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


StoreFactory = Callable[..., GameStore]


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
            from app.store.sql import SqlStore

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
