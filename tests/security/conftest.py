"""Fixtures for the security tests: apps with chosen settings whose rate limits count on a
clock that stands still (``tests/support/apps.py`` says why)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import limits.storage.memory
import limits.strategies
import pytest
from fastapi.testclient import TestClient

from app.store import GameStore, MemoryStore
from app.web.main import create_app
from app.web.middleware import ratelimit
from tests.support.apps import NOW, AppFactory, settings


@pytest.fixture
def still_clock(monkeypatch: pytest.MonkeyPatch) -> float:
    clock = SimpleNamespace(time=lambda: NOW, monotonic=time.monotonic)
    monkeypatch.setattr(limits.storage.memory, "time", clock)  # the in-memory counters' clock
    monkeypatch.setattr(limits.strategies, "time", clock)  # their reset times
    monkeypatch.setattr(ratelimit, "time", clock)  # Retry-After's
    return NOW


@pytest.fixture
def make_client(tmp_path: Path, still_clock: float) -> Iterator[AppFactory]:
    """``make_client(store=None, **settings)``: a TestClient on a fresh app; closed afterwards.

    Its rate limits count on the still clock (``NOW``)."""
    opened: list[TestClient] = []

    def make(store: GameStore | None = None, *, client_kwargs: Mapping[str, Any] | None = None,
             **overrides: Any) -> TestClient:
        app = create_app(settings(tmp_path, **overrides), store=store or MemoryStore())
        client = TestClient(app, **(client_kwargs or {}))
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in reversed(opened):
        client.__exit__(None, None, None)
