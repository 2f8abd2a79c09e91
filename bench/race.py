"""Race benchmark (issue 24): racers in rooms, each playing a move every ~1 s, over real HTTP.

Starts the game (uvicorn, one worker; ``--servers 2`` starts two on one PostgreSQL, the
racers of each room split between them), makes ``--rooms`` rooms of ``--per-room`` racers
(each its own cookie and its own connection for its stream), starts every race, and lets every
racer play random legal moves through the JSON API, one every 0.5 to 1.5 s, for
``--seconds``: each move due on a schedule, 0.5 to 1.5 s after the one before was due, so that
200 racers ask 200 moves a second whatever the answers' time (a move waits only for its own
racer's answer before: then it is late, and the bench says how late). Every racer's page stream (``/races/{id}/events``) is read all along. Prints:

* **delivery**: for each move, the time from its answer until every rival's stream has shown
  it (a later state of that racer counts too, and so does the finish table): p50, p99, max;
* a move's own answer (the time from asking to the answer), p50 and p99;
* the server's CPU time (from /proc) per delivered update (one move reaching one rival's
  stream) and per move, over the measured seconds.

    .venv/bin/python bench/race.py [--rooms 25] [--per-room 8] [--seconds 30]
    .venv/bin/python bench/race.py --servers 2 --database postgresql://postgres@127.0.0.1/test

``--database`` is written to as the game writes: the races, games and players the bench makes
stay in it. Give it a scratch database, never one that players use.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import Game, GameCode, Rules, Status  # noqa: E402
from tests.support.servers import LiveServer, start_server  # noqa: E402

ROW = re.compile(
    r'<span class="racer-name">(?:<span class="racer-place">\d+\.</span> )?(?P<name>[^<]+?)(?: <span|</span>).*?'
    r'racer-cards">(?P<cards>\d+)</b>.*?racer-score">(?P<score>-?\d+)</b>.*?racer-stock">(?P<stock>\d+)</b>',
    re.S,
)


@dataclass
class Move:
    racer: str
    seq: int
    shown: tuple[int, int, int]
    answered: float | None = None
    asked: float = 0.0
    reached: dict[int, float] = field(default_factory=dict)
    """Rival stream index → when it showed this move (or a later one)."""


@dataclass
class Racer:
    index: int
    room: int
    name: str
    client: httpx.AsyncClient
    game_id: str = ""
    game: Game | None = None
    moves: list[Move] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)
    """What this racer's stream last showed of each rival: the rival's move number."""
    reconnects: list[str] = field(default_factory=list)
    """Why each reconnect: the stream ended, or the error that cut it, and when (s from start)."""
    late: list[float] = field(default_factory=list)
    """How late each move was asked, after its due time (its answer before came late)."""


STARTED: float = time.monotonic()
"""When the bench began (a reconnect says how long after)."""


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def choose(game: Game, rng: random.Random) -> int:
    playable = game.playable_positions()
    if playable and (not game.can_draw() or rng.random() < 0.8):
        return rng.choice(playable)
    return -1


def shown(game: Game) -> tuple[int, int, int]:
    return game.cards_left(), game.score, game.stock_count


async def read_stream(racer: Racer, race_id: str, rivals: dict[str, Racer], stop: asyncio.Event) -> None:
    """Read the racer's stream as a browser's EventSource does: reconnect when it ends or the
    connection drops (a pooled connection the server closed while idle, say), and count it."""
    url = f"/races/{race_id}/events?view=board-1"
    while not stop.is_set():
        why = "the server ended it"
        try:
            async with racer.client.stream("GET", url, timeout=httpx.Timeout(10, read=None)) as answer:
                if answer.status_code != 200:
                    raise RuntimeError(f"{racer.name}'s stream refused: {answer.status_code}")
                await read_events(racer, answer, rivals)
        except (httpx.TransportError, httpx.RemoteProtocolError) as error:
            why = f"{type(error).__name__}: {error}"
        if not stop.is_set():
            racer.reconnects.append(f"{time.monotonic() - STARTED:.1f} s {why}")
        await asyncio.sleep(0.1)


PARSED: dict[bytes, tuple[bool, list[tuple[str, tuple[int, int, int]]]]] = {}
"""What the events with this id (a digest of what they show) show: whether the finish table, and
each row's racer and counts. A race's eight streams get the same events, and the client, on the
same two cores as the servers, reads each once, not once a stream (it took over half a core)."""


def parse(html: str) -> tuple[bool, list[tuple[str, tuple[int, int, int]]]]:
    rows = [(row["name"].strip(), (int(row["cards"]), int(row["score"]), int(row["stock"]))) for row in ROW.finditer(html)]
    return 'id="race-finish"' in html, rows


async def read_events(racer: Racer, answer: httpx.Response, rivals: dict[str, Racer]) -> None:
    """The events as bytes, split at their blank lines; an event's lines are looked at only the
    first time its id comes (the client shares the servers' two cores: reading every line of
    every stream in Python took half a core)."""
    buffer = b""
    async for chunk in answer.aiter_raw():
        buffer += chunk
        while (end := buffer.find(b"\n\n")) >= 0:
            event, buffer = buffer[:end], buffer[end + 2 :]
            if not event.startswith(b"data:"):
                continue  # a comment: the opening, a keep-alive
            arrived = time.monotonic()
            at = event.rfind(b"\nid: ")
            event_id = event[at + 5 :] if at >= 0 else b""
            found = PARSED.get(event_id) if event_id else None
            if found is None:
                data = [line[5:].lstrip(b" ") for line in event.split(b"\n") if line.startswith(b"data:")]
                found = parse(b"\n".join(data).decode())
                if event_id:
                    PARSED[event_id] = found
            seen_event(racer, rivals, found, arrived)


def seen_event(racer: Racer, rivals: dict[str, Racer], found: tuple[bool, list[tuple[str, tuple[int, int, int]]]],
               arrived: float) -> None:  # fmt: skip
    """What one event of ``racer``'s stream shows of their rivals' moves, come at ``arrived``."""
    finished, rows = found
    if finished:  # the finish table: every racer's last state is in
        for rival in rivals.values():
            if rival is not racer:
                for earlier in rival.moves[racer.seen.get(rival.name, 0) :]:
                    earlier.reached.setdefault(racer.index, arrived)
                racer.seen[rival.name] = len(rival.moves)
    for name, state in rows:
        rival = rivals.get(name)
        if rival is None or rival is racer:
            continue
        for move in reversed(rival.moves):
            if move.shown == state:
                last = racer.seen.get(rival.name, 0)
                for earlier in rival.moves[last : move.seq]:
                    earlier.reached.setdefault(racer.index, arrived)
                racer.seen[rival.name] = max(last, move.seq)
                break


async def play(racer: Racer, rng: random.Random, stop: asyncio.Event) -> None:
    """Random legal moves, each due 0.5 to 1.5 s after the one before was due (on a schedule,
    not after its answer: a slow answer does not lower the rate asked; a move is late only if
    the answer before it came after it was due)."""
    assert racer.game is not None
    due = time.monotonic()
    while not stop.is_set() and racer.game.status is Status.PLAYING:
        due += rng.uniform(0.5, 1.5)
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        racer.late.append(max(0.0, time.monotonic() - due))
        action = choose(racer.game, rng)
        racer.game.replay([action])
        move = Move(racer.name, len(racer.moves) + 1, shown(racer.game))
        racer.moves.append(move)
        move.asked = time.monotonic()
        if action < 0:
            answer = await racer.client.post(f"/api/games/{racer.game_id}/draw")
        else:
            answer = await racer.client.post(f"/api/games/{racer.game_id}/remove", json={"position": action})
        move.answered = time.monotonic()
        assert answer.status_code == 200, answer.text


async def main(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        # Every racer's stream comes from 127.0.0.1: the per-address bound (40 by default) would
        # refuse all but 40 a server with 429, and their racers would see nothing.
        env = {"TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_ACCESS_LOG": "false",
               "TRIPEAKS_RACE_STREAMS_PER_SERVER": "5000",
               "TRIPEAKS_RACE_STREAMS_PER_ADDRESS": "5000"}  # fmt: skip
        if args.database:
            env["TRIPEAKS_DATABASE_URL"] = args.database
        servers: list[LiveServer] = []
        for n in range(args.servers):
            (Path(folder) / f"s{n}").mkdir()
            port = args.port + n if args.port else None
            servers.append(start_server(Path(folder) / f"s{n}", env, port=port, cwd=args.code))
        try:
            await race(args, rng, servers)
        finally:
            for server in servers:
                server.stop()


async def race(args: argparse.Namespace, rng: random.Random, servers: list[LiveServer]) -> None:
    limits = httpx.Limits(max_connections=4, max_keepalive_connections=4)
    racers: list[Racer] = []
    rooms: list[tuple[str, dict[str, Racer]]] = []
    for room in range(args.rooms):
        code = GameCode(Rules.EASY, rng.randrange(1, 10**6))
        names: dict[str, Racer] = {}
        race_id = ""
        for seat in range(args.per_room):
            server = servers[seat % len(servers)]
            client = httpx.AsyncClient(base_url=server.url, timeout=30, limits=limits)
            racer = Racer(len(racers), room, f"Player {seat + 1}", client)
            if seat == 0:
                race_id = (await client.post("/api/races", json={"code": code.text()})).json()["id"]
            racer.game_id = (await client.post(f"/api/races/{race_id}/join")).json()["game_id"]
            racer.game = Game(code)
            names[racer.name] = racer
            racers.append(racer)
        rooms.append((race_id, names))
    stop = asyncio.Event()
    readers = [
        asyncio.create_task(read_stream(racer, race_id, names, stop))
        for race_id, names in rooms
        for racer in names.values()
    ]
    await asyncio.sleep(2)
    for task in readers:
        if task.done():  # a stream refused: fail now, not after the run
            task.result()
    for race_id, names in rooms:
        maker = next(iter(names.values()))
        assert (await maker.client.post(f"/api/races/{race_id}/start")).status_code == 200
    await asyncio.sleep(3.3)
    pids = [server.process.pid for server in servers]
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    client_before = time.process_time()
    started = time.monotonic()
    players = [asyncio.create_task(play(racer, random.Random(rng.random()), stop)) for racer in racers]
    await asyncio.sleep(args.seconds)
    stop.set()
    asking = time.monotonic() - started  # the moves asked in it are answered after, if need be
    await asyncio.gather(*players, return_exceptions=True)
    measured = time.monotonic() - started
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    client_cpu = time.process_time() - client_before
    await asyncio.sleep(5)  # the last moves' deliveries
    for task in readers:
        if task.done():  # a stream refused: the figures would count its racer's rivals as missed
            task.result()
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    for racer in racers:
        await racer.client.aclose()

    by_room: dict[int, list[Racer]] = {}
    for racer in racers:
        by_room.setdefault(racer.room, []).append(racer)
    delays, missing, deliveries, moves = [], 0, 0, 0
    for racer in racers:
        rivals = [r.index for r in by_room[racer.room] if r is not racer]
        for move in racer.moves:
            if move.answered is None:
                continue
            moves += 1
            deliveries += sum(1 for r in rivals if r in move.reached)
            if all(r in move.reached for r in rivals):
                delays.append(max(0.0, max(move.reached[r] for r in rivals) - move.answered))
            else:
                missing += 1
    delays.sort()
    answers = sorted(m.answered - m.asked for r in racers for m in r.moves if m.answered is not None)

    def pct(p: float) -> float:
        return delays[min(len(delays) - 1, int(p * len(delays)))] * 1000 if delays else float("nan")

    print(f"servers {len(servers)}  rooms {args.rooms} x {args.per_room} racers  measured {measured:.1f} s")
    print(f"moves {moves} ({moves / asking:.0f}/s asked and made over {asking:.1f} s)  delivered updates {deliveries}"
          f"  moves not seen by every rival {missing}")
    print(f"streams reconnected {sum(len(r.reconnects) for r in racers)} times")
    for why in sorted(why for r in racers for why in r.reconnects)[:10]:
        print(f"  {why}")
    late = sorted(t for r in racers for t in r.late)
    ended = sum(1 for r in racers if r.game is not None and r.game.status is not Status.PLAYING)
    if late:
        print(f"moves asked late (their answer before came after they were due): {sum(t > 0.01 for t in late)}"
              f" of {len(late)}, p99 {late[int(0.99 * (len(late) - 1))] * 1000:.0f} ms;"
              f" racers whose game ended (no more moves): {ended} of {len(racers)}")
    print(f"move answered -> every rival's stream: p50 {pct(0.5):.1f} ms  p99 {pct(0.99):.1f} ms  max {pct(1.0):.1f} ms")
    if answers:
        p99 = answers[min(len(answers) - 1, int(0.99 * len(answers)))]
        print(f"move's own answer: p50 {answers[len(answers) // 2] * 1000:.1f} ms  p99 {p99 * 1000:.1f} ms")
    print(
        f"server CPU {cpu:.2f} s ({cpu / measured * 100:.0f}% of a core): {cpu / max(deliveries, 1) * 1e6:.0f} µs"
        f" per delivered update, {cpu / max(moves, 1) * 1e3:.2f} ms per move"
    )
    print(f"bench client CPU {client_cpu:.2f} s ({client_cpu / measured * 100:.0f}% of a core)  load {os.getloadavg()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=25)
    parser.add_argument("--per-room", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--database", default="", help="TRIPEAKS_DATABASE_URL, a scratch database: what the bench makes stays in it (default: SQLite in a temporary folder)")
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--port", type=int, default=0, help="the first server's port (the next ones follow)")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code the servers run")
    asyncio.run(main(parser.parse_args()))
