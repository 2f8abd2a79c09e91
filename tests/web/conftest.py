"""The daily challenge's page fixtures (tests/web/test_daily*.py): an app on a memory store at a
fixed clock, 9:00 UTC on a Thursday (``tests/support/daily.py``), and two players on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.store import MemoryStore
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.daily import KEY, MORNING
from tests.support.store import Clock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fixed = Clock(MORNING)
    monkeypatch.setattr("app.web.presentation.clock.now", fixed)
    return fixed


@pytest.fixture
def daily_store(clock: Clock) -> MemoryStore:
    return MemoryStore(clock=clock)


@pytest.fixture
def daily_app(daily_store: MemoryStore, tmp_path: Path) -> FastAPI:
    return create_app(Settings(secret_key=KEY, database_url="memory://", data_dir=tmp_path), store=daily_store)


@pytest.fixture
def ann(daily_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(daily_app) as client:
        yield client


@pytest.fixture
def bob(daily_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(daily_app) as client:
        yield client
