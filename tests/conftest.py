"""Fixtures shared by several folders: an app on a memory store with TestClient browsers (web,
i18n), the test PostgreSQL server with a schema of each test's own (store, security), a
private PostgreSQL cluster (security, chaos), and the one Chromium of the process (browser,
deploy). A folder's conftest adds its own; helpers that
are not fixtures live in ``tests/support/``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.store import MemoryStore
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.faults import PrivatePostgres, private_postgres_server
from tests.support.store import fresh_schema, reachable_postgres


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def app_settings(tmp_path: Path) -> Settings:
    return Settings(secret_key="test-secret-" + "x" * 20, database_url="memory://", data_dir=tmp_path)


@pytest.fixture
def client(app_settings: Settings, store: MemoryStore) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings, store=store)) as test_client:
        yield test_client


@pytest.fixture
def other_client(client: TestClient) -> Iterator[TestClient]:
    """A second browser (its own cookies) on the same server."""
    with TestClient(client.app) as second:
        yield second


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test server's URL, once it answers; else skip (or fail when it is required)."""
    return reachable_postgres()


@pytest.fixture
def pg_database(postgres_url: str) -> Iterator[str]:
    """A database URL whose tables live in a fresh schema, dropped after the test."""
    with fresh_schema(postgres_url) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's Chromium, one per test process: Playwright's sync API runs one at a time in a
    thread, so the browser tests and the proxy test (run by the same xdist worker) share it."""
    from tests.support.browser import launched_chromium

    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    """A PostgreSQL cluster of the test's own, on a free port, to stop and start at will."""
    with private_postgres_server() as server:
        yield server
