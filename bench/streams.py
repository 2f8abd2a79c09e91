"""Race streams at scale (issue 40): N open race streams against one worker, what each costs the
server, and how fast a move still reaches the streams watching it.

Starts the game (one uvicorn worker, ``tripeaks serve``; SQLite in a temporary folder, or
``--database``), its bound on streams raised to N (``TRIPEAKS_RACE_STREAMS_PER_SERVER``), and
both processes' open-file limits raised (``resource``: the soft limit to the hard one, and the
hard one too when run as root). Then, from one asyncio client on raw sockets:

* **idle** (the default): ``--streams`` N streams of races of ``--per-race`` (8) racers, every
  racer its own player (cookie) and its own stream, every race started and left idle. Prints the
  server's memory per stream (the RSS it grew by, over N), its open files, its CPU while idle;
  then ``--moves`` moves, one at a time, by one racer in each of ``--movers`` races, and the
  fan-out: from the move's answer until each stream of its race shows it (p50, p99, max).
* **spectators** (``--spectators``): one race of ``--per-race`` racers and N streams watching it
  (each a visitor of its own); the racers move in turn, and the fan-out is from the move's answer
  to each of the N streams.

``--tracemalloc`` runs the server under :mod:`tracemalloc` and prints where the memory of the
streams went (a snapshot before the streams open and one after: the lines that grew the most,
per stream), and the objects per stream by type (from :mod:`gc`).

    .venv/bin/python bench/streams.py --streams 10000
    .venv/bin/python bench/streams.py --spectators --streams 2000
    .venv/bin/python bench/streams.py --streams 2000 --tracemalloc
    .venv/bin/python bench/streams.py --spectators --streams 2000 --code /tmp/main-checkout

``--code DIR`` serves another checkout's code (``git archive main``, say: a before and after from
the same client on the same machine minutes apart); ``--port`` a port of your own.

``--database`` is written to as the game writes: give it a scratch database, never one that
players use.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pickle
import random
import re
import resource
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookiejar import Cookie, DefaultCookiePolicy
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import Game, GameCode, Rules  # noqa: E402
from tests.support.servers import TRIPEAKS_SERVE, LiveServer, start_server  # noqa: E402

QUIET = {"TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_ACCESS_LOG": "false"}
COOKIE = re.compile(r"tp_player=([^;]+)")


# -- the server's side: limits, memory, a traced server -----------------------------------------


def raise_open_files(wanted: int) -> tuple[int, int]:
    """The soft open-file limit to the hard one, and the hard one to ``wanted`` where allowed
    (root); the server started afterwards inherits them."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < wanted and os.geteuid() == 0:
        # Not even root may everywhere (a container without CAP_SYS_RESOURCE).
        with contextlib.suppress(ValueError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_traced(port: int, dump: str) -> None:
    """The game, traced from the first SIGUSR1 on (tracemalloc, 12 frames: the app starts at
    full speed); each SIGUSR1 writes a snapshot and the objects by type to ``dump``.N."""
    import gc
    import tracemalloc

    import uvicorn

    from app.web.lean_http import SERVED_WITH

    taken = [0]

    def snapshot(*_: object) -> None:
        taken[0] += 1
        if not tracemalloc.is_tracing():
            tracemalloc.start(12)
        gc.collect()
        types = Counter(type(o).__qualname__ for o in gc.get_objects())
        sizes = Counter()
        for o in gc.get_objects():
            sizes[type(o).__qualname__] += sys.getsizeof(o)
        path = f"{dump}.{taken[0]}"
        tracemalloc.take_snapshot().dump(path + ".snapshot")
        Path(path + ".types").write_bytes(pickle.dumps((types, sizes)))
        Path(path + ".done").touch()

    signal.signal(signal.SIGUSR1, snapshot)
    uvicorn.run("app.web.main:create_app", factory=True, host="127.0.0.1", port=port, access_log=False,
                log_level="warning", http=SERVED_WITH)  # fmt: skip


def take_snapshot(server: LiveServer, dump: str, number: int) -> str:
    server.process.send_signal(signal.SIGUSR1)
    path = f"{dump}.{number}"
    deadline = time.monotonic() + 900
    while not Path(path + ".done").exists():
        assert time.monotonic() < deadline and server.process.poll() is None, "no snapshot"
        time.sleep(0.5)  # the server writes its snapshot (tens of seconds with many streams)
    return path


def where_it_went(before: str, after: str, streams: int) -> None:
    """What grew between the two snapshots, per stream: by line, and by the objects' types."""
    import tracemalloc

    old = tracemalloc.Snapshot.load(before + ".snapshot")
    new = tracemalloc.Snapshot.load(after + ".snapshot")
    total = sum(s.size_diff for s in new.compare_to(old, "filename"))
    print(f"\ntracemalloc: {total / streams / 1024:.1f} KiB a stream traced (Python's own allocations)")
    print("  the lines that grew most (per stream: bytes, blocks), with the caller that owns them:")
    for stat in new.compare_to(old, "traceback")[:25]:
        frames = [f for f in stat.traceback if "tracemalloc" not in f.filename]
        where = frames[-1] if frames else stat.traceback[-1]
        owner = next((f for f in frames if "/app/" in f.filename and f is not where), None)
        said = f"{short(where.filename)}:{where.lineno}"
        if owner is not None:
            said += f"  (from {short(owner.filename)}:{owner.lineno})"
        print(f"  {stat.size_diff / streams:8.0f} B  {stat.count_diff / streams:5.1f}  {said}")
    (types_before, sizes_before), (types_after, sizes_after) = (
        pickle.loads(Path(path + ".types").read_bytes()) for path in (before, after)
    )
    print("  objects per stream by type (gc-tracked; shallow sizes):")
    grown = Counter({name: types_after[name] - types_before.get(name, 0) for name in types_after})
    for name, count in grown.most_common(20):
        size = sizes_after[name] - sizes_before.get(name, 0)
        print(f"  {count / streams:6.2f}  {size / streams:7.0f} B  {name}")


def short(path: str) -> str:
    for marker in ("/site-packages/", "/lib/python3.11/", str(ROOT) + "/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


# -- the client: raw sockets, one asyncio loop -----------------------------------------------------


@dataclass(eq=False)
class Watch:
    """What one stream is waiting to see (a pattern), and when it came."""

    pattern: re.Pattern[str] | None = None
    seen_at: float | None = None
    text: str = ""


class StreamConnection(asyncio.Protocol):
    """One ``GET /races/{id}/events``: sent, its answer read and mostly dropped. ``watch`` (when
    given) keeps what arrived since it was armed, and notes when its pattern first matched."""

    def __init__(self, request: bytes, opened: asyncio.Future[int], watch: Watch | None) -> None:
        self.request, self.opened, self.watch = request, opened, watch
        self.head = b""
        self.transport: asyncio.Transport | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)  # type: ignore[union-attr]

    def data_received(self, data: bytes) -> None:
        if not self.opened.done():
            self.head += data
            if b"\r\n\r\n" not in self.head:
                return
            status = int(self.head.split(b" ", 2)[1])
            if status != 200 or b"data:" in self.head:  # an answer, or the first event: open
                self.opened.set_result(status)
            if status != 200:
                self.transport.close()  # type: ignore[union-attr]
            self.head = b""
            return
        watch = self.watch
        if watch is not None and watch.pattern is not None:
            arrived = time.monotonic()
            watch.text += data.decode(errors="replace")
            if "\n\n" not in watch.text:
                return  # the event is not whole yet
            if matches(watch.pattern, watch.text):
                watch.seen_at = arrived
                watch.pattern, watch.text = None, ""
            else:
                watch.text = watch.text.rpartition("\n\n")[2]


VERDICTS: dict[tuple[int, str], bool] = {}
"""Whether the events with this id (a digest of what they show) show what a pattern looks for:
2,000 spectators get the same event, and the client, on the same 2 cores as the server, looks
for the pattern once per event, not once per stream (it would otherwise be the bench's bottleneck)."""


def matches(pattern: re.Pattern[str], text: str) -> bool:
    ids = re.findall(r"^id: (\S+)$", text, re.M)
    if not ids:
        return bool(pattern.search(text))
    for event_id in ids:
        key = (id(pattern), event_id)
        if key not in VERDICTS:
            VERDICTS[key] = any(pattern.search(e) for e in text.split("\n\n") if f"id: {event_id}" in e)
        if VERDICTS[key]:
            return True
    return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_result(0)


@dataclass
class Racer:
    name: str
    cookie: str
    game_id: str = ""
    game: Game | None = None
    watch: Watch = field(default_factory=Watch)


@dataclass
class Room:
    race_id: str
    code: GameCode
    racers: list[Racer]


class NoCookies(DefaultCookiePolicy):
    """The client keeps no cookie: each request says whose it is (:func:`as_player`)."""

    def set_ok(self, cookie: Cookie, request: object) -> bool:
        return False


def as_player(cookie: str) -> dict[str, str]:
    return {"Cookie": f"tp_player={cookie}"}


async def make_room(http: httpx.AsyncClient, code: GameCode, per_race: int) -> Room:
    racers: list[Racer] = []
    race_id = ""
    for seat in range(per_race):
        if seat == 0:
            made = await http.post("/api/races", json={"code": code.text()})
            race_id = made.json()["id"]
            cookie = COOKIE.search(made.headers["set-cookie"]).group(1)  # type: ignore[union-attr]
            joined = await http.post(f"/api/races/{race_id}/join", headers=as_player(cookie))
        else:
            joined = await http.post(f"/api/races/{race_id}/join")
            assert "set-cookie" in joined.headers, (joined.status_code, joined.text, joined.request.headers)
            cookie = COOKIE.search(joined.headers["set-cookie"]).group(1)  # type: ignore[union-attr]
        assert joined.status_code == 200, joined.text
        racers.append(Racer(f"Player {seat + 1}", cookie, joined.json()["game_id"], Game(code)))
    return Room(race_id, code, racers)


async def open_stream(port: int, race_id: str, cookie: str | None, watch: Watch | None,
                      connections: list[StreamConnection]) -> int:  # fmt: skip
    loop = asyncio.get_running_loop()
    opened: asyncio.Future[int] = loop.create_future()
    head = f"GET /races/{race_id}/events?view=board-1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
    if cookie:
        head += f"Cookie: tp_player={cookie}\r\n"
    request = (head + "\r\n").encode()
    _, protocol = await loop.create_connection(lambda: StreamConnection(request, opened, watch), "127.0.0.1", port)
    connections.append(protocol)
    return await asyncio.wait_for(opened, 600)


async def open_all(port: int, wanted: list[tuple[str, str | None, Watch | None]], at_once: int) -> list[StreamConnection]:
    connections: list[StreamConnection] = []
    statuses: Counter[int] = Counter()
    gate = asyncio.Semaphore(at_once)
    began = time.monotonic()

    async def one(race_id: str, cookie: str | None, watch: Watch | None) -> None:
        async with gate:
            statuses[await open_stream(port, race_id, cookie, watch, connections)] += 1

    await asyncio.gather(*(one(*w) for w in wanted))
    took = time.monotonic() - began
    print(f"opened {statuses[200]} streams in {took:.1f} s ({statuses[200] / took:.0f}/s); answers {dict(statuses)}")
    assert statuses[200] == len(wanted), "not every stream opened"
    return connections


def row(name: str, game: Game) -> re.Pattern[str]:
    """The strip's row of ``name`` showing ``game``'s counts (within that row)."""
    inside = r"(?:(?!</li>).)*?"
    return re.compile(
        rf'racer-name">(?:<span class="racer-place">\d+\.</span> )?{re.escape(name)} <span{inside}'
        rf'racer-cards">{game.cards_left()}</b>{inside}racer-score">{game.score}</b>{inside}'
        rf'racer-stock">{game.stock_count}</b>',
        re.S,
    )


def choose(game: Game, rng: random.Random) -> int | None:
    """A legal action for ``game`` (a position, or -1 to draw), or None when there is none."""
    playable = game.playable_positions()
    if playable and (not game.can_draw() or rng.random() < 0.8):
        return rng.choice(playable)
    return -1 if game.can_draw() else None


async def fan_out(http: httpx.AsyncClient, rooms: list[Room], watches: dict[str, list[Watch]], moves: int,
                  rng: random.Random) -> list[float]:  # fmt: skip
    """``moves`` moves, one at a time, by the racers of the rooms in turn; each waits until every
    watching stream of its race shows it (10 s at most). Returns every delivery's delay."""
    delays: list[float] = []
    missed = 0
    for number in range(moves):
        room = rooms[number % len(rooms)]
        mover = room.racers[(number // len(rooms)) % len(room.racers)]
        assert mover.game is not None
        action = choose(mover.game, rng)
        if action is None:
            continue
        mover.game.replay([action])
        pending = watches[room.race_id]
        for watch in pending:  # armed before the move: the streams may hear of it before its answer
            watch.seen_at, watch.text, watch.pattern = None, "", row(mover.name, mover.game)
        path = f"/api/games/{mover.game_id}/draw" if action < 0 else f"/api/games/{mover.game_id}/remove"
        answer = await http.post(path, json=None if action < 0 else {"position": action},
                                 headers=as_player(mover.cookie))  # fmt: skip
        answered = time.monotonic()
        assert answer.status_code == 200, answer.text
        deadline = answered + 10
        while any(w.seen_at is None for w in pending) and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        for watch in pending:
            if watch.seen_at is None:
                missed += 1
                watch.pattern = None
            else:
                delays.append(max(0.0, watch.seen_at - answered))
        await asyncio.sleep(0.05)
    if missed:
        print(f"deliveries missed (not within 10 s): {missed}")
    return delays


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000 if ordered else float("nan")


async def bench(args: argparse.Namespace, server: LiveServer, dump: str) -> None:
    port = int(server.url.rsplit(":", 1)[1])
    pid = server.process.pid
    print(f"server pid {pid} ({server.url})")
    rng = random.Random(args.seed)
    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    async with httpx.AsyncClient(base_url=server.url, timeout=300, limits=limits) as http:
        http.cookies.jar.set_policy(NoCookies())
        rooms_wanted = 1 if args.spectators else -(-args.streams // args.per_race)
        gate = asyncio.Semaphore(16)
        began = time.monotonic()

        async def room(number: int) -> Room:
            async with gate:
                return await make_room(http, GameCode(Rules.EASY, rng.randrange(1, 10**6)), args.per_race)

        rooms = list(await asyncio.gather(*(room(n) for n in range(rooms_wanted))))
        print(f"made {len(rooms)} races of {args.per_race} in {time.monotonic() - began:.1f} s")

        async def start_all() -> None:
            """Every race started once its streams are open (a racer whose page never came is
            gone after a minute, and a race of the gone is over), then its countdown waited."""
            for made in rooms:
                started = await http.post(f"/api/races/{made.race_id}/start", headers=as_player(made.racers[0].cookie))
                assert started.status_code == 200, started.text
            await asyncio.sleep(4)

        movers = rooms[: args.movers]
        watches: dict[str, list[Watch]] = {r.race_id: [] for r in movers}
        wanted: list[tuple[str, str | None, Watch | None]] = []
        if args.spectators:
            for _ in range(args.streams):
                watch = Watch()
                watches[rooms[0].race_id].append(watch)
                wanted.append((rooms[0].race_id, None, watch))
        else:
            for made in rooms:
                for racer in made.racers[: args.streams - len(wanted)]:
                    watch = racer.watch if made in movers else None
                    if watch is not None:
                        watches[made.race_id].append(watch)
                    wanted.append((made.race_id, racer.cookie, watch))
        await asyncio.sleep(1)
        rss_before, files_before = rss_kib(pid), open_files(pid)
        if args.tracemalloc:
            take_snapshot(server, dump, 1)  # tracing starts
        # A tenth first: what the first streams make once (caches, the database's sessions) is
        # left out of the per-stream figure the rest gives.
        first = max(1, len(wanted) // 10)
        connections = await open_all(port, wanted[:first], args.at_once)
        await asyncio.sleep(args.settle)
        rss_first = rss_kib(pid)
        traced_first = take_snapshot(server, dump, 2) if args.tracemalloc else ""
        connections += await open_all(port, wanted[first:], args.at_once)
        await asyncio.sleep(args.settle)
        rss_open = rss_kib(pid)
        await start_all()
        await asyncio.sleep(args.settle)
        rss_after, files_after = rss_kib(pid), open_files(pid)
        n, rest = len(connections), len(connections) - first
        print(f"server RSS with the streams open, before the races start: {(rss_open - rss_first) / rest:.1f} KiB "
              f"a stream over the last {rest}; the races' start then: {(rss_after - rss_open) / 1024:.0f} MiB")  # fmt: skip
        print(f"server RSS {rss_before / 1024:.0f} MiB -> {rss_after / 1024:.0f} MiB: "
              f"{(rss_after - rss_before) / n:.1f} KiB a stream over all {n}, "
              f"{(rss_after - rss_first) / rest:.1f} KiB a stream over the last {rest}; "
              f"open files {files_before} -> {files_after}")  # fmt: skip
        if args.tracemalloc:  # traced, the server is too slow for the rest to mean anything
            where_it_went(traced_first, take_snapshot(server, dump, 3), rest)
            return
        cpu_before, idle_began = cpu_seconds(pid), time.monotonic()
        await asyncio.sleep(args.idle)
        idle_cpu = (cpu_seconds(pid) - cpu_before) / (time.monotonic() - idle_began)
        print(f"server CPU while the streams are idle: {idle_cpu * 100:.0f}% of a core ({args.idle:.0f} s)")
        cpu_before, moves_began = cpu_seconds(pid), time.monotonic()
        delays = await fan_out(http, movers, watches, args.moves, rng)
        moving_cpu = cpu_seconds(pid) - cpu_before
        print(f"server CPU during the moves: {moving_cpu / max(1, len(delays)) * 1e6:.0f} µs a delivery "
              f"({moving_cpu / (time.monotonic() - moves_began) * 100:.0f}% of a core)")  # fmt: skip
        print(f"fan-out, a move's answer -> each watching stream ({len(delays)} deliveries, "
              f"{sum(len(w) for w in watches.values()) // max(1, len(watches))} streams a race): "
              f"p50 {pct(delays, 0.5):.0f} ms  p99 {pct(delays, 0.99):.0f} ms  max {pct(delays, 1.0):.0f} ms")  # fmt: skip
        ended = sum(1 for c in connections if c.closed)
        print(f"streams the server ended meanwhile: {ended}; load {os.getloadavg()}")
        for connection in connections:
            if connection.transport is not None:
                connection.transport.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--per-race", type=int, default=8)
    parser.add_argument("--spectators", action="store_true", help="every stream watches one race")
    parser.add_argument("--movers", type=int, default=10, help="races whose racers move (idle mode)")
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--at-once", type=int, default=100, help="streams being opened at once")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before the memory is read")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds the idle CPU is measured over")
    parser.add_argument("--database", default="", help="TRIPEAKS_DATABASE_URL, a scratch database")
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--port", type=int, default=0, help="the server's port (else one the kernel gives)")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code the server runs")
    parser.add_argument("--serve", default="", help=argparse.SUPPRESS)  # PORT:DUMP, the traced server itself
    args = parser.parse_args()
    if args.serve:
        port, dump = args.serve.split(":", 1)
        serve_traced(int(port), dump)
        return
    files = raise_open_files(args.streams + 4096)  # each process: its end of every stream
    print(f"open-file limit (this process and the server): {files[0]}")
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        data.mkdir()
        bound = str(args.streams + 100)  # one client address: its bound raised too
        env = {**QUIET, "TRIPEAKS_RACE_STREAMS_PER_SERVER": bound, "TRIPEAKS_RACE_STREAMS_PER_ADDRESS": bound}
        if args.database:
            env["TRIPEAKS_DATABASE_URL"] = args.database
        dump = str(Path(folder) / "traced")
        command = ([sys.executable, __file__, "--serve", f"{{port}}:{dump}"] if args.tracemalloc
                   else TRIPEAKS_SERVE)  # fmt: skip
        server = start_server(data, env, command=command, port=args.port or None, cwd=args.code)
        try:
            try:
                import uvloop

                runner = uvloop.run
            except ImportError:  # pragma: no cover
                runner = asyncio.run
            runner(bench(args, server, dump))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
