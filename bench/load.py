"""Load benchmark: N simulated players on loopback playing real games for a fixed time.

For each backend it starts the game server (uvicorn: one worker on SQLite, two on
PostgreSQL by default) and, for each player count, lets that many players play for
``--seconds``, then stops by itself. Each player is one browser: its own cookie and
keep-alive connection. It opens the site (``GET /``, which deals a game, then the game
page), then plays through the htmx routes the page uses: removes a playable card (75%),
draws, or undoes (10%), and deals a new game (``POST /new``) when its game is won or
blocked; between two requests it thinks for 0.5 to 2 s (uniform), as a person does.
Every request is timed from the client; any answer >= 400, any connection error or
timeout (10 s) is an error.

Printed, and written to ``--out`` (JSON): per backend and player count, the requests and
requests/s, the errors, latency p50/p95/p99/max (all requests, and moves alone), and the
server's CPU time per request and its CPU load. ``--png`` draws latency against players
(needs matplotlib: ``pip install -e '.[bench]'``).

    .venv/bin/python bench/load.py                               # sqlite and postgresql, 10/100/500 players, 60 s each
    .venv/bin/python bench/load.py --backend sqlite --players 10 --seconds 10
    .venv/bin/python bench/load.py --chart test-output/load.json --png docs/load_latency.png

Rate limits stay on for moves (per player, as deployed); the per-address ones are off,
since every simulated player comes from 127.0.0.1. Only 127.0.0.1 is ever contacted; at
most 2,000 players and 600 s per run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import Game, Status  # noqa: E402

HOST = "127.0.0.1"
HX = {"HX-Request": "true"}
MAX_PLAYERS = 2000
MAX_SECONDS = 600.0
TIMEOUT_S = 10.0
THINK_S = (0.5, 2.0)
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
WORKERS = {"sqlite": 1, "postgresql": 2, "memory": 1}


# -- an HTTP/1.1 keep-alive client with a cookie jar (cheap: the load generator shares the CPUs) --


class Answer:
    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body


class Browser:
    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, form: dict[str, object] | None = None,
                      headers: dict[str, str] | None = None) -> Answer:
        try:
            return await asyncio.wait_for(self._request(method, path, form, headers), TIMEOUT_S)
        except BaseException:
            self.close()  # a broken or timed-out connection is not reused
            raise

    async def _request(self, method: str, path: str, form: dict[str, object] | None,
                       headers: dict[str, str] | None) -> Answer:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        body = "&".join(f"{k}={v}" for k, v in (form or {}).items()).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}", f"Content-Length: {len(body)}",
                 "Accept-Language: en", "Sec-Fetch-Site: same-origin"]
        if form is not None:
            lines.append("Content-Type: application/x-www-form-urlencoded")
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        answer_headers: dict[str, str] = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
            elif name:
                answer_headers[name] = value
        content = await self.reader.readexactly(int(answer_headers.get("content-length", "0")))
        if answer_headers.get("connection", "").lower() == "close":
            self.close()
        return Answer(status, answer_headers, content)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# -- the players --------------------------------------------------------------------------------


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    moves: list[float] = field(default_factory=list)
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    games_dealt: int = 0
    games_finished: int = 0

    def error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1


GAME_ID = re.compile(rb'data-game-id="([^"]+)"')


class Player:
    def __init__(self, port: int, seed: int, tally: Tally) -> None:
        self.browser = Browser(port)
        self.random = random.Random(seed)
        self.tally = tally
        self.game: Game | None = None
        self.game_id = ""

    async def timed(self, method: str, path: str, form: dict[str, object] | None = None,
                    headers: dict[str, str] | None = None, *, move: bool = False) -> Answer | None:
        start = time.perf_counter()
        try:
            answer = await self.browser.request(method, path, form, headers)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as error:
            self.tally.error(type(error).__name__)
            return None
        elapsed = time.perf_counter() - start
        self.tally.latencies.append(elapsed)
        if move:
            self.tally.moves.append(elapsed)
        if answer.status >= 400:
            self.tally.error(f"HTTP {answer.status}")
            return None
        return answer

    async def open_site(self) -> bool:
        """``GET /``: the server deals a game and redirects to its page, which the browser loads."""
        answer = await self.timed("GET", "/")
        if answer is None or "location" not in answer.headers:
            return False
        page = await self.timed("GET", answer.headers["location"])
        return page is not None and self.adopt(page, answer.headers["location"].rsplit("/", 1)[1])

    async def new_game(self) -> bool:
        answer = await self.timed("POST", "/new", {"rules": self.random.choice(("easy", "classic"))}, HX)
        return answer is not None and self.adopt(answer, answer.headers.get("hx-push-url", "").rsplit("/", 1)[-1])

    def adopt(self, answer: Answer, code: str) -> bool:
        found = GAME_ID.search(answer.body)
        if found is None or not code:
            self.tally.error("no game in the page")
            return False
        self.game_id, self.game = found.group(1).decode(), Game.from_code(code)
        self.tally.games_dealt += 1
        return True

    async def move(self) -> None:
        game = self.game
        if game is None or game.status is not Status.PLAYING:
            if game is not None:
                self.tally.games_finished += 1
            await self.new_game()
            return
        playable = game.playable_positions()
        roll = self.random.random()
        base = f"/games/{self.game_id}"
        if game.undo_available and roll < 0.1:
            if await self.timed("POST", f"{base}/undo", {}, HX, move=True):
                game.undo()
        elif playable and (roll < 0.85 or not game.can_draw()):
            position = self.random.choice(playable)
            if await self.timed("POST", f"{base}/remove", {"position": position}, HX, move=True):
                game.remove(position)
        elif await self.timed("POST", f"{base}/draw", {}, HX, move=True):
            game.draw()

    async def play(self, deadline: float) -> None:
        await asyncio.sleep(self.random.uniform(0, THINK_S[1]))  # players arrive over the first seconds
        opened = await self.open_site()
        while time.monotonic() < deadline:
            await asyncio.sleep(self.random.uniform(*THINK_S))
            if time.monotonic() >= deadline:
                break
            if not opened:
                opened = await self.open_site()
                continue
            await self.move()
        self.browser.close()


# -- the server ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@contextmanager
def database(backend: str, postgres_url: str, folder: Path) -> Iterator[str]:
    """A fresh database for one run: a SQLite file, or a PostgreSQL schema dropped afterwards."""
    if backend == "memory":
        yield "memory://"
    elif backend == "sqlite":
        yield f"sqlite:///{folder}/load.db"
    else:
        import psycopg

        schema = "load_" + secrets.token_hex(4)
        admin_url = postgres_url.replace("postgresql+psycopg://", "postgresql://", 1)
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f"CREATE SCHEMA {schema}")
            try:
                yield f"{postgres_url}?options=-csearch_path%3D{schema}"
            finally:
                admin.execute(f"DROP SCHEMA {schema} CASCADE")


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int

    def cpu_seconds(self) -> float:
        """User + system CPU of the server and its worker processes so far."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in [self.process.pid, *children(self.process.pid)]:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / ticks
        return total


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found + [g for c in found for g in children(c)]


@asynccontextmanager
async def serve(database_url: str, workers: int, folder: Path, *, port: int | None = None,
                extra_env: dict[str, str] | None = None) -> AsyncIterator[Server]:
    port = port or free_port()
    env = {
        **os.environ,
        "TRIPEAKS_DATABASE_URL": database_url,
        "TRIPEAKS_DATA_DIR": str(folder),
        "TRIPEAKS_SECRET_KEY": "load-bench-secret-key-0123456789abcdef",
        # Every simulated player comes from 127.0.0.1: the per-address limits would stop them.
        "TRIPEAKS_RATE_LIMIT_NEW_GAMES": "off",
        "TRIPEAKS_RATE_LIMIT_PAGES": "off",
        "TRIPEAKS_RATE_LIMIT_ACTIONS_PER_ADDRESS": "off",
        **(extra_env or {}),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.web.main:create_app", "--factory", "--host", HOST,
         "--port", str(port), "--workers", str(workers), "--log-level", "warning", "--no-access-log",
         "--backlog", "4096"],
        cwd=ROOT, env=env,
    )
    server = Server(process, port)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = await Browser(port).request("GET", "/healthz")
                if answer.status == 200:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            await asyncio.sleep(0.2)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()


# -- runs ---------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU time of the whole machine so far, from /proc/stat, in ticks."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


async def probe(port: int, deadline: float, healthz: list[float], lag: list[float]) -> None:
    """Every 100 ms: time ``GET /healthz`` (the server's event loop, no database) and how late
    this loop woke up (the load generator's own delay, which every latency here includes)."""
    browser = Browser(port)
    while time.monotonic() < deadline:
        planned = time.perf_counter() + 0.1
        await asyncio.sleep(0.1)
        lag.append(max(0.0, time.perf_counter() - planned))
        start = time.perf_counter()
        try:
            await browser.request("GET", "/healthz")
            healthz.append(time.perf_counter() - start)
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
    browser.close()


async def run_level(server: Server, players: int, seconds: float, seed: int) -> dict[str, Any]:
    tally = Tally()
    crowd = [Player(server.port, seed * 100_003 + i, tally) for i in range(players)]
    healthz: list[float] = []
    lag: list[float] = []
    cpu_before, start = server.cpu_seconds(), time.monotonic()
    busy_before, ticks_before = machine_busy()
    own_before = time.process_time()
    await asyncio.gather(probe(server.port, start + seconds, healthz, lag), *(p.play(start + seconds) for p in crowd))
    elapsed = time.monotonic() - start
    cpu = server.cpu_seconds() - cpu_before
    busy, ticks = machine_busy()
    requests = len(tally.latencies)
    return {
        "players": players,
        "seconds": round(elapsed, 1),
        "requests": requests,
        "requests_per_s": round(requests / elapsed, 1),
        "errors": tally.errors,
        "error_kinds": tally.error_kinds,
        "p50_ms": round(pct(tally.latencies, 0.50), 2),
        "p95_ms": round(pct(tally.latencies, 0.95), 2),
        "p99_ms": round(pct(tally.latencies, 0.99), 2),
        "max_ms": round(max(tally.latencies, default=0) * 1000, 2),
        "move_p50_ms": round(pct(tally.moves, 0.50), 2),
        "move_p99_ms": round(pct(tally.moves, 0.99), 2),
        "games_dealt": tally.games_dealt,
        "games_finished": tally.games_finished,
        "server_cpu_ms_per_request": round(cpu / requests * 1000, 2) if requests else None,
        "server_cpu_cores": round(cpu / elapsed, 2),
        "load_generator_cpu_cores": round((time.process_time() - own_before) / elapsed, 2),
        "machine_cpu_busy": round((busy - busy_before) / max(1, ticks - ticks_before), 2),
        "healthz_p50_ms": round(pct(healthz, 0.50), 2),
        "healthz_p99_ms": round(pct(healthz, 0.99), 2),
        "client_lag_p99_ms": round(pct(lag, 0.99), 2),
    }


def machine() -> dict[str, Any]:
    try:
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor()
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "kernel": platform.release(),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }


def print_row(backend: str, workers: int, row: dict[str, Any]) -> None:
    print(f"{backend:10s} {workers} worker{'s' if workers > 1 else ' '} {row['players']:5d} players "
          f"{row['requests_per_s']:7.1f} req/s  {row['errors']:4d} errors  "
          f"p50 {row['p50_ms']:6.1f}  p95 {row['p95_ms']:6.1f}  p99 {row['p99_ms']:6.1f}  max {row['max_ms']:7.1f} ms  "
          f"server CPU {row['server_cpu_cores']:.2f} cores, {row['server_cpu_ms_per_request']} ms/request; "
          f"load generator {row['load_generator_cpu_cores']:.2f} cores; machine {row['machine_cpu_busy']:.0%} busy; "
          f"/healthz p99 {row['healthz_p99_ms']:.1f} ms; client lag p99 {row['client_lag_p99_ms']:.1f} ms"
          + (f"  {row['error_kinds']}" if row["errors"] else ""), flush=True)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"machine": machine(), "think_s": THINK_S, "seconds": args.seconds, "runs": []}
    for backend in args.backend:
        workers = args.workers or WORKERS[backend]
        with tempfile.TemporaryDirectory() as folder, database(backend, args.postgres_url, Path(folder)) as url:
            async with serve(url, workers, Path(folder)) as server:
                rows = []
                for players in args.players:
                    row = await run_level(server, players, args.seconds, args.seed)
                    row["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
                    print_row(backend, workers, row)
                    rows.append(row)
                results["runs"].append({"backend": backend, "workers": workers, "levels": rows})
    return results


def chart(results: list[dict[str, Any]], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=120)
    styles = {"p50_ms": ("-", "p50"), "p95_ms": ("--", "p95"), "p99_ms": (":", "p99")}
    colours = {"sqlite": "tab:blue", "postgresql": "tab:orange", "memory": "tab:green"}
    for result in results:
        for run in result["runs"]:
            players = [level["players"] for level in run["levels"]]
            for key, (style, name) in styles.items():
                axes.plot(players, [level[key] for level in run["levels"]], style, marker="o",
                          color=colours.get(run["backend"], "black"),
                          label=f"{run['backend']} ({run['workers']} worker{'s' if run['workers'] > 1 else ''}) {name}")
    axes.axhline(50, color="grey", linewidth=0.8)
    axes.set_xscale("log")
    axes.set_yscale("log")
    counts = sorted({level["players"] for result in results for run in result["runs"] for level in run["levels"]})
    axes.set_xticks(counts, [str(n) for n in counts])
    axes.text(counts[0], 53, "50 ms: the p99 target at 100 players", color="grey", fontsize=8, va="bottom")
    axes.set_xlabel("simulated players (each thinking 0.5 to 2 s between requests)")
    axes.set_ylabel("latency, ms (client side, loopback)")
    axes.set_title("TriPeaks under load: request latency against players")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7, ncol=2, loc="upper left")
    figure.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(png)
    print(f"chart: {png}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", nargs="+", choices=("sqlite", "postgresql", "memory"),
                        default=["sqlite", "postgresql"])
    parser.add_argument("--players", nargs="+", type=int, default=[10, 100, 500])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long each player count plays")
    parser.add_argument("--workers", type=int, help="server processes (default: 1 on SQLite, 2 on PostgreSQL)")
    parser.add_argument("--postgres-url", default=os.environ.get("TRIPEAKS_TEST_POSTGRES_URL", DEFAULT_POSTGRES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the results here (JSON)")
    parser.add_argument("--png", type=Path, help="draw latency against players here (needs matplotlib)")
    parser.add_argument("--chart", type=Path, nargs="+", help="only draw the chart from these result files")
    args = parser.parse_args()
    if args.chart:
        if not args.png:
            parser.error("--chart needs --png")
        chart([json.loads(path.read_text()) for path in args.chart], args.png)
        return
    if max(args.players) > MAX_PLAYERS or min(args.players) < 1:
        parser.error(f"players: 1 to {MAX_PLAYERS}")
    if not 1 <= args.seconds <= MAX_SECONDS:
        parser.error(f"seconds: 1 to {MAX_SECONDS:.0f}")
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    results = asyncio.run(main_async(args))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))
        print(f"results: {args.out}")
    if args.png:
        chart([results], args.png)


if __name__ == "__main__":
    main()

