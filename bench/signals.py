"""The race signals' ceiling through one database (issue 40): PostgreSQL ``NOTIFY`` and Redis
pub/sub, as the game's servers use them (:mod:`app.web.race_signals`).

``--servers`` instances of the game's own signal classes (each what one server process holds:
one listening connection, one sending task) publish "this race changed" for distinct races at a
rising rate, shared between them, for ``--seconds`` at each rate, while every instance listens.
For each rate it prints the signals a second that reached every other instance, how many did
not arrive, the time from ``publish`` to arrival (p50, p99), and the messages a second the
sending tasks made of them (one message names every race changed since the last send). A move
is one signal, so the ceiling in moves a second is the highest rate delivered whole and on time.

    .venv/bin/python bench/signals.py --backend postgres --database postgresql://postgres@127.0.0.1/test
    .venv/bin/python bench/signals.py --backend redis --redis redis://127.0.0.1:6379/0

Both use a channel of their own (the game's names with a random suffix), so a running game's
servers on the same database see nothing of it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.web import race_signals  # noqa: E402
from app.web.race_signals import LocalSignals, PostgresSignals, RedisSignals  # noqa: E402

DEFAULT_RATES = "250,1000,4000,16000,32000,64000,128000"


class Counted:
    """What one instance received: race id → when, and the messages."""

    def __init__(self, signals: LocalSignals) -> None:
        self.arrived: dict[str, float] = {}
        self.messages = 0
        received = signals.received

        def counting(payload: str) -> None:
            now = time.monotonic()
            self.messages += 1
            for race_id in payload.partition(":")[2].split(","):
                self.arrived.setdefault(race_id, now)
            received(payload)

        signals.received = counting  # type: ignore[method-assign]


def make(backend: str, args: argparse.Namespace) -> LocalSignals:
    if backend == "postgres":
        from app.store.database.race_async import conninfo_of

        conninfo = conninfo_of(args.database)
        assert conninfo, "--database: a postgresql:// URL"
        return PostgresSignals(conninfo)
    return RedisSignals(args.redis)


async def one_rate(instances: list[LocalSignals], counts: list[Counted], rate: int, seconds: float) -> str:
    published: dict[str, tuple[int, float]] = {}
    sent_before = sum(c.messages for c in counts)
    started = time.monotonic()
    cpu_before = time.process_time()
    made = 0
    while (now := time.monotonic()) < started + seconds:
        due = int((now - started) * rate) - made
        for _ in range(due):
            origin = made % len(instances)
            race_id = f"b{rate}x{made}"
            published[race_id] = (origin, time.monotonic())
            await instances[origin].publish(race_id)
            made += 1
        await asyncio.sleep(0.001)
    took = time.monotonic() - started
    await asyncio.sleep(2)  # the last ones' way
    delays: list[float] = []
    missing = 0
    for race_id, (origin, at) in published.items():
        for index, count in enumerate(counts):
            if index == origin:
                continue
            arrived = count.arrived.pop(race_id, None)
            if arrived is None:
                missing += 1
            else:
                delays.append(arrived - at)
    delays.sort()
    messages = (sum(c.messages for c in counts) - sent_before) / (len(counts) - 1)
    p = lambda q: delays[min(len(delays) - 1, int(q * len(delays)))] * 1000 if delays else float("nan")  # noqa: E731
    cpu = (time.process_time() - cpu_before) / (took + 2)
    return (f"{rate:>6}/s asked  {made / took:>7.0f}/s published  {len(delays) / (len(counts) - 1) / took:>7.0f}/s "
            f"arrived at each  missing {missing:>5}  p50 {p(0.5):7.1f} ms  p99 {p(0.99):7.1f} ms  "
            f"messages {messages / took:6.0f}/s  bench CPU {cpu * 100:3.0f}%")  # fmt: skip


async def main(args: argparse.Namespace) -> None:
    suffix = secrets.token_hex(4)
    race_signals.CHANNEL = f"tripeaks_races_bench_{suffix}"  # type: ignore[misc]
    race_signals.REDIS_CHANNEL = f"tripeaks:races:bench:{suffix}"  # type: ignore[misc]
    for backend in (["postgres", "redis"] if args.backend == "both" else [args.backend]):
        instances = [make(backend, args) for _ in range(args.servers)]
        counts = [Counted(s) for s in instances]
        for instance in instances:
            await instance.start()
        print(f"{backend}: {args.servers} servers, {args.seconds:.0f} s a rate, load {os.getloadavg()}")
        try:
            for rate in (int(r) for r in args.rates.split(",")):
                print(await one_rate(instances, counts, rate, args.seconds), flush=True)
        finally:
            for instance in instances:
                await instance.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["postgres", "redis", "both"], default="both")
    parser.add_argument("--database", default=os.environ.get("TRIPEAKS_TEST_POSTGRES_URL",
                        "postgresql+psycopg://postgres@127.0.0.1:5432/test"))  # fmt: skip
    parser.add_argument("--redis", default=os.environ.get("TRIPEAKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rates", default=DEFAULT_RATES)
    asyncio.run(main(parser.parse_args()))
