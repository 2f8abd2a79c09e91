"""The daily leaderboard's answer with a day of 100,000 attempts, on SQLite and PostgreSQL.

    .venv/bin/python bench/daily.py                                  # sqlite and postgresql
    .venv/bin/python bench/daily.py --backend sqlite --attempts 100000 --samples 400

A day is filled with ``--attempts`` attempts (rows as the store writes them,
:func:`app.store.attempts.progressed`: about 70 % won, a quarter with hints, 1 % played
faster than a person, a third with a display name; 95 % ended, the rest still in play),
then the answer a daily page or ``GET /api/daily`` needs is timed, ``--samples`` times
each, through the store's own methods:

* ``leaderboard``: the first 100 in order, with names, and the count of ranked attempts
  (held by the process, :mod:`app.store.orders`);
* ``board load``: reading those 100 from the database, as the process does the first time
  and after a change reaches them (or every 30 s, in the background);
* ``attempt``: one player's row and rank (a random player: a count of the rows before it);
* ``page``: both, as one daily page asks them.

While the day runs (only ended attempts count) and once it is over (all of them). The
target: p99 under 20 ms on each database (docs/performance.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert, text  # noqa: E402

from app.engine import Game, GameCode  # noqa: E402
from app.store.attempts import FIELDS, AttemptRow, day_end  # noqa: E402
from app.store.database import daily_sql  # noqa: E402
from app.store.database.schema import daily, players  # noqa: E402
from app.store.database.sql import SqlStore  # noqa: E402
from app.store.ranking import Entry, board_key, plausible  # noqa: E402

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DAY = dt.date(2026, 12, 3)
CODE = GameCode.parse("TP1-E-NLJGXZF")


def attempt_rows(count: int, rng: random.Random) -> Iterator[tuple[AttemptRow, str | None]]:
    """``count`` attempts of one day, as the store keeps them, each with a name or ``None``."""
    start = day_end(DAY) - 86400
    for i in range(count):
        won = rng.random() < 0.7
        ended = rng.random() < 0.95
        seconds = rng.uniform(40, 900)
        hints = rng.choice((0, 0, 0, 1, 2)) if rng.random() < 0.33 else 0
        gaps = rng.randint(30, 90)
        quick = gaps if rng.random() < 0.01 else rng.randint(0, gaps // 4)
        score = rng.randint(600, 790) if won else rng.randint(-20, 500)
        at = start + rng.uniform(0, 86000)
        is_plausible = plausible(won=won, seconds=seconds, gaps=gaps, quick=quick)
        key = board_key(Entry(won and ended, score, seconds, at, hints, is_plausible))
        row = AttemptRow(
            day=DAY.isoformat(), player=f"player-{i:06d}", game_id=secrets.token_urlsafe(16),
            code=CODE.text(), late=False, ended=ended, won=won and ended, score=score, seconds=seconds,
            hints=hints, plausible=is_plausible, gaps=gaps, quick=quick, board_key=key, started=at - seconds,
            last_action=at, at=at,
        )  # fmt: skip
        yield row, (f"Player {i}" if rng.random() < 0.33 else None)


def fill(store: SqlStore, count: int) -> float:
    """Write the day's attempts (and the players' names) in batches; seconds it took."""
    rng = random.Random(29)
    began = time.perf_counter()
    batch: list[dict[str, object]] = []
    names: list[dict[str, object]] = []
    with store._engine.begin() as conn:
        for row, name in attempt_rows(count, rng):
            batch.append({field: getattr(row, field) for field in FIELDS})
            if name is not None:
                names.append({"id": row.player, "display_name": name, "created": row.at, "updated": row.at})
            if len(batch) >= 5000:
                conn.execute(insert(daily), batch)
                batch.clear()
                if names:
                    conn.execute(insert(players), names)
                    names.clear()
        if batch:
            conn.execute(insert(daily), batch)
        if names:
            conn.execute(insert(players), names)
    with store._engine.begin() as conn:  # as autovacuum or SQLite's optimize would
        conn.execute(text("ANALYZE"))
    return time.perf_counter() - began


def timed(samples: int, call: Callable[[], object]) -> list[float]:
    for _ in range(20):  # warm: connections, statement caches
        call()
    times = []
    for _ in range(samples):
        t = time.perf_counter()
        call()
        times.append((time.perf_counter() - t) * 1000)
    return times


def report(name: str, times: list[float]) -> None:
    times.sort()
    p50 = statistics.median(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(f"    {name:<12} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   max {times[-1]:6.2f} ms")


@contextmanager
def opened(backend: str, postgres: str) -> Iterator[tuple[str, Callable[[float], SqlStore]]]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{folder}/daily.db"
            yield url, lambda now: SqlStore(url, clock=lambda: now)
        return
    import psycopg

    schema = "tp_bench_" + secrets.token_hex(4)
    plain = postgres.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(plain, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            url = f"{postgres}?options=-csearch_path%3D{schema}"
            yield url, lambda now: SqlStore(url, clock=lambda: now)
        finally:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


def bench(backend: str, attempts: int, samples: int, postgres: str) -> None:
    with opened(backend, postgres) as (_, make):
        during, after = day_end(DAY) - 3600, day_end(DAY) + 60
        store = make(during)
        seconds = fill(store, attempts)
        store.close()
        print(f"{backend}: {attempts} attempts written in {seconds:.1f} s")
        rng = random.Random(3)
        for label, now in (("during the day", during), ("after the day", after)):
            store = make(now)
            try:
                board = store.leaderboard(DAY)
                print(f"  {label}: {board.ranked} ranked, first {board.rows[0].score}, {len(board.rows)} rows")

                measure(store, attempts, samples, rng, over=now > day_end(DAY))
            finally:
                store.close()


def measure(store: SqlStore, attempts: int, samples: int, rng: random.Random, *, over: bool) -> None:
    def one_attempt() -> object:
        return store.attempt(DAY, f"player-{rng.randrange(attempts):06d}")

    def page() -> object:
        return store.leaderboard(DAY), one_attempt()

    report("leaderboard", timed(samples, lambda: store.leaderboard(DAY)))
    report("board load", timed(samples, lambda: store._read(lambda db: daily_sql.board(db, DAY.isoformat(), over))))
    report("attempt", timed(samples, one_attempt))
    report("page", timed(samples, page))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES)
    args = parser.parse_args()
    Game(CODE)  # the code parses
    for backend in args.backend:
        bench(backend, args.attempts, args.samples, args.postgres)


if __name__ == "__main__":
    main()
