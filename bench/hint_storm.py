"""A storm of hints against a real server: does ``/healthz`` stay quick meanwhile?

    .venv/bin/python bench/hint_storm.py                 # 3 rounds: 10 s quiet, 10 s of storm
    .venv/bin/python bench/hint_storm.py --clients 16 --rounds 5 --port 8211

It starts the app (uvicorn, one worker, the in-memory store, rate limits off) and probes
``GET /healthz`` every 20 ms, in turn with nothing else going on and during a storm:
``--clients`` players, each in a closed loop, opens a game of a random deal never seen
before (so the deal's analysis has to be made: a cold hint) and asks for ``--hints`` hints
in it (the first cold, the rest warm), then the next deal. The hint route waits for the
analysis, which the app makes in its worker process; the point is that meanwhile the other
requests (here ``/healthz``) are not held up. It prints ``/healthz`` p50/p99 in both phases
and their ratio (the target: p99 during the storm within 2x of the quiet p99), the hints'
latency and rate, the server's CPU, and the machine's load.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import Browser, pct, serve  # bench/load.py

from app.engine.deal import DEAL_COUNT, GameCode, Rules

GAME_ID = re.compile(r'data-game-id="([^"]+)"')
HX = {"HX-Request": "true"}


async def probe(port: int, deadline: float, every: float, times: list[float]) -> None:
    """``GET /healthz`` every ``every`` seconds until ``deadline``: each answer's latency."""
    browser = Browser(port)
    while time.monotonic() < deadline:
        await asyncio.sleep(every)
        start = time.perf_counter()
        answer = await browser.request("GET", "/healthz")
        if answer.status == 200:
            times.append(time.perf_counter() - start)
    browser.close()


async def storm_client(port: int, seed: int, deadline: float, hints: int,
                       cold: list[float], warm: list[float], errors: list[int]) -> None:
    rng = random.Random(seed)
    browser = Browser(port)
    while time.monotonic() < deadline:
        code = GameCode(rng.choice(list(Rules)), rng.randrange(DEAL_COUNT))
        page = await browser.request("GET", f"/g/{code.text()}")
        found = GAME_ID.search(page.body.decode())
        if page.status != 200 or found is None:
            errors.append(page.status)
            continue
        for index in range(hints):
            start = time.perf_counter()
            answer = await browser.request("POST", f"/games/{found.group(1)}/hint", form={}, headers=HX)
            spent = time.perf_counter() - start
            if answer.status != 200:
                errors.append(answer.status)
                break
            (cold if index == 0 else warm).append(spent)
            if time.monotonic() >= deadline:
                break
    browser.close()


def summary(name: str, times: list[float]) -> str:
    return f"{name}: {len(times)} answers, p50 {pct(times, 0.5):.1f} ms, p99 {pct(times, 0.99):.1f} ms"


async def main_async(args: argparse.Namespace) -> int:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores shared)")
    with tempfile.TemporaryDirectory() as folder:
        extra = {"TRIPEAKS_RATE_LIMITS": "false"}
        async with serve("memory://", 1, Path(folder), port=args.port, extra_env=extra) as server:
            # Warm up: the page, a hint (starts the worker process), and the layout tables.
            warmup = Browser(server.port)
            page = await warmup.request("GET", "/g/TP1-E-AAAAAAB")
            found = GAME_ID.search(page.body.decode())
            assert found is not None
            await warmup.request("POST", f"/games/{found.group(1)}/hint", form={}, headers=HX)
            warmup.close()

            # Quiet and storm phases alternate (the machine is shared: its speed drifts).
            quiet: list[float] = []
            stormy: list[float] = []
            cold: list[float] = []
            warm: list[float] = []
            errors: list[int] = []
            cpu = wall = 0.0
            for round_ in range(args.rounds):
                await probe(server.port, time.monotonic() + args.seconds, args.every, quiet)
                cpu_before, wall_before = server.cpu_seconds(), time.perf_counter()
                deadline = time.monotonic() + args.seconds
                seed = args.seed + 1000 * round_
                await asyncio.gather(
                    probe(server.port, deadline, args.every, stormy),
                    *(storm_client(server.port, seed + i, deadline, args.hints, cold, warm, errors)
                      for i in range(args.clients)),
                )
                cpu += server.cpu_seconds() - cpu_before
                wall += time.perf_counter() - wall_before
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(summary("/healthz, quiet", quiet))
    print(summary("/healthz, during the storm", stormy))
    ratio = pct(stormy, 0.99) / pct(quiet, 0.99)
    print(f"/healthz p99 ratio, storm / quiet: {ratio:.2f} (target <= 2)")
    print(f"storm: {args.clients} clients, {len(cold) + len(warm)} hints in {wall:.1f} s "
          f"({(len(cold) + len(warm)) / wall:.1f}/s), {len(errors)} errors; server and worker CPU "
          f"{cpu:.1f} s ({cpu / wall:.2f} cores)")
    print(summary("cold hints (a deal not analysed yet)", cold))
    print(summary("warm hints", warm))
    return 0 if ratio <= 2 and not errors else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--hints", type=int, default=3, help="hints per game (the first is cold)")
    parser.add_argument("--seconds", type=float, default=10.0, help="each phase")
    parser.add_argument("--rounds", type=int, default=3, help="quiet and storm phases, alternating")
    parser.add_argument("--every", type=float, default=0.02, help="seconds between probes")
    parser.add_argument("--port", type=int, default=8210)
    parser.add_argument("--seed", type=int, default=1)
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
