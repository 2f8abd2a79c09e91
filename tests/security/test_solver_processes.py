"""A server killed with SIGKILL leaves none of its solver pool's processes behind (issue 41: 32 of
them, 1.5 GB, adopted by PID 1 after a campaign of kills). A real server, its pool started by a
hint, killed; every process it started ends within seconds."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest

from tests.support.apps import live_server


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended: only its exit status waits for its new parent


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the processes from /proc (Linux)")
def test_the_solver_pool_ends_with_a_server_killed_with_sigkill(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with live_server(data, {"TRIPEAKS_DATABASE_URL": "memory://", "TRIPEAKS_RATE_LIMITS": "false"}) as server:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            game = client.post("/api/games", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
            assert client.post(f"/api/games/{game}/hint").status_code == 200  # the pool starts
        deadline = time.monotonic() + 60
        while not (workers := children_of(server.process.pid)):
            assert time.monotonic() < deadline, "the server started no process of its own"
            time.sleep(0.1)  # the pool's worker may still be starting
        assert all(alive(pid) for pid in workers) and os.getpid() not in workers
        server.kill()
        deadline = time.monotonic() + 30
        while left := [pid for pid in workers if alive(pid)]:
            assert time.monotonic() < deadline, f"still running after their server was killed: {left}"
            time.sleep(0.1)  # each worker looks for its server every half second
