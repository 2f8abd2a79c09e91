"""Web benchmark: the move request against a trivial endpoint, over real HTTP on loopback.

Starts uvicorn (one worker) in a subprocess, then drives it with simulated players,
each with its own cookie, playing real games through the htmx routes (remove, draw,
undo, new game when a game ends). Prints:

* closed-loop throughput (every player sends its next request as soon as the last
  one is answered) for the move request and for two trivial requests in the same run,
  their ratios (the figure that counts on a noisy machine), and the server's CPU time per
  request of each (from /proc). The trivial requests: **the trivial page**, a plain
  ``def`` route through every middleware with the player's cookie checked, as a page
  goes (``bench/yardstick.py`` adds it to the app; the yardstick the targets were set
  on), and ``/healthz``, the monitors' coroutine that skips the player cookie;
* latency p50/p99 of the move request at N players who think between moves
  (``--think`` ms, as people do; they arrive at random moments), and of the trivial
  page under the same load;
* each phase runs ``--rounds`` times (5), alternating, and the medians are reported;
  in a move phase, the games dealt when one ends are requests too (counted, not timed);
* bytes: the full page, the board fragment of a move, everything the first page
  load downloads, raw and gzipped.

    .venv/bin/python bench/web.py [--players 50] [--seconds 5] [--rounds 5] [--think 250]

With ``--against FOLDER``, instead: the server CPU of a move and of the trivial page in this
checkout and in another one (main, exported), in the same run (issue 38's 5 % budget):

    git archive main | tar -x -C /tmp/main
    .venv/bin/python bench/web.py --against /tmp/main [--players 20] [--seconds 5] [--rounds 6]

With ``--guard``, instead: the server CPU of a move as shipped and without each of the clever
parts on its path (``bench/yardstick.py``: each put back to the plain way it replaced), and
what each part saves as a share of a move (docs/performance.md, "The clever parts").

    .venv/bin/python bench/web.py --guard [--players 20] [--seconds 5] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import Game, Status  # noqa: E402
from bench.yardstick import PARTS, TRIVIAL_PAGE  # noqa: E402

TRIVIAL: dict[str, str] = {"trivial": TRIVIAL_PAGE, "healthz": "/healthz"}
"""The trivial requests, by the name the output gives them."""

HX = {"HX-Request": "true"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(database_url: str, data: str, without: str = "", root: Path = ROOT,
                 port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    port = port or free_port()
    env = {
        **os.environ,
        "TRIPEAKS_BENCH_WITHOUT": without,  # bench/yardstick.py: the plain version of these parts
        "TRIPEAKS_DATABASE_URL": database_url,
        "TRIPEAKS_DATA_DIR": data,
        "TRIPEAKS_SECRET_KEY": "bench-secret-key-0123456789abcdef",
        "TRIPEAKS_RATE_LIMITS": "false",  # closed-loop players would be throttled (bench/load.py keeps them on)
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "bench.yardstick:create_app", "--factory",
         "--port", str(port), "--log-level", "warning", "--no-access-log"],
        cwd=root, env=env,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(url + "/healthz").status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("server did not start")


class Response:
    def __init__(self, status_code: int, headers: dict[str, str], content: bytes) -> None:
        self.status_code, self.headers, self.content = status_code, headers, content

    @property
    def text(self) -> str:
        return self.content.decode()


class RawClient:
    """A minimal HTTP/1.1 keep-alive client on asyncio streams, with one cookie jar.

    httpx costs the load generator more CPU per request than the server spends on a
    trivial endpoint; on a 2-core machine that would measure the client, not the server.
    """

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, data: dict[str, object] | None = None,
                      headers: dict[str, str] | None = None) -> Response:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        body = "&".join(f"{k}={v}" for k, v in (data or {}).items()).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}", f"Content-Length: {len(body)}"]
        if data is not None:
            lines.append("Content-Type: application/x-www-form-urlencoded")
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        assert self.reader is not None
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        response_headers: dict[str, str] = {}
        for line in head[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                name, value = name.lower(), value.strip()
                if name == "set-cookie":
                    key, _, rest = value.partition("=")
                    self.cookies[key] = rest.split(";", 1)[0]
                response_headers[name] = value
        content = await self.reader.readexactly(int(response_headers.get("content-length", "0")))
        return Response(status, response_headers, content)

    async def post(self, path: str, data: dict[str, object] | None = None,
                   headers: dict[str, str] | None = None) -> Response:
        return await self.request("POST", path, data if data is not None else {}, headers)

    async def get(self, path: str) -> Response:
        return await self.request("GET", path)

    async def aclose(self) -> None:
        """Close the connection (the next request opens a new one; the cookies are kept)."""
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


class Player:
    def __init__(self, url: str, seed: int) -> None:
        self.client = RawClient(url)
        self.random = random.Random(seed)
        self.game: Game | None = None
        self.game_id = ""
        self.dealt = 0
        """Games dealt (``POST /new``) when one ended: requests of their own in a move phase."""

    async def new_game(self) -> None:
        self.dealt += 1
        response = await self.client.post("/new", data={"rules": "easy"}, headers=HX)
        self.game_id = re.search(r'data-game-id="([^"]+)"', response.text).group(1)  # type: ignore[union-attr]
        code = response.headers["hx-push-url"].rsplit("/", 1)[1]
        self.game = Game.from_code(code)

    async def move(self) -> tuple[float, int]:
        """One real move; returns its latency in seconds and the response size."""
        game = self.game
        assert game is not None
        if game.status is not Status.PLAYING:
            await self.new_game()
            game = self.game
            assert game is not None
        playable = game.playable_positions()
        roll = self.random.random()
        start = time.perf_counter()
        if game.undo_available and roll < 0.1:
            response = await self.client.post(f"/games/{self.game_id}/undo", headers=HX)
            game.undo()
        elif playable and (roll < 0.75 or not game.can_draw()):
            position = self.random.choice(playable)
            response = await self.client.post(
                f"/games/{self.game_id}/remove", data={"position": position}, headers=HX
            )
            game.remove(position)
        else:
            response = await self.client.post(f"/games/{self.game_id}/draw", headers=HX)
            game.draw()
        elapsed = time.perf_counter() - start
        if response.status_code != 200:
            raise RuntimeError(f"move answered {response.status_code}: {response.text[:200]}")
        return elapsed, len(response.content)

    async def trivial(self, path: str) -> tuple[float, int]:
        start = time.perf_counter()
        response = await self.client.get(path)
        if response.status_code != 200:
            raise RuntimeError(f"{path} answered {response.status_code}")
        return time.perf_counter() - start, len(response.content)


async def run(players: list[Player], what: str, seconds: float, think_ms: float) -> list[float]:
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []

    async def loop(player: Player) -> None:
        if think_ms:  # players arrive at random moments, not all in the same millisecond
            await asyncio.sleep(player.random.uniform(0, 1.5) * think_ms / 1000)
        while time.perf_counter() < deadline:
            elapsed, _ = await (player.move() if what == "move" else player.trivial(TRIVIAL[what]))
            latencies.append(elapsed)
            if think_ms:
                await asyncio.sleep(player.random.uniform(0.5, 1.5) * think_ms / 1000)

    await asyncio.gather(*(loop(p) for p in players))
    return latencies


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the server has used so far, from /proc: the process and
    the processes it started (the hint analysis's workers, say), which share the same CPUs."""
    total = 0
    for each in [pid, *children(pid)]:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, and theirs."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent == pid:
                found += [int(entry.name), *children(int(entry.name))]
    return found


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def first_load(url: str) -> dict[str, int]:
    async with httpx.AsyncClient(base_url=url, follow_redirects=True) as client:
        page = await client.get("/g/TP1-E-AAAAAAB")
        assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', page.text)
        bodies = [page.content] + [(await client.get(a)).content for a in assets]
        game_id = re.search(r'data-game-id="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
        fragment = await client.post(f"/games/{game_id}/draw", headers=HX)
    return {
        "page": len(page.content),
        "page_gzip": len(gzip.compress(page.content)),
        "fragment": len(fragment.content),
        "fragment_gzip": len(gzip.compress(fragment.content)),
        "first_load": sum(len(b) for b in bodies),
        "first_load_gzip": sum(len(gzip.compress(b)) for b in bodies),
        "files": len(bodies),
    }


async def main_async(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as data:
        url_db = args.database_url or f"sqlite:///{data}/bench.db"
        process, url = start_server(url_db, data)
        try:
            sizes = await first_load(url)
            players = [Player(url, seed) for seed in range(args.players)]
            await asyncio.gather(*(p.new_game() for p in players))
            await run(players, "move", 1, 0)  # warm up
            print(f"server: uvicorn, 1 worker, store {url_db.split(':')[0]}; {args.players} players; "
                  f"load average before {os.getloadavg()[0]:.2f}; "
                  f"{os.cpu_count()} cores shared with the load generator")
            ratios: dict[str, list[float]] = {"trivial": [], "healthz": []}
            cpu_ratios: dict[str, list[float]] = {"trivial": [], "healthz": []}
            p99s: dict[str, list[float]] = {"move": [], "trivial": []}
            for round_ in range(1, args.rounds + 1):
                results, cpu = {}, {}
                for what in ("move", "trivial", "healthz"):
                    used = cpu_seconds(process.pid)
                    dealt = sum(p.dealt for p in players)
                    lat = await run(players, what, args.seconds, 0)
                    results[what] = len(lat) / args.seconds
                    cpu[what] = (cpu_seconds(process.pid) - used) / len(lat) * 1e6
                    dealt = sum(p.dealt for p in players) - dealt
                    print(f"round {round_} closed loop {what:8s}: {results[what]:6.0f} req/s  "
                          f"p50 {pct(lat, .5):6.1f} ms  p99 {pct(lat, .99):6.1f} ms  server CPU {cpu[what]:5.0f} µs/request"
                          + (f"  (and {dealt} games dealt)" if dealt else ""))
                for what in ratios:
                    ratios[what].append(results["move"] / results[what])
                    cpu_ratios[what].append(cpu[what] / cpu["move"])
            for round_ in range(1, args.rounds + 1):
                for what in ("move", "trivial"):
                    lat = await run(players, what, args.seconds, args.think)
                    p99s[what].append(pct(lat, .99))
                    print(f"round {round_} {args.players} players thinking ~{args.think:.0f} ms, {what:8s}: "
                          f"{len(lat) / args.seconds:6.0f} req/s  p50 {pct(lat, .5):6.1f} ms  p99 {pct(lat, .99):6.1f} ms")
            for what, name in (("trivial", "the trivial page"), ("healthz", "/healthz")):
                print(f"move / {name} throughput ratio, median of {args.rounds} rounds: "
                      f"{statistics.median(ratios[what]):.2f} (rounds: {', '.join(f'{r:.2f}' for r in ratios[what])}; "
                      f"server CPU per request, {name} / move: {statistics.median(cpu_ratios[what]):.2f})")
            print(f"p99 at {args.players} thinking players, median of {args.rounds} rounds: move "
                  f"{statistics.median(p99s['move']):.1f} ms, the trivial page {statistics.median(p99s['trivial']):.1f} ms")
            print(f"full page {sizes['page']} B ({sizes['page_gzip']} B gzipped); board fragment "
                  f"{sizes['fragment']} B ({sizes['fragment_gzip']} B gzipped)")
            print(f"first load: {sizes['files']} files, {sizes['first_load']} B raw, {sizes['first_load_gzip']} B gzipped")
            for p in players:
                await p.client.aclose()
        finally:
            process.terminate()
            process.wait(10)


async def guard(args: argparse.Namespace) -> None:
    """Server CPU per move with every clever part (as shipped) and without each one in turn:
    one server per variant, all started at once, their move phases taken in turn each round
    (a different order each round), so a machine that speeds up or slows down meets all."""
    variants = ["", *PARTS]
    with tempfile.TemporaryDirectory() as data:
        servers = {}
        try:
            for variant in variants:
                folder = Path(data) / (variant or "shipped")
                folder.mkdir()
                servers[variant] = start_server(args.database_url or f"sqlite:///{folder}/bench.db",
                                                str(folder), without=variant)
            players = {v: [Player(url, seed) for seed in range(args.players)] for v, (_, url) in servers.items()}
            for variant in variants:
                await asyncio.gather(*(p.new_game() for p in players[variant]))
                await run(players[variant], "move", 1, 0)  # warm up
            print(f"guard: {args.players} players, {args.rounds} rounds of {args.seconds:.0f} s per variant; "
                  f"load average before {os.getloadavg()[0]:.2f}")
            cpu: dict[str, list[float]] = {v: [] for v in variants}
            for round_ in range(args.rounds):
                for variant in variants[round_ % len(variants):] + variants[:round_ % len(variants)]:
                    process = servers[variant][0]
                    for p in players[variant]:  # idle since its last phase: the server closed them
                        await p.client.aclose()
                    used = cpu_seconds(process.pid)
                    lat = await run(players[variant], "move", args.seconds, 0)
                    cpu[variant].append((cpu_seconds(process.pid) - used) / len(lat) * 1e6)
            shipped = statistics.median(cpu[""])
            print(f"as shipped: server CPU {shipped:.0f} µs/move (rounds: {', '.join(f'{c:.0f}' for c in cpu[''])})")
            for variant in variants[1:]:
                without = statistics.median(cpu[variant])
                print(f"without {variant:14s}: {without:5.0f} µs/move (rounds: {', '.join(f'{c:.0f}' for c in cpu[variant])}); "
                      f"the part saves {without - shipped:+5.0f} µs, {(without - shipped) / shipped:+.1%} of a move")
            for each in players.values():
                for p in each:
                    await p.client.aclose()
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(10)


async def against(args: argparse.Namespace) -> None:
    """Server CPU of a move and of the trivial page, this checkout against another one (``git
    archive main | tar -x -C /tmp/main``): one server of each, their phases taken in turn each
    round (the other order the next round), so a machine that speeds up or slows down meets both."""
    roots = {"this": ROOT, "other": Path(args.against).resolve()}
    ports = [int(p) for p in args.ports.split(",")] if args.ports else [0, 0]
    with tempfile.TemporaryDirectory() as data:
        servers = {}
        try:
            for (name, root), port in zip(roots.items(), ports, strict=True):
                folder = Path(data) / name
                folder.mkdir()
                servers[name] = start_server(args.database_url or f"sqlite:///{folder}/bench.db", str(folder),
                                             root=root, port=port or None)
            async with httpx.AsyncClient() as probe:  # which code each serves: /devices is issue 38's
                served = {n: (await probe.get(url + "/devices")).status_code for n, (_, url) in servers.items()}
            players = {n: [Player(url, seed) for seed in range(args.players)] for n, (_, url) in servers.items()}
            for name in roots:
                await asyncio.gather(*(p.new_game() for p in players[name]))
                await run(players[name], "move", 1, 0)  # warm up
            print(f"against {roots['other']}: GET /devices {served}; {args.players} players, {args.rounds} rounds "
                  f"of {args.seconds:.0f} s per phase; load average before {os.getloadavg()[0]:.2f}")
            cpu: dict[tuple[str, str], list[float]] = {(n, w): [] for n in roots for w in ("move", "trivial")}
            for round_ in range(args.rounds):
                for name in (list(roots) if round_ % 2 == 0 else list(reversed(roots))):
                    process = servers[name][0]
                    for what in ("move", "trivial"):
                        for p in players[name]:
                            await p.client.aclose()
                        used = cpu_seconds(process.pid)
                        lat = await run(players[name], what, args.seconds, 0)
                        cpu[(name, what)].append((cpu_seconds(process.pid) - used) / len(lat) * 1e6)
            for what in ("move", "trivial"):
                this, other = (statistics.median(cpu[(n, what)]) for n in roots)
                ratios = [a / b for a, b in zip(cpu[("this", what)], cpu[("other", what)], strict=True)]
                print(f"{what:8s}: server CPU this {this:5.0f} µs, other {other:5.0f} µs per request (medians); "
                      f"this / other, the median of the rounds' ratios: {statistics.median(ratios):.3f} "
                      f"(round by round: {', '.join(f'{r:.3f}' for r in ratios)})")
            for each in players.values():
                for p in each:
                    await p.client.aclose()
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each phase (medians are reported)")
    parser.add_argument("--think", type=float, default=250, help="mean think time between moves, ms")
    parser.add_argument("--database-url", default="", help="the server's store (default: SQLite in a temporary folder, as shipped; memory:// for the engine alone)")
    parser.add_argument("--guard", action="store_true", help="instead: a move's server CPU with and without each "
                        "clever part on its path (bench/yardstick.py's PARTS)")
    parser.add_argument("--against", default="", help="instead: a move's and the trivial page's server CPU, this "
                        "checkout against the one in this folder (say main, exported with git archive)")
    parser.add_argument("--ports", default="", help="with --against: the two servers' ports, this,other")
    args = parser.parse_args()
    asyncio.run(guard(args) if args.guard else against(args) if args.against else main_async(args))


if __name__ == "__main__":
    main()
