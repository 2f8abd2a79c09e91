"""Faults: the database going away and coming back, a full disk, a read-only database file.

Each answers "try again" (503 with ``Retry-After``: a page, the status line for htmx, JSON for
the API), never a 500, and loses nothing: every action the server acknowledged is there
afterwards, none it refused is, and the game plays on once the fault is gone.

* PostgreSQL stopped and started: a private PostgreSQL cluster made for the test with
  ``initdb`` in a temporary folder, on a free port (as the ``postgres`` user when run as
  root), so that the shared server other tests use is never touched.
* SQLite on a full disk: a 1 MB tmpfs mounted for the test (root only), filled to the brim.
* SQLite read-only: a live server that file modes bind (under root: root without the
  capabilities that let it ignore them, so that it still reads a checkout or a Python kept
  under /root, as ``nobody`` could not) restarted on a database file made read-only, then made
  writable again while it runs.

In CI (``TRIPEAKS_REQUIRE_FAULT_TESTS=1``, set by .ci/run where it provides what they need)
a test that cannot run here fails instead of skipping.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.store.database.sql import SqlStore
from app.web.ops.health import PROBE_KEPT_S
from tests.support.apps import AppFactory, live_server
from tests.support.faults import MODE_CAPABILITIES, PrivatePostgres, fill, skip, tiny_disk
from tests.support.pages import CODE, HX, game_id_of
from tests.support.races import Stream

TRY_AGAIN = "try again"


def moves_on_page(html: str) -> int:
    match = re.search(r'id="moves"[^>]*>(\d+)<', html)
    assert match, "no move count on the page"
    return int(match.group(1))


def assert_try_again(response: Any, *, api: bool = False) -> None:
    assert response.status_code == 503, f"{response.status_code}: {response.text[:300]}"
    assert int(response.headers["retry-after"]) > 0
    if api:
        assert TRY_AGAIN in response.json()["detail"]
    else:
        assert TRY_AGAIN in response.text and "Traceback" not in response.text


@pytest.mark.postgres
def test_postgresql_stopped_and_started_gives_try_again_and_loses_nothing(
    private_postgres: PrivatePostgres, make_client: AppFactory
) -> None:
    store = SqlStore(private_postgres.url)
    try:
        client = make_client(store, client_kwargs={"raise_server_exceptions": False})
        page = client.get(f"/g/{CODE}")
        game_id = game_id_of(page.text)
        acknowledged = 0
        for _ in range(3):
            assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
            acknowledged += 1
        # A game of nobody's (a client without a cookie): /g/CODE is still the page game.
        api = TestClient(client.app).post("/api/games", json={"code": CODE}).json()["id"]
        assert client.post(f"/api/games/{api}/draw").status_code == 200

        private_postgres.stop()
        assert_try_again(client.post(f"/games/{game_id}/draw", headers=HX))
        assert_try_again(client.post(f"/games/{game_id}/draw"))
        assert_try_again(client.get(f"/g/{CODE}"))
        assert_try_again(client.post("/new", data={"rules": "easy"}))
        assert_try_again(client.post(f"/api/games/{api}/draw"), api=True)
        assert_try_again(client.post("/api/games", json={}), api=True)
        assert_try_again(client.get(f"/api/games/{api}"), api=True)
        refused = client.post(f"/games/{game_id}/draw", headers=HX)
        assert_try_again(refused)
        assert 'id="status"' in refused.text or "<h1>" in refused.text

        private_postgres.start()
        page = client.get(f"/g/{CODE}")
        assert page.status_code == 200 and game_id_of(page.text) == game_id
        assert moves_on_page(page.text) == acknowledged  # nothing lost, nothing doubled
        assert client.get(f"/api/games/{api}").json()["moves"] == 1
        assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
        assert moves_on_page(client.get(f"/g/{CODE}").text) == acknowledged + 1
        assert client.post(f"/api/games/{api}/draw").json()["moves"] == 2
    finally:
        store.close()


def assert_not_ready_but_alive(client: Any) -> None:
    """/readyz says the store cannot write (503, with Retry-After); /healthz, liveness only, is
    200 all the same; neither sets a cookie."""
    time.sleep(PROBE_KEPT_S)  # the last probe's answer is kept this long: let it go by
    for _ in range(2):
        ready = client.get("/readyz")
        assert ready.status_code == 503, ready.text
        assert ready.text.startswith("not ready: the store cannot write"), ready.text
        assert int(ready.headers["retry-after"]) > 0 and "set-cookie" not in ready.headers
    alive = client.get("/healthz")
    assert alive.status_code == 200 and alive.text == "ok\n" and "set-cookie" not in alive.headers


def assert_ready_again(client: Any) -> None:
    deadline = time.monotonic() + 30
    while (ready := client.get("/readyz")).status_code != 200:
        assert time.monotonic() < deadline, ready.text
        time.sleep(0.2)  # the kept answer of the last probe (PROBE_KEPT_S) runs out
    assert ready.text == "ready\n" and "set-cookie" not in ready.headers


def test_sqlite_on_a_full_disk_gives_try_again_and_corrupts_nothing(make_client: AppFactory) -> None:
    with tiny_disk() as disk:
        url = f"sqlite:///{disk}/tripeaks.db"
        store = SqlStore(url)
        try:
            client = make_client(store, client_kwargs={"raise_server_exceptions": False})
            game_id = game_id_of(client.get(f"/g/{CODE}").text)
            acknowledged = 0
            for _ in range(3):
                assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
                acknowledged += 1

            filler = fill(disk)
            statuses = []
            for step in range(40):  # draws on the game, and new games (which grow the file most)
                if step % 2:
                    response = client.post("/api/games", json={"code": CODE})
                    statuses.append(response.status_code)
                    if response.status_code != 201:
                        assert_try_again(response, api=True)
                    continue
                response = client.post(f"/games/{game_id}/draw", headers=HX)
                statuses.append(response.status_code)
                if response.status_code == 200:
                    acknowledged += 1
                else:
                    assert_try_again(response)
            assert 503 in statuses, f"the full disk was never hit: {statuses}"
            assert max(statuses) == 503
            assert_not_ready_but_alive(client)

            filler.unlink()
            assert_ready_again(client)
            page = client.get(f"/g/{CODE}")
            assert page.status_code == 200 and moves_on_page(page.text) == acknowledged
            assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
            acknowledged += 1
        finally:
            store.close()
        with sqlite3.connect(disk / "tripeaks.db") as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        reopened = SqlStore(url)
        try:
            stored = reopened.get(game_id)
            assert stored is not None and stored.game.moves == acknowledged
        finally:
            reopened.close()


# -- SQLite: a read-only file -----------------------------------------------------------------


def test_sqlite_read_only_gives_try_again_and_recovers_without_a_restart() -> None:
    """The server restarts on a database file that became read-only (a volume mounted read-only,
    a deploy that changed its owner): the games still show, every write answers "try again",
    and once the file is writable again the game goes on, without another restart."""
    run_as: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="tripeaks-ro-", dir="/tmp"))
    root.chmod(0o755)
    data = root / "data"
    data.mkdir()
    if os.geteuid() == 0:  # root ignores file modes, unless it runs without the capabilities for it
        if shutil.which("setpriv") is None:
            skip("setpriv (util-linux) is needed to run the server without root's file capabilities")
        run_as = ["setpriv", f"--bounding-set={MODE_CAPABILITIES}", f"--inh-caps={MODE_CAPABILITIES}"]
        probe = subprocess.run([*run_as, "sh", "-c", f"echo x > '{data}/probe'; chmod 444 '{data}/probe'; "
                                f"echo y 2>/dev/null > '{data}/probe' && echo writable"],
                               capture_output=True, text=True, check=False)
        (data / "probe").unlink(missing_ok=True)
        assert "writable" not in probe.stdout, "root without those capabilities still wrote a read-only file"
    db = data / "tripeaks.db"
    try:
        with httpx.Client(timeout=10) as client:
            with live_server(data, {"TRIPEAKS_RATE_LIMITS": "false"}, run_as=run_as) as server:
                page = client.get(f"{server.url}/g/{CODE}")
                game_id = game_id_of(page.text)
                for _ in range(3):
                    assert client.post(f"{server.url}/games/{game_id}/draw", headers=HX).status_code == 200
                # A game of nobody's (no cookie): /g/CODE stays the page game.
                api = httpx.post(f"{server.url}/api/games", json={"code": CODE}).json()["id"]
            for path in data.glob("tripeaks.db*"):
                path.chmod(0o444)
            with live_server(data, {"TRIPEAKS_RATE_LIMITS": "false"}, run_as=run_as) as server:
                page = client.get(f"{server.url}/g/{CODE}")
                assert page.status_code == 200 and moves_on_page(page.text) == 3  # reads still work
                assert client.get(f"{server.url}/api/games/{api}").status_code == 200
                assert_try_again(client.post(f"{server.url}/games/{game_id}/draw", headers=HX))
                assert_try_again(client.post(f"{server.url}/games/{game_id}/draw"))
                assert_try_again(client.post(f"{server.url}/new", data={"rules": "easy"}))
                assert_try_again(client.post(f"{server.url}/api/games/{api}/draw"), api=True)
                assert_try_again(client.post(f"{server.url}/api/games", json={}), api=True)
                assert moves_on_page(client.get(f"{server.url}/g/{CODE}").text) == 3

                for path in data.glob("tripeaks.db*"):
                    path.chmod(0o644)
                time.sleep(0.1)
                response = client.post(f"{server.url}/games/{game_id}/draw", headers=HX)
                assert response.status_code == 200, response.text[:300]
                assert moves_on_page(client.get(f"{server.url}/g/{CODE}").text) == 4
                assert client.post(f"{server.url}/api/games/{api}/draw").json()["moves"] == 1
                assert "Traceback" not in server.output(), server.output()
        with sqlite3.connect(db) as check:
            assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        shutil.rmtree(root, ignore_errors=True)


# -- /readyz follows the store's own writes ---------------------------------------------------


def test_readyz_says_503_as_soon_as_a_write_failed_until_one_goes_through(
    make_client: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(/readyz answered 200 for about 1.3 s after the disk filled while moves already got 503:
    it followed only its own probe, whose answer it keeps.) The probe's answer is kept longer
    here, so that only the store's own writes can change what /readyz says."""
    monkeypatch.setattr("app.web.ops.health.PROBE_KEPT_S", 3600.0)
    with tiny_disk() as disk:
        store = SqlStore(f"sqlite:///{disk}/tripeaks.db")
        try:
            client = make_client(store, client_kwargs={"raise_server_exceptions": False})
            game_id = game_id_of(client.get(f"/g/{CODE}").text)
            assert client.get("/readyz").status_code == 200  # the probe went through: kept an hour
            filler = fill(disk)
            for _ in range(40):  # new games grow the file most
                if client.post("/api/games", json={"code": CODE}).status_code == 503:
                    break
            else:
                raise AssertionError("the full disk was never hit")
            ready = client.get("/readyz")
            assert ready.status_code == 503 and ready.text.startswith("not ready: the store cannot write")
            assert client.get("/healthz").status_code == 200
            filler.unlink()
            assert client.get("/readyz").status_code == 503  # until a write goes through
            assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
            assert client.get("/readyz").text == "ready\n"
        finally:
            store.close()


# -- a race's stream in a database outage -----------------------------------------------------


@pytest.mark.postgres
def test_a_race_s_stream_ends_whole_when_the_database_stops_and_comes_back(
    private_postgres: PrivatePostgres, tmp_path: Path
) -> None:
    """(The stream ended with "Exception in ASGI application" and a cut chunked body.) It ends as
    any stream ends (the browser opens it again after the ``retry`` it was told), and opens again
    once the database is back."""
    data = tmp_path / "data"
    data.mkdir()
    env = {"TRIPEAKS_DATABASE_URL": private_postgres.url, "TRIPEAKS_RATE_LIMITS": "false"}
    with live_server(data, env) as server, httpx.Client(base_url=server.url, timeout=20) as client:
        race_id = client.post("/api/races", json={"code": CODE}).json()["id"]
        stream = Stream(client, f"/races/{race_id}/events").open()
        assert stream.status == 200 and "race-start" in stream.next().data
        private_postgres.stop()
        try:
            with pytest.raises(EOFError):  # ended whole: not an httpx error of a cut body
                stream.next(timeout=40)  # its next read of the room (at most 15 s on)
        finally:
            private_postgres.start()
        deadline = time.monotonic() + 30
        while (again := Stream(client, f"/races/{race_id}/events").open()).status != 200:
            assert again.status == 503 and time.monotonic() < deadline, again.status
            time.sleep(0.5)  # the page waits its retry before it opens the stream again
        assert "race-start" in again.next().data
        again.close()
        log = server.output()
        assert "Exception in ASGI application" not in log and "Traceback" not in log, log
