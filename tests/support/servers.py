"""Live servers for tests that need real HTTP: uvicorn in a subprocess on a free loopback port."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from app.web.lean_http import SERVED_WITH
from app.web.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SECRET = "live-server-tests-secret-0123456789abcdef"
UVICORN = ("-m", "uvicorn", "app.web.main:create_app", "--factory", "--host", "127.0.0.1", "--no-access-log",
           "--http", SERVED_WITH, "--timeout-keep-alive", str(Settings.model_fields["keep_alive_s"].default))
"""As ``tripeaks serve`` runs it: its protocol, and idle connections kept as long (a client's
pooled connection closed by uvicorn's own 5 s as it sent a request cut it: bench/race.py's
streams, sent on connections idle since their joins)."""


TRIPEAKS_SERVE: tuple[str, ...] = (sys.executable, "-m", "app.cli", "serve", "--port", "{port}")
"""``tripeaks serve`` as a self-hoster runs it, for :func:`start_server`'s ``command``."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, nothing."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.kill()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def start_server(
    data_dir: Path,
    env: Mapping[str, str] | None = None,
    *,
    port: int | None = None,
    run_as: Sequence[str] = (),
    command: Sequence[str] | None = None,
    cwd: Path = ROOT,
    timeout: float = 180,  # a loaded machine (load 20 on 2 cores) took 62 s to import and start the app
) -> LiveServer:
    """Start the game (by default on SQLite in ``data_dir``) and wait until ``/healthz`` answers.

    ``env`` adds to the environment; ``run_as`` is a command prefix (say ``setpriv`` to
    another user); ``command`` replaces the uvicorn command (it must take ``{port}``).
    """
    port = port or free_port()
    full_env = {
        **os.environ,
        "TRIPEAKS_DATA_DIR": str(data_dir),
        "TRIPEAKS_SECRET_KEY": SECRET,
        "TRIPEAKS_DATABASE_URL": f"sqlite:///{data_dir}/tripeaks.db",
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    argv = [c.format(port=port) for c in command] if command else [sys.executable, *UVICORN, "--port", str(port)]
    log = data_dir.parent / f"{data_dir.name}-server-{port}-{secrets.token_hex(3)}.log"
    with log.open("wb") as out:
        process = subprocess.Popen([*run_as, *argv], cwd=cwd, env=full_env, stdout=out, stderr=subprocess.STDOUT)
    server = LiveServer(process, f"http://127.0.0.1:{port}", log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited:\n{server.output()}")
        try:
            if httpx.get(server.url + "/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)  # waits for the server process to start answering
    server.stop()
    raise AssertionError(f"the server did not start:\n{server.output()}")


@contextmanager
def live_server(data_dir: Path, env: Mapping[str, str] | None = None, **options: object) -> Iterator[LiveServer]:
    server = start_server(data_dir, env, **options)  # type: ignore[arg-type]
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def server_in_thread(app: object, port: int | None = None, graceful_s: int | None = None) -> Iterator[str]:
    """``app`` served by uvicorn in a thread of this process (so a test may fix its clock, as the
    daily tests do, and reach its store); yields its URL. Stops with the block (``graceful_s``:
    open streams are cut after that many seconds, else waited for)."""
    import threading

    import uvicorn

    from app.web.lean_http import LeanHttpToolsProtocol

    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=graceful_s, http=LeanHttpToolsProtocol))  # type: ignore[arg-type]
    thread = threading.Thread(target=server.run, name="tripeaks-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise AssertionError("the server in a thread did not start")
        time.sleep(0.05)  # waits for uvicorn's own thread to bind and start
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
