"""Moves while race streams are held at their bounds (issue 41): a move's time, over real HTTP.

Starts the game (uvicorn, one worker, SQLite in a temporary folder, rate limits off, behind a
"trusted proxy" so that a stream can say which address it comes from), makes a race room, and
times the moves (a draw, then its undo, and so on) of a player's ordinary game through the JSON
API, one every 50 ms for ``--seconds`` (20: past every stream's 15 s look at its race):

1. with no stream open;
2. while one client address opens ``--streams`` streams, each without a cookie (each a new
   player: the attack of the issue): the moves timed from the first stream asked for;
3. then while it holds what the server let it;
4. while streams from ``--addresses`` addresses fill the server to its bound (2000 by default,
   ``--per-server``): timed from the first asked for, through the holding.

Prints, for each, the streams held (and refused, by status) and a move's time: p50, p95, max.
``--code DIR`` serves another checkout's code (say ``main``'s, for a before-and-after on the
same machine at the same time): the server runs from that folder.

    .venv/bin/python bench/stream_bound.py [--seconds 20] [--streams 2000] [--port 18210]
    .venv/bin/python bench/stream_bound.py --code /tmp/main-checkout
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.servers import start_server  # noqa: E402


class Flood:
    """Streams opened and held in a thread of their own (its own event loop)."""

    def __init__(self, url: str, count: int, addresses: int) -> None:
        self.url, self.count, self.addresses = url, count, addresses
        self.statuses: Counter[int] = Counter()
        self.ready = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self.run()), daemon=True)

    async def run(self) -> None:
        limits = httpx.Limits(max_connections=self.count + 10, max_keepalive_connections=0)
        held: list[httpx.Response] = []
        numbers = itertools.count()
        async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(60, read=None)) as client:

            async def one() -> None:
                n = next(numbers) % self.addresses
                headers = {"X-Forwarded-For": f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"}
                try:
                    answer = await client.send(client.build_request("GET", self.url, headers=headers), stream=True)
                except httpx.HTTPError:
                    self.statuses[0] += 1
                    return
                self.statuses[answer.status_code] += 1
                if answer.status_code == 200:
                    held.append(answer)
                else:
                    await answer.aclose()

            await asyncio.gather(*(one() for _ in range(self.count)))
            self.ready.set()
            while not self.stop.is_set():
                await asyncio.sleep(0.1)
            for answer in held:
                await answer.aclose()

    def __enter__(self) -> Flood:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(60)


def time_moves(client: httpx.Client, game_id: str, seconds: float, every: float = 0.05) -> list[float]:
    took = []
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        path = "draw" if i % 2 == 0 else "undo"
        start = time.perf_counter()
        answer = client.post(f"/api/games/{game_id}/{path}")
        took.append(time.perf_counter() - start)
        assert answer.status_code == 200, answer.text[:200]
        i += 1
        time.sleep(max(0.0, every - took[-1]))  # a player's pace, not a flood of moves
    return took


def line(label: str, took: list[float], flood: Flood | None) -> str:
    ms = sorted(t * 1000 for t in took)
    held = f"{flood.statuses[200]} streams held, refused {dict(flood.statuses - Counter({200: flood.statuses[200]}))}" \
        if flood else "no stream"
    p95 = ms[int(0.95 * (len(ms) - 1))]
    return f"{label:<34} {held:<52} move p50 {statistics.median(ms):6.1f} ms  p95 {p95:6.1f} ms  max {ms[-1]:6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="moves timed in each phase")
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--addresses", type=int, default=100, help="addresses filling the server's bound")
    parser.add_argument("--per-server", type=int, default=2000)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code the server runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tripeaks-streams-") as folder:
        data = Path(folder) / "data"
        data.mkdir()
        env = {
            "TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_ACCESS_LOG": "false", "TRIPEAKS_TRUST_PROXY": "true",
            "TRIPEAKS_FORWARDED_ALLOW_IPS": "127.0.0.1", "TRIPEAKS_RACE_STREAMS_PER_SERVER": str(args.per_server),
        }  # fmt: skip
        server = start_server(data, env, port=args.port, cwd=args.code)
        try:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                race_id = client.post("/api/races", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
                game_id = client.post("/api/games", json={"code": "TP1-E-AAAAAAC"}).json()["id"]
                url = f"{server.url}/races/{race_id}/events"
                time_moves(client, game_id, 2)  # warm
                print(f"code: {args.code}  moves: one every 50 ms, {args.seconds:.0f} s each (a draw or an undo)")
                print(line("no stream", time_moves(client, game_id, args.seconds), None))
                with Flood(url, args.streams, 1) as flood:
                    opening = time_moves(client, game_id, 5)
                    flood.ready.wait()
                    print(line(f"{args.streams} asked from one address, opening", opening, flood))
                    print(line("  then held", time_moves(client, game_id, args.seconds), flood))
                with Flood(url, args.per_server + 20, args.addresses) as flood:
                    took = time_moves(client, game_id, args.seconds)
                    flood.ready.wait()
                    label = f"{args.per_server + 20} asked from {args.addresses} addresses"
                    print(line(label, took, flood))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
