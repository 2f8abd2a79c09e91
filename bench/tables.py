"""A table of friends' boards with 1,000 members and a year of dailies each (issue 39).

    .venv/bin/python bench/tables.py                              # sqlite and postgresql
    .venv/bin/python bench/tables.py --backend sqlite --samples 100

A table of 1,000 members is made through the API by the player asking; the other 999 and a
year of daily rows for every member (365,000 rows, as the store keeps them: ranked, about 60 %
won, a few days missed) are written straight into the database. Then, through the app in this
process (Starlette's TestClient, a real ASGI round trip), timed ``--samples`` times each:

* ``GET /api/tables/{id}``: the members and the three boards (today, this week, all time);
* ``GET /tables/{id}``: the table's page, the same boards rendered (each board's first rows
  and the asker's own, ``SHOWN_ROWS``), and ``GET /tables/{id}?all=1`` ("Show all": every row);
* the first of them on a fresh process (``cold``: nothing is kept between requests since the
  boards' reads are set-based, app/store/database/tables_sql.py ``table_past``).

Then a member's daily result reaching the boards: the asking player is in 20 tables; their
attempt of today is ended (``store.end_attempt``) and each of the 20 tables' boards is asked
at once, on this server and (PostgreSQL) on a second one (a second app and store on the same
database): the time until every board shows it. Targets: p95 under 200 ms per board; the
result on every board at once on one server, within 1 s on two (docs/performance.md).
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import insert, text  # noqa: E402

from app.store.database.schema import daily, players, table_members  # noqa: E402
from app.store.database.sql import SqlStore  # noqa: E402
from app.store.ranking import Entry, board_key  # noqa: E402
from app.web.main import create_app  # noqa: E402
from app.web.presentation.daily.days import code_of  # noqa: E402
from app.web.settings import Settings  # noqa: E402
from app.web.solver_worker import deal_outlook  # noqa: E402

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MEMBERS = 1000
DAYS = 365
KEY = "bench-tables-key-" + "k" * 24


def rows_of(player: str, today: dt.date, rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for n in range(DAYS):
        day = today - dt.timedelta(days=n)
        if rng.random() < 0.1:
            continue  # a day missed
        won = rng.random() < 0.6
        seconds = rng.uniform(60, 600)
        score = rng.randint(600, 790) if won else rng.randint(0, 500)
        at = dt.datetime.combine(day, dt.time(12), dt.UTC).timestamp() + rng.uniform(0, 3600)
        values = dict(
            day=day.isoformat(), player=player, game_id=secrets.token_urlsafe(16), code="TP1-E-NLJGXZF",
            late=False, ended=True, won=won, score=score, seconds=seconds, hints=0, plausible=True, gaps=40,
            quick=0, board_key=board_key(Entry(won, score, seconds, at)), started=at - seconds,
            last_action=at, at=at, stopped=False, peaks=7 if won else 1,
        )  # fmt: skip
        out.append(values)
    return out


def fill(store: SqlStore, table_id: str, asker: str, today: dt.date) -> float:
    """The 999 other members, and a year of dailies for all 1,000 (the asker's today left open)."""
    rng = random.Random(39)
    began = time.perf_counter()
    engine = store._engine
    now = time.time()
    with engine.begin() as conn:
        others = [f"member-{i:04d}" for i in range(MEMBERS - 1)]
        conn.execute(
            insert(players),
            [dict(id=p, display_name=f"Player {i}", created=now, updated=now) for i, p in enumerate(others)],
        )
        conn.execute(insert(table_members), [dict(id=secrets.token_urlsafe(9), table_id=table_id, player=p, joined=now + i) for i, p in enumerate(others)])  # fmt: skip
        conn.execute(text("UPDATE tp_tables SET members = :n WHERE id = :id"), {"n": MEMBERS, "id": table_id})
        for player in [asker, *others]:
            rows = rows_of(player, today, rng)
            if player == asker:
                rows = [r for r in rows if r["day"] != today.isoformat()]
            if rows:
                conn.execute(insert(daily), rows)
    return time.perf_counter() - began


def timed(call: Callable[[], Any], samples: int) -> list[float]:
    out = []
    for _ in range(samples):
        began = time.perf_counter()
        call()
        out.append((time.perf_counter() - began) * 1000)
    return out


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 20 else max(values)


def bench(backend: str, url: str, samples: int, folder: Path) -> None:
    settings = Settings(secret_key=KEY, database_url=url, data_dir=folder, rate_limits=False)
    store = SqlStore(url)
    today = dt.datetime.now(dt.UTC).date()
    with TestClient(create_app(settings, store=store)) as client:
        made = client.post("/api/tables", json={"name": "Bench"}).json()
        table_id = made["id"]
        asker = store.table(table_id).maker  # type: ignore[union-attr]
        assert asker is not None
        seconds = fill(store, table_id, asker, today)

        print(f"{backend}: filled {MEMBERS} members x {DAYS} days in {seconds:.1f} s")
        cold = timed(lambda: client.get(f"/api/tables/{table_id}").raise_for_status(), 1)[0]
        api = timed(lambda: client.get(f"/api/tables/{table_id}").raise_for_status(), samples)
        page = timed(lambda: client.get(f"/tables/{table_id}").raise_for_status(), samples)
        every = timed(lambda: client.get(f"/tables/{table_id}?all=1").raise_for_status(), samples)
        board = client.get(f"/api/tables/{table_id}").json()
        assert len(board["today"]) == MEMBERS and len(board["all_time"]) == MEMBERS
        rows = [client.get(f"/tables/{table_id}{ask}").text.count('<th scope="row">') for ask in ("", "?all=1")]
        assert rows[0] < rows[1] == 4 * MEMBERS, rows  # the page shows each board's first rows
        print(
            f"{backend}: GET /api/tables/{{id}} cold {cold:.0f} ms; warm p50 {statistics.median(api):.0f} ms, p95 {p95(api):.0f} ms"
        )
        print(
            f"{backend}: GET /tables/{{id}} (page)   p50 {statistics.median(page):.0f} ms, p95 {p95(page):.0f} ms"
        )
        print(
            f"{backend}: GET /tables/{{id}}?all=1    p50 {statistics.median(every):.0f} ms, p95 {p95(every):.0f} ms"
        )
        reach(backend, url, store, client, settings, asker, today)
    store.close()


def reach(
    backend: str,
    url: str,
    store: SqlStore,
    client: TestClient,
    settings: Settings,
    asker: str,
    today: dt.date,
) -> None:
    """The asker in 20 tables (19 more, each with a few members); their attempt of today ends:
    the time until all 20 boards show it, here and on a second server."""
    tables = [t.id for t in store.player_tables(asker)]
    for i in range(19):
        other = store.make_table(f"maker-{i}", f"T{i}")
        store.join_table(other.invite, asker)
        tables.append(other.id)
    client.get("/daily")  # the asker's attempt of today: dealt, one action to count
    # The day's deal's analysis (its par), made once a day whoever asks first: ready here, as
    # on a server where the day's first players have opened the deal.
    for _ in range(100):  # the analysis runs in the worker: wait for it
        if deal_outlook(code_of(settings.signing_key().encode("utf-8"), today)).best_score is not None:
            break
        time.sleep(0.2)
    game = store.current(asker)
    assert game is not None
    store.update(game.id, lambda g: g.draw())
    second = SqlStore(url) if backend == "postgresql" else None
    other_client = None
    if second is not None:
        other_client = TestClient(create_app(settings, store=second))
        other_client.__enter__()
        other_client.cookies = client.cookies
    for target in [client] + ([other_client] if other_client is not None else []):
        for table_id in tables:  # warm: each table's history kept already
            target.get(f"/api/tables/{table_id}").raise_for_status()
    store.end_attempt(today, asker)
    ended_at = time.perf_counter()
    for name, target in [("second server", other_client), ("one server", client)]:
        if target is None:
            continue
        began = time.perf_counter()
        first_ask = 0
        first_answer = None
        for table_id in tables:
            rows = target.get(f"/api/tables/{table_id}").json()["today"]
            first_answer = first_answer or (time.perf_counter() - ended_at) * 1000
            first_ask += any(r["played"] for r in rows if r["member"] == _member(store, table_id, asker))
        took = (time.perf_counter() - began) * 1000
        print(
            f"{backend}: {name}: the result on {first_ask}/{len(tables)} boards at their first request after"
            f" the write (the first answered {first_answer:.0f} ms after it; the {len(tables)} requests"
            f" one after the other took {took:.0f} ms)"
        )
    if other_client is not None:
        other_client.__exit__(None, None, None)
        second.close()  # type: ignore[union-attr]


_MEMBERS: dict[tuple[str, str], str] = {}


def _member(store: SqlStore, table_id: str, player: str) -> str:
    key = (table_id, player)
    if key not in _MEMBERS:
        found = store.membership(table_id, player)
        assert found is not None
        _MEMBERS[key] = found.id
    return _MEMBERS[key]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES)
    parser.add_argument("--samples", type=int, default=60)
    args = parser.parse_args()
    for backend in args.backend:
        with tempfile.TemporaryDirectory() as folder:
            if backend == "sqlite":
                bench(backend, f"sqlite:///{folder}/tables.db", args.samples, Path(folder))
            else:
                schema = "bench_tables_" + secrets.token_hex(4)
                from sqlalchemy import create_engine

                admin = create_engine(args.postgres_url)
                with admin.begin() as conn:
                    conn.execute(text(f"CREATE SCHEMA {schema}"))
                try:
                    url = f"{args.postgres_url}?options=-csearch_path%3D{schema}"
                    bench(backend, url, args.samples, Path(folder))
                finally:
                    with admin.begin() as conn:
                        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
                    admin.dispose()


if __name__ == "__main__":
    main()
