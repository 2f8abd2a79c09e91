"""Prometheus metrics, through ``prometheus_client``: served at ``/metrics`` when asked for.

Off by default (``TRIPEAKS_METRICS``); with ``TRIPEAKS_METRICS_TOKEN`` set, ``/metrics``
wants ``Authorization: Bearer <token>``. Off, ``/metrics`` is 404 and nothing is counted:
the requests pay nothing for it.

* ``tripeaks_requests_total{method,route,status}`` and
  ``tripeaks_request_duration_seconds{method,route}``: by route template
  (``/games/{game_id}/draw``, never the raw path, so one game is not one series);
  ``<unmatched>`` for a path no route knows. Counted by :mod:`app.web.middleware.access`.
* ``tripeaks_games_dealt_total{rules}``, ``tripeaks_games_won_total{rules}``: counted by the
  store the app made, as :func:`count_games` instruments it.
* ``tripeaks_store_errors_total{where}``: "try again" answers (the store could not be reached
  or written), and readiness probes that failed.
* ``tripeaks_not_ready{detail}``: 1 for what the last failed readiness probe saw (the
  database's error, its address included: this is why ``/metrics`` wants its token), 0 once
  it passed; ``/readyz`` tells the public only "the store cannot write".
* ``tripeaks_solver_seconds{kind}``: solver time; the code that runs the solver reports it
  with :func:`observe_solver` (or :func:`solver_timer`).
* The client's process and Python metrics (CPU, memory, open files, collections).

With several worker processes, ``PROMETHEUS_MULTIPROC_DIR`` (which ``tripeaks serve`` sets
for more than one worker) makes every scrape add up all the workers.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Final, TypeVar

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from app.engine import Game, Status
from app.store import GameStore, StoredGame

T = TypeVar("T")

router = APIRouter(include_in_schema=False)

LATENCY_BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

REQUESTS: Final = Counter(
    "tripeaks_requests", "HTTP requests answered, by route template", ["method", "route", "status"]
)
LATENCY: Final = Histogram(
    "tripeaks_request_duration_seconds",
    "Time to answer a request, by route template",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
GAMES_DEALT: Final = Counter("tripeaks_games_dealt", "Games dealt", ["rules"])
GAMES_WON: Final = Counter("tripeaks_games_won", "Games won (the move that cleared the last card)", ["rules"])
STORE_ERRORS: Final = Counter(
    "tripeaks_store_errors", "Store faults: 'try again' answers, failed readiness probes", ["where"]
)
NOT_READY: Final = Gauge(
    "tripeaks_not_ready",
    "1: what the last failed readiness probe saw; 0: that has passed",
    ["detail"],
    multiprocess_mode="livemax",
)
SOLVER_SECONDS: Final = Histogram(
    "tripeaks_solver_seconds",
    "Solver time per search",
    ["kind"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)

_enabled = False


def enabled() -> bool:
    """Whether this process counts (an app with metrics on was made in it)."""
    return _enabled


def enable() -> None:
    global _enabled
    _enabled = True


# -- what other modules report ----------------------------------------------------------------


def observe_solver(seconds: float, kind: str = "search") -> None:
    """Report one solver search that took ``seconds`` (``kind``: "hint", "outlook", "deal"…)."""
    if _enabled:
        SOLVER_SECONDS.labels(kind).observe(seconds)


@contextmanager
def solver_timer(kind: str = "search") -> Iterator[None]:
    """``with solver_timer("hint"): hint(game)``: reports the time the block took."""
    start = time.perf_counter()
    try:
        yield
    finally:
        observe_solver(time.perf_counter() - start, kind)


def store_error(where: str) -> None:
    if _enabled:
        STORE_ERRORS.labels(where).inc()


def not_ready(detail: str | None, before: str | None) -> None:
    """The readiness probe's detail changed from ``before`` to ``detail`` (``None``: ready)."""
    if not _enabled:
        return
    if before is not None:
        NOT_READY.labels(before[:DETAIL_MOST]).set(0)
    if detail is not None:
        NOT_READY.labels(detail[:DETAIL_MOST]).set(1)


DETAIL_MOST: Final = 300


def count_games(store: GameStore) -> None:
    """Count the games ``store`` deals (``create``) and the moves that win one (``aupdate``),
    by wrapping those two methods of this store object (not of its class)."""
    if getattr(store, "_tripeaks_counted", False):  # another app in this process counts it
        return
    create, aupdate = store.create, store.aupdate

    def counted_create(game: Game, owner: str | None, *, player: str | None = None) -> StoredGame:
        stored = create(game, owner, player=player)
        GAMES_DEALT.labels(game.rules.word).inc()
        return stored

    async def counted_aupdate(
        game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        updated = await aupdate(game_id, change, owned_by=owned_by)
        if updated is not None and updated[0].game.status is Status.WON:  # a move on a won game is refused
            GAMES_WON.labels(updated[0].game.rules.word).inc()
        return updated

    setattr(store, "create", counted_create)  # noqa: B010 - an instance attribute, on purpose
    setattr(store, "aupdate", counted_aupdate)  # noqa: B010
    setattr(store, "_tripeaks_counted", True)  # noqa: B010


# -- the scrape -------------------------------------------------------------------------------


def registry() -> CollectorRegistry:
    """What a scrape reads: this process's registry, or every worker's (multiprocess mode)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        collected = CollectorRegistry()
        MultiProcessCollector(collected)  # type: ignore[no-untyped-call]
        return collected
    return REGISTRY


@router.get("/metrics")
async def metrics(request: Request, authorization: Annotated[str | None, Header()] = None) -> Response:
    settings: Any = request.app.state.settings
    if not settings.metrics_on:
        raise HTTPException(404, "Not Found")
    token: str | None = settings.metrics_token
    if token:
        scheme, _, given = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
            raise HTTPException(401, "Metrics need the token: Authorization: Bearer <token>",
                                headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    return Response(generate_latest(registry()), media_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})
