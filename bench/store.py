"""Store throughput and size: durable actions per second with N concurrent players, bytes per game.

    .venv/bin/python bench/store.py                                  # sqlite + memory
    .venv/bin/python bench/store.py --backend sqlite postgresql memory
    .venv/bin/python bench/store.py --backend sqlite --players 16 --seconds 5 --mode update
    .venv/bin/python bench/store.py --http --backend sqlite postgresql   # through uvicorn

An *action* is what a request does: load the game, play one move on it, save it
and return once the save is committed, which for SQLite and PostgreSQL means on
disk. ``--mode save`` (the default) is ``get`` then ``save`` (compare-and-set on
the version, as the game page does); ``--mode update`` is ``store.update``
(read, change and save in one transaction with the row locked). Each player is a
thread with a game of its own; a won game is replaced by a new deal.

``--http`` starts ``uvicorn app.web.main:create_app`` on the backend and sends
``POST /api/games/{id}/draw|undo`` from N client threads, while a probe measures
how long ``/healthz`` takes: the event loop's latency while the database works.

Size: games are played ``--moves`` actions, and the growth of the database
(tables and indexes, after a checkpoint or VACUUM) is divided by their number.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import Game, GameCode, Rules, Status  # noqa: E402
from app.engine.state import state_of  # noqa: E402
from app.store.base import GameStore, StoredGame, VersionConflict  # noqa: E402
from app.store.memory import MemoryStore  # noqa: E402

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def step(game: Game) -> None:
    """One legal move: remove a playable card, else draw, else undo."""
    playable = game.playable_positions()
    if playable:
        game.remove(playable[0])
    elif game.can_draw():
        game.draw()
    else:
        game.undo()


@contextmanager
def database(name: str, postgres_url: str) -> Iterator[tuple[str, str]]:
    """(URL, where: the SQLite file or the PostgreSQL schema) of a fresh, throwaway database."""
    if name == "memory":
        yield "memory://", ""
        return
    if name == "sqlite":
        with tempfile.TemporaryDirectory(
            prefix="tripeaks-bench-", dir=os.environ.get("BENCH_DIR")
        ) as d:
            path = Path(d) / "bench.db"
            yield f"sqlite:///{path}", str(path)
        return
    import psycopg

    schema = "bench_" + secrets.token_hex(4)
    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            yield f"{postgres_url}?options=-csearch_path%3D{schema}", schema
        finally:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


def open_store(url: str) -> GameStore:
    if url.startswith("memory:"):
        return MemoryStore()
    from app.store.database.sql import SqlStore

    return SqlStore(url)


def summary(latencies: list[float], elapsed: float) -> dict[str, float]:
    every = sorted(latencies)
    return {
        "per_second": len(every) / elapsed,
        "p50_ms": 1000 * statistics.median(every) if every else 0.0,
        "p99_ms": 1000 * every[int(len(every) * 0.99)] if every else 0.0,
    }


def run_threads(
    players: int, seconds: float, body: Callable[[int, threading.Event, list[float]], None]
) -> dict[str, float]:
    stop = threading.Event()
    latencies: list[list[float]] = [[] for _ in range(players)]
    threads = [threading.Thread(target=body, args=(i, stop, latencies[i])) for i in range(players)]
    started, cpu = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    every = [x for xs in latencies for x in xs]
    figures = summary(every, time.perf_counter() - started)
    figures["per_cpu_second"] = len(every) / max(time.process_time() - cpu, 1e-9)
    return figures


def run_store(store: GameStore, players: int, seconds: float, mode: str) -> dict[str, float]:
    def new_game(owner: str, rng: random.Random) -> StoredGame:
        return store.create(Game(GameCode(Rules.EASY, rng.randrange(26**7))), owner)

    def player(index: int, stop: threading.Event, mine: list[float]) -> None:
        owner = f"bench-player-{index:04d}-{secrets.token_hex(4)}"
        rng = random.Random(index)
        stored = new_game(owner, rng)
        while not stop.is_set():
            started = time.perf_counter()
            if mode == "update":
                out = store.update(stored.id, step)
                assert out is not None
                stored = out[0]
            else:
                current = store.get(stored.id)
                assert current is not None
                game = current.game.copy()
                step(game)
                try:
                    stored = store.save(current, game)
                except VersionConflict:  # pragma: no cover - one writer per game here
                    continue
            mine.append(time.perf_counter() - started)
            if stored.game.status is Status.WON:
                stored = new_game(owner, rng)

    return run_threads(players, seconds, player)


def run_http(url: str, players: int, seconds: float) -> dict[str, float]:
    import httpx

    port = 20000 + secrets.randbelow(20000)
    env = {**os.environ, "TRIPEAKS_DATABASE_URL": url, "TRIPEAKS_SECRET_KEY": "bench-" + "k" * 32,
           "TRIPEAKS_RATE_LIMITS": "false"}  # a benchmark, not a client to protect against
    with tempfile.TemporaryDirectory() as data_dir:
        env["TRIPEAKS_DATA_DIR"] = data_dir
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.web.main:create_app", "--factory",
             "--port", str(port), "--no-access-log", "--log-level", "warning"],
            cwd=ROOT, env=env,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    httpx.get(base + "/healthz", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            probe: list[float] = []

            def player(index: int, stop: threading.Event, mine: list[float]) -> None:
                with httpx.Client(base_url=base, timeout=30) as client:
                    if index == 0:  # the probe: how quickly does the loop answer?
                        while not stop.is_set():
                            started = time.perf_counter()
                            client.get("/healthz")
                            probe.append(time.perf_counter() - started)
                            time.sleep(0.01)
                        return
                    game_id = client.post("/api/games", json={"rules": "easy"}).json()["id"]
                    draw = True
                    while not stop.is_set():
                        started = time.perf_counter()
                        response = client.post(f"/api/games/{game_id}/{'draw' if draw else 'undo'}")
                        if response.status_code == 409:
                            draw = not draw
                            continue
                        mine.append(time.perf_counter() - started)

            figures = run_threads(players + 1, seconds, player)
            loop = sorted(probe)
            figures["healthz_p50_ms"] = 1000 * statistics.median(loop) if loop else 0.0
            figures["healthz_p99_ms"] = 1000 * loop[int(len(loop) * 0.99)] if loop else 0.0
            return figures
        finally:
            server.terminate()
            server.wait(timeout=10)


def database_bytes(name: str, where: str, postgres_url: str) -> int:
    if name == "sqlite":
        import sqlite3

        with sqlite3.connect(where) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            free = conn.execute("PRAGMA freelist_count").fetchone()[0]
            size = conn.execute("PRAGMA page_size").fetchone()[0]
        return int((pages - free) * size)
    import psycopg

    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("VACUUM")
        row = conn.execute(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind = 'r'",
            (where,),
        ).fetchone()
    return int(row[0] if row and row[0] else 0)


def bytes_per_game(
    store: GameStore, name: str, where: str, postgres_url: str, games: int, moves: int
) -> tuple[float, float]:
    """(database growth per game, JSON state length) for games played ``moves`` actions."""
    import json

    before = database_bytes(name, where, postgres_url)
    rng = random.Random(7)
    state_lengths = []
    for i in range(games):
        owner = f"size-{i:06d}-{secrets.token_hex(8)}"
        stored = store.create(Game(GameCode(Rules.EASY, rng.randrange(26**7))), owner)
        game = stored.game.copy()
        for _ in range(moves):
            if game.status is not Status.PLAYING:
                break
            step(game)
        store.save(stored, game)
        state_lengths.append(len(json.dumps(state_of(game), separators=(",", ":"))))
    after = database_bytes(name, where, postgres_url)
    return (after - before) / games, statistics.mean(state_lengths)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--backend",
        nargs="+",
        default=["sqlite", "memory"],
        choices=["memory", "sqlite", "postgresql"],
    )
    parser.add_argument("--players", nargs="+", type=int, default=[1, 4, 16, 32])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--mode", choices=["save", "update"], default="save")
    parser.add_argument("--http", action="store_true", help="through a uvicorn server and the API")
    parser.add_argument("--size-games", type=int, default=1000)
    parser.add_argument(
        "--moves", type=int, default=40, help="actions per game for the size figure"
    )
    parser.add_argument(
        "--postgres-url", default=os.environ.get("TRIPEAKS_TEST_POSTGRES_URL", DEFAULT_POSTGRES)
    )
    args = parser.parse_args()
    print(f"cpus={os.cpu_count()} python={sys.version.split()[0]} load={os.getloadavg()[0]:.1f}")
    if args.http:
        print(
            "| backend | clients | actions/s | p50 ms | p99 ms"
            " | /healthz p50 ms | /healthz p99 ms |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
    else:
        print(f"| backend | players | actions/s ({args.mode}) | per CPU second | p50 ms | p99 ms |")
        print("|---|---:|---:|---:|---:|---:|")
    sizes = {}
    for name in args.backend:
        with database(name, args.postgres_url) as (url, where):
            store = None if args.http else open_store(url)
            try:
                for n in args.players:
                    if store is None:
                        f = run_http(url, n, args.seconds)
                        extra = f" {f['healthz_p50_ms']:.1f} | {f['healthz_p99_ms']:.1f} |"
                    else:
                        f = run_store(store, n, args.seconds, args.mode)
                        extra = ""
                    cpu = "" if args.http else f" {f['per_cpu_second']:,.0f} |"
                    print(
                        f"| {name} | {n} | {f['per_second']:,.0f} |{cpu} {f['p50_ms']:.2f} "
                        f"| {f['p99_ms']:.2f} |{extra}",
                        flush=True,
                    )
                if store is not None and name != "memory" and args.size_games:
                    sizes[name] = bytes_per_game(
                        store, name, where, args.postgres_url, args.size_games, args.moves
                    )
            finally:
                if store is not None:
                    store.close()
    for name, (stored, state) in sizes.items():
        print(
            f"{name}: {stored:,.0f} bytes stored per game (tables and indexes;"
            f" {args.moves} actions, state JSON {state:.0f} bytes)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
