"""Fixtures for the security tests: apps with chosen settings, and a live uvicorn server."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
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
from app.web.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SECRET = "security-tests-secret-" + "s" * 24
HX = {"HX-Request": "true"}
CODE = "TP1-E-AAAAAAB"


def settings(tmp: Path, **overrides: Any) -> Settings:
    """Test settings: memory store, a fixed key, rate limits off unless asked for."""
    values: dict[str, Any] = {
        "secret_key": SECRET,
        "database_url": "memory://",
        "data_dir": tmp,
        "rate_limits": False,
        "idle_days": 0,
    }
    values.update(overrides)
    return Settings(**values)


AppFactory = Callable[..., TestClient]

# The rate limits count in sliding windows over whole minutes of the clock (the previous
# minute's count weighted by how much of it is still inside the window, rounded down): a test
# that crossed a minute would see a count drop by one. So the in-memory counters of the apps
# made here read a clock that stands still, 30 s into a minute: every count is exact, and so is
# Retry-After. (Redis keeps its own time: see tests/security/test_rate_limits.py.)
NOW = 1_800_000_030.0


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


def game_id_of(html: str) -> str:
    match = re.search(r'data-game-id="([^"]+)"', html)
    assert match, "page has no game"
    return match.group(1)


# -- a live server ------------------------------------------------------------------------------


from tests import servers  # noqa: E402
from tests.servers import LiveServer, free_port  # noqa: E402,F401
from tests.store.conftest import pg_database, postgres_url  # noqa: E402,F401 (fixtures)


def live_server(
    data_dir: Path, env: Mapping[str, str] | None = None, *, run_as: Sequence[str] = ()
) -> AbstractContextManager[LiveServer]:
    """The game in a subprocess, with idle cleanup off (``run_as``: a command prefix)."""
    return servers.live_server(data_dir, {"TRIPEAKS_IDLE_DAYS": "0", **(env or {})}, run_as=run_as)
