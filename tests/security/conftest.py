"""Fixtures for the security tests: apps with chosen settings, and a live uvicorn server."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.store import GameStore, MemoryStore
from app.web.main import create_app
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


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[AppFactory]:
    """``make_client(store=None, **settings)``: a TestClient on a fresh app; closed afterwards."""
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.process.kill()
                self.process.wait(timeout=10)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def start_live_server(
    data_dir: Path, env: Mapping[str, str] | None = None, *, run_as: Sequence[str] = ()
) -> LiveServer:
    """uvicorn in a subprocess (``run_as``: a command prefix, say ``setpriv`` to another user)."""
    port = free_port()
    full_env = {
        **os.environ,
        "TRIPEAKS_DATA_DIR": str(data_dir),
        "TRIPEAKS_SECRET_KEY": SECRET,
        "TRIPEAKS_DATABASE_URL": f"sqlite:///{data_dir}/tripeaks.db",
        "TRIPEAKS_IDLE_DAYS": "0",
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    log = data_dir.parent / f"{data_dir.name}-server-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*run_as, sys.executable, "-m", "uvicorn", "app.web.main:create_app", "--factory",
             "--host", "127.0.0.1", "--port", str(port), "--no-access-log"],
            cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    server = LiveServer(process, f"http://127.0.0.1:{port}", log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited:\n{server.output()}")
        try:
            if httpx.get(server.url + "/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.stop()
    raise AssertionError(f"the server did not start:\n{server.output()}")


@contextmanager
def live_server(
    data_dir: Path, env: Mapping[str, str] | None = None, *, run_as: Sequence[str] = ()
) -> Iterator[LiveServer]:
    server = start_live_server(data_dir, env, run_as=run_as)
    try:
        yield server
    finally:
        server.stop()
