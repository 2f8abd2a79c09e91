"""The chaos soak for as long as asked: players play while servers are killed, the disk fills
and the database stops; then every acknowledged action is looked for in the store.

    .venv/bin/python bench/chaos.py --minutes 10                    # SQLite, then PostgreSQL
    .venv/bin/python bench/chaos.py --minutes 2 --backend sqlite

The driver is the test's (``tests/support/soak.py``; ``tests/chaos/test_chaos.py`` runs it for a
few seconds per fault). The time is shared between the backends. On SQLite the data directory is
a small tmpfs (as root; without root, no disk fills) and the cycle is: play, SIGKILL the server
and start it again, play, fill the disk to the last byte and free it. On PostgreSQL (a private
cluster made with ``initdb``, as the fault tests make theirs; needs its binaries) two servers
serve the players, and the cycle is: play, stop and start the database, play, SIGKILL one of the
servers and start it again. Prints the figures of each backend; exits 1 if anything was lost,
or answered where it should not have been (the problems are printed).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.faults import PrivatePostgres, postgres_bin, tiny_disk  # noqa: E402
from tests.support.soak import Figures, Soak  # noqa: E402

PLAY_S = 5.0
"""Seconds of play between two faults."""


def say(line: str) -> None:
    print(f"  {time.strftime('%H:%M:%S')} {line}", flush=True)


@contextlib.contextmanager
def data_disk() -> Iterator[tuple[Path, bool]]:
    """The data directory: on a 128 MB tmpfs when this can mount one (``True``: it can be filled)."""
    if os.geteuid() == 0:
        try:
            with tiny_disk("128m") as disk:
                yield disk, True
                return
        except BaseException as error:  # pytest's skip: no tmpfs here
            if type(error).__name__ != "Skipped":
                raise
            say(f"no tmpfs ({error}): no disk fills")
    else:
        say("not root: no tmpfs, no disk fills")
    folder = Path(tempfile.mkdtemp(prefix="tripeaks-chaos-"))
    try:
        yield folder / "data", False
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_sqlite(seconds: float, seed: int) -> tuple[Figures, list[str]]:
    with data_disk() as (disk, can_fill):
        soak = Soak(disk, {}, api_players=3, page_players=3, daily_players=1, held_streams=True, seed=seed, say=say)
        try:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                soak.play(PLAY_S)
                soak.kill()
                if can_fill and time.monotonic() < end:
                    soak.play(PLAY_S)
                    soak.fill_disk(disk, hold=2.0)
            soak.play(PLAY_S)
            return soak.finish(), soak.verify()
        finally:
            soak.close_servers()


def run_postgresql(seconds: float, seed: int) -> tuple[Figures, list[str]] | None:
    bindir = postgres_bin()
    if bindir is None:
        say("PostgreSQL's initdb and pg_ctl are not installed: no PostgreSQL run")
        return None
    root = Path(tempfile.mkdtemp(prefix="tripeaks-chaos-pg-", dir="/tmp"))
    root.chmod(0o755)
    database = PrivatePostgres(bindir, root)
    database.init()
    database.start()
    try:
        soak = Soak(root / "data", {"TRIPEAKS_DATABASE_URL": database.url}, server_count=2,
                    api_players=3, page_players=3, daily_players=1, held_streams=True, seed=seed, say=say)
        try:
            end = time.monotonic() + seconds
            kills = 0
            while time.monotonic() < end:
                soak.play(PLAY_S)
                soak.stop_database(database, hold=2.0)
                if time.monotonic() < end:
                    soak.play(PLAY_S)
                    soak.kill(kills % 2)
                    kills += 1
            soak.play(PLAY_S)
            return soak.finish(), soak.verify()
        finally:
            soak.close_servers()
    finally:
        with contextlib.suppress(Exception):
            database.stop()
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long, all backends together")
    parser.add_argument("--backend", choices=("both", "sqlite", "postgresql"), default="both")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    seconds = args.minutes * 60 / len(backends)
    failed = False
    for backend in backends:
        print(f"{backend}: {seconds / 60:.1f} minutes of chaos", flush=True)
        result = run_sqlite(seconds, args.seed) if backend == "sqlite" else run_postgresql(seconds, args.seed)
        if result is None:
            continue
        figures, problems = result
        for line in figures.lines():
            print(f"{backend}: {line}")
        for problem in problems[:50]:
            print(f"{backend}: PROBLEM {problem}")
        failed |= bool(problems) or figures.lost > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
