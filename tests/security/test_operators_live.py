"""Issue 15, over real HTTP to a live uvicorn: cookies other apps garble, chunked bodies over the
limit, HEAD, /readyz on a read-only database, the request log, workers, backups while playing,
the secret key made by many processes at once, a server killed while it writes."""

from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient

from app.store.database.sql import SqlStore
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.apps import live_server
from tests.support.faults import MODE_CAPABILITIES, PrivatePostgres
from tests.support.pages import CODE, HX, game_id_of
from tests.support.servers import ROOT, TRIPEAKS_SERVE, LiveServer, start_server

TRIPEAKS = TRIPEAKS_SERVE


def moves_on_page(html: str) -> int:
    match = re.search(r'id="moves"[^>]*>(\d+)<', html)
    assert match, "no move count on the page"
    return int(match.group(1))


def raw_request(url: str, method: str, path: str, headers: Sequence[tuple[str, str]] = (),
                chunks: Sequence[bytes] | None = None) -> tuple[int, dict[str, list[str]], bytes]:
    """One HTTP/1.1 request written by hand (repeated headers, chunked bodies as they are)."""
    parts = urlsplit(url)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {parts.netloc}", "Connection: close",
             *(f"{name}: {value}" for name, value in headers)]
    if chunks is not None:
        lines.append("Transfer-Encoding: chunked")
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        try:
            for chunk in chunks or ():
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            if chunks is not None:
                sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered early and closed: read what it said
            pass
        data = b""
        while True:
            try:
                got = sock.recv(65536)
            except ConnectionResetError:
                break
            if not got:
                break
            data += got
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    found: dict[str, list[str]] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        found.setdefault(name.strip().lower(), []).append(value.strip())
    return int(status_line.split()[1]), found, body


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data", {"TRIPEAKS_RATE_LIMITS": "false"}) as running:
        yield running


# -- item 3: cookies other apps garble --------------------------------------------------------

GARBLED = ['prefs={"theme":"dark"}', "x=a b", 'junk="a', "x=\\", "=lonely", "novalue", 'q="a;b"']


@pytest.mark.parametrize("garbled", GARBLED)
def test_a_garbled_cookie_before_tp_player_keeps_the_players_game(server: LiveServer, garbled: str) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        game_id = game_id_of(client.get(f"/g/{CODE}").text)
        assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
        token = client.cookies["tp_player"]
    status, headers, body = raw_request(server.url, "GET", "/", [("Cookie", f"{garbled}; tp_player={token}")])
    if status == 303:
        status, headers, body = raw_request(server.url, "GET", headers["location"][0],
                                            [("Cookie", f"{garbled}; tp_player={token}")])
    assert status == 200
    html = body.decode()
    assert game_id_of(html) == game_id and moves_on_page(html) == 1
    assert not any(c.startswith("tp_player=") for c in headers.get("set-cookie", [])), "a new player was made"


def test_tp_player_on_a_second_cookie_line_is_read(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        game_id = game_id_of(client.get(f"/g/{CODE}").text)
        assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
        token = client.cookies["tp_player"]
    lines = [("Cookie", 'prefs={"a":1}; x=a b'), ("Cookie", f"tp_player={token}")]
    status, headers, body = raw_request(server.url, "GET", f"/g/{CODE}", lines)
    assert status == 200 and game_id_of(body.decode()) == game_id and moves_on_page(body.decode()) == 1
    assert "set-cookie" not in headers
    # another app's tp_player (a longer path: sent first) does not hide ours either
    lines = [("Cookie", f"tp_player=someone-elses; tp_player={token}")]
    status, headers, body = raw_request(server.url, "GET", f"/g/{CODE}", lines)
    assert status == 200 and game_id_of(body.decode()) == game_id and "set-cookie" not in headers


# -- item 4: chunked bodies over the limit ------------------------------------------------------


def test_chunked_bodies_over_the_limit_are_413_on_every_route_and_change_nothing(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        game_id = game_id_of(client.get(f"/g/{CODE}").text)
        api_id = httpx.post(server.url + "/api/games", json={"code": CODE}).json()["id"]  # nobody's: no cookie
        cookie = [("Cookie", f"tp_player={client.cookies['tp_player']}")]
        big = [b"position=1&" + b"x" * 4000 for _ in range(10)]  # 40 KB, no Content-Length
        routes = ["/api/games/{api}/draw", "/api/games/{api}/remove", "/api/games/{api}/undo", "/api/games",
                  "/games/{game}/draw", "/games/{game}/remove", "/games/{game}/undo", "/games/{game}/restart",
                  "/new", "/settings/language", "/settings/error-help", "/players/me/name"]
        for template in routes:
            path = template.format(api=api_id, game=game_id)
            status, _, body = raw_request(server.url, "POST", path,
                                          [*cookie, ("Content-Type", "application/x-www-form-urlencoded")], big)
            assert status == 413, f"{path}: {status} {body[:200]!r}"
        status, _, _ = raw_request(server.url, "PUT", "/api/players/me/name",
                                   [*cookie, ("Content-Type", "application/json")], big)
        assert status == 413
        assert client.get(f"/api/games/{api_id}").json()["moves"] == 0  # the draw was not applied
        page = client.get(f"/g/{CODE}").text
        assert game_id_of(page) == game_id and moves_on_page(page) == 0
        # a chunked body within the limit is handed on whole
        status, _, body = raw_request(server.url, "POST", f"/api/games/{api_id}/draw", cookie, [b"{}"])
        assert status == 200 and b'"moves":1' in body
        status, _, _ = raw_request(server.url, "POST", f"/games/{game_id}/draw", [*cookie, ("HX-Request", "true")],
                                   [b"a=1&", b"b=2"])
        assert status == 200
        assert moves_on_page(client.get(f"/g/{CODE}").text) == 1
        assert "Traceback" not in server.output()


# -- item 5: HEAD over real HTTP ----------------------------------------------------------------


def test_head_over_http_gives_the_get_headers_and_no_body(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        for path in ("/", f"/g/{CODE}", "/healthz", "/readyz", "/daily", "/stats", "/static/tripeaks.css"):
            status, headers, body = raw_request(server.url, "HEAD", path)
            got = client.get(path, follow_redirects=False)
            assert status == got.status_code and status != 405, path
            assert body == b"", path
            if path in ("/healthz", "/static/tripeaks.css"):
                assert headers["content-length"] == [str(len(got.content))]
    assert "Traceback" not in server.output() and "RuntimeError" not in server.output()


# -- item 6: readiness on a read-only database ------------------------------------------------


def unprivileged() -> list[str]:
    """A command prefix under which file modes bind: under root, root without the capabilities
    that let it ignore them. Not ``nobody``: it could not read a checkout or a Python kept under
    /root (mode 700), as on a fresh Debian where root runs ``make test``."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to run the server without root's file capabilities")
    caps = MODE_CAPABILITIES
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]


def test_readyz_is_503_with_the_reason_on_a_read_only_database_and_200_once_writable() -> None:
    run_as = unprivileged()
    root = Path(tempfile.mkdtemp(prefix="tripeaks-ready-", dir="/tmp"))
    root.chmod(0o755)
    data = root / "data"
    data.mkdir()
    try:
        with httpx.Client(timeout=10) as client:
            with live_server(data, run_as=run_as) as server:
                ready = client.get(f"{server.url}/readyz")
                assert ready.status_code == 200 and ready.text == "ready\n"
                assert client.post(f"{server.url}/api/games", json={"code": CODE}).status_code == 201
            for path in data.glob("tripeaks.db*"):
                path.chmod(0o444)
            with live_server(data, run_as=run_as) as server:
                for _ in range(2):
                    answer = client.get(f"{server.url}/readyz")
                    assert answer.status_code == 503, answer.text
                    assert answer.text.startswith("not ready: the store cannot write")
                    assert answer.text == "not ready: the store cannot write\n"  # the details are the log's
                    assert answer.headers["retry-after"] == "5" and "set-cookie" not in answer.headers
                alive = client.get(f"{server.url}/healthz")
                assert alive.status_code == 200 and "set-cookie" not in alive.headers
                assert "not ready: the store cannot write: " in server.output()  # and why: read-only
                assert "readonly" in server.output().lower(), server.output()
                for path in data.glob("tripeaks.db*"):
                    path.chmod(0o644)
                deadline = time.monotonic() + 10
                while (answer := client.get(f"{server.url}/readyz")).status_code != 200:
                    assert time.monotonic() < deadline, answer.text
                    time.sleep(0.3)
                assert answer.text == "ready\n"
                assert "Traceback" not in server.output(), server.output()
    finally:
        shutil.rmtree(root, ignore_errors=True)


# -- logs: one line per request, with its id ------------------------------------------------


def test_tripeaks_serve_logs_one_line_per_request_with_its_id(tmp_path: Path) -> None:
    server = start_server(tmp_path / "data", {"TRIPEAKS_RATE_LIMITS": "false"}, command=TRIPEAKS)
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            given = client.get(f"/g/{CODE}", headers={"X-Request-ID": "lb-0001.abc"})
            assert given.headers["x-request-id"] == "lb-0001.abc"
            made = client.post("/api/games", json={"code": CODE}, headers={"X-Request-ID": "not sane!"})
            made_id = made.headers["x-request-id"]
            assert re.fullmatch(r"[0-9a-f]{32}", made_id)
            for _ in range(5):
                client.get("/readyz")
            time.sleep(0.3)
    finally:
        server.stop()
    log = server.log.read_text()
    lines = [line for line in log.splitlines() if " id=" in line]
    assert any(f'"GET /g/{CODE} HTTP/1.1" 200' in line and line.endswith("id=lb-0001.abc") for line in lines), log
    assert any('"POST /api/games HTTP/1.1" 201' in line and line.endswith(f"id={made_id}") for line in lines), log
    readyz = [line for line in lines if '"GET /readyz HTTP/1.1"' in line]
    assert len(readyz) == 5 and len({line.rsplit("id=", 1)[1] for line in readyz}) == 5
    assert len([line for line in log.splitlines() if "/readyz" in line]) == 5  # no second access log


# -- workers ----------------------------------------------------------------------------------


def worker_processes(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()]


def test_tripeaks_serve_starts_the_workers_the_setting_asks_for(tmp_path: Path) -> None:
    env = {"TRIPEAKS_WORKERS": "2", "TRIPEAKS_METRICS": "true", "TRIPEAKS_RATE_LIMITS": "false"}
    server = start_server(tmp_path / "two", env, command=TRIPEAKS, timeout=120)  # a busy machine starts slowly
    try:
        deadline = time.monotonic() + 30
        while len(worker_processes(server.process.pid)) < 2:
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.2)
        assert len(worker_processes(server.process.pid)) == 2
        with httpx.Client(base_url=server.url, timeout=10) as client:
            for _ in range(20):  # spread over both workers; each scrape adds them all up
                assert client.get("/healthz").status_code == 200
            text = client.get("/metrics").text
        counted = re.search(r'tripeaks_requests_total\{method="GET",route="/healthz",status="200"\} (\S+)', text)
        assert counted and float(counted.group(1)) >= 20, text[:2000]
    finally:
        server.stop()
    server = start_server(tmp_path / "one", env, command=[*TRIPEAKS, "--workers", "1"])
    try:
        assert worker_processes(server.process.pid) == []  # --workers wins: one process, no workers
    finally:
        server.stop()


# -- backups --------------------------------------------------------------------------------------


def test_backup_while_the_server_is_played_is_consistent(server: LiveServer, tmp_path: Path) -> None:
    database = Path(server.log.parent / "data" / "tripeaks.db")
    stop = threading.Event()
    acknowledged: list[int] = []
    failures: list[str] = []

    def play() -> None:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            while not stop.is_set():
                game = client.post("/api/games", json={"code": CODE}).json()["id"]
                for _ in range(20):
                    answer = client.post(f"/api/games/{game}/draw")
                    if answer.status_code != 200:
                        failures.append(answer.text)
                acknowledged.append(1)

    players = [threading.Thread(target=play) for _ in range(2)]
    for player in players:
        player.start()
    try:
        time.sleep(0.5)
        env = {**os.environ, "TRIPEAKS_DATABASE_URL": f"sqlite:///{database}"}
        for number in range(3):
            games_before = len(acknowledged)
            target = tmp_path / f"backup-{number}.db"
            done = subprocess.run([sys.executable, "-m", "app.cli", "backup", str(target)], cwd=ROOT,
                                  env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
            assert re.fullmatch(r"backed up \d+ games \(\d+ bytes\) to .*\n", done.stdout)
            with sqlite3.connect(target) as copy:
                assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one file
                (count,) = copy.execute("SELECT count(*) FROM tp_games").fetchone()
                moves = copy.execute("SELECT moves, state FROM tp_games").fetchall()
            assert count >= games_before  # every game finished before the backup is in it
            assert all(m <= 20 for m, _ in moves)
            time.sleep(0.3)
    finally:
        stop.set()
        for player in players:
            player.join(timeout=30)
    assert not failures and len(acknowledged) > 3
    assert not list(tmp_path.glob(".*partial*"))


def test_backup_refuses_what_it_cannot_copy(tmp_path: Path) -> None:
    def backup(url: str, target: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "app.cli", "backup", str(target)], cwd=ROOT,
                              env={**os.environ, "TRIPEAKS_DATABASE_URL": url}, capture_output=True, text=True)

    pg = backup("postgresql://tripeaks@db.example/tripeaks", tmp_path / "x.db")
    assert pg.returncode == 2 and "pg_dump" in pg.stderr and not (tmp_path / "x.db").exists()
    missing = backup(f"sqlite:///{tmp_path}/none.db", tmp_path / "y.db")
    assert missing.returncode == 2 and "no database at" in missing.stderr
    memory = backup("memory://", tmp_path / "z.db")
    assert memory.returncode == 2 and "nothing to back up" in memory.stderr


# -- item 7: the secret key, made by many processes at once ---------------------------------


def _make_key(folder: str, barrier: multiprocessing.synchronize.Barrier, out: multiprocessing.Queue[str]) -> None:
    barrier.wait()
    out.put(Settings(data_dir=Path(folder)).signing_key())


def test_many_processes_starting_at_once_all_read_the_one_whole_key(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    processes = 8
    for attempt in range(25):
        folder = tmp_path / f"data-{attempt}"
        barrier, out = context.Barrier(processes), context.Queue()
        started = [context.Process(target=_make_key, args=(str(folder), barrier, out)) for _ in range(processes)]
        for process in started:
            process.start()
        keys = [out.get(timeout=30) for _ in started]
        for process in started:
            process.join(timeout=30)
            assert process.exitcode == 0
        assert len(set(keys)) == 1 and len(keys[0]) >= 40, keys
        kept = folder / "secret_key"
        assert kept.read_text() == keys[0] and (kept.stat().st_mode & 0o777) == 0o600
        assert sorted(p.name for p in folder.iterdir()) == ["secret_key"]  # no temporary file left


# -- item 8: a server killed while it writes ---------------------------------------------------


def test_a_killed_server_leaves_no_traceback_in_its_log(tmp_path: Path) -> None:
    for round_ in range(4):
        server = start_server(tmp_path / f"data-{round_}", {"TRIPEAKS_RATE_LIMITS": "false"})
        stop = threading.Event()

        def play(server: LiveServer = server, stop: threading.Event = stop) -> None:
            with httpx.Client(base_url=server.url, timeout=5) as client:
                try:
                    game = client.post("/api/games", json={"code": CODE}).json()["id"]
                    while not stop.is_set():
                        client.post(f"/api/games/{game}/draw")
                        client.post(f"/api/games/{game}/undo")
                except httpx.HTTPError:  # the server was killed
                    return

        players = [threading.Thread(target=play) for _ in range(4)]
        for player in players:
            player.start()
        time.sleep(0.8)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)
        stop.set()
        for player in players:
            player.join(timeout=10)
        output = server.log.read_text(errors="replace")
        assert "Traceback" not in output and "BrokenPipeError" not in output, output[-3000:]


@pytest.mark.postgres
def test_readyz_follows_a_postgresql_server_going_down_and_up(private_postgres: PrivatePostgres, tmp_path: Path) -> None:
    store = SqlStore(private_postgres.url)
    settings = Settings(secret_key="x" * 32, database_url="memory://", data_dir=tmp_path, idle_days=0)
    try:
        with TestClient(create_app(settings, store=store), raise_server_exceptions=False) as client:
            assert client.get("/readyz").status_code == 200
            private_postgres.stop()
            time.sleep(1.1)  # the last answer is kept a second
            down = client.get("/readyz")
            assert down.status_code == 503 and down.text.startswith("not ready: the store cannot write")
            assert client.get("/healthz").status_code == 200
            private_postgres.start()
            deadline = time.monotonic() + 20
            while (up := client.get("/readyz")).status_code != 200:
                assert time.monotonic() < deadline, up.text
                time.sleep(0.3)
    finally:
        store.close()
