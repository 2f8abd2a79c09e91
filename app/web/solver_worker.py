"""What the solver tells the page: hints, whether a deal could be won, winnable deals.

Every answer is a lookup in the deal's analysis (``app.engine.search.analysis``: each reachable
position's winnability and best score). Making one takes about 10 ms of CPU, so it is
made in a worker process, where it does not hold this process's GIL against the moves
of other players; the analyses come back (about 1.4 MiB each) and are kept, bounded by
memory, in ``ANALYSES``. A request waits at most ``ANALYSIS_SECONDS`` for one; past that
it is answered without (the hint says no search was made) and the analysis is still kept
when it arrives. Requests for the same deal share one job.

Solver time is reported to the metrics (``tripeaks_solver_seconds{kind}``): "analysis", the
worker's CPU time for one deal (its own clock, so time spent queued is not in it); "hint",
"outlook" and "deal", the time the request spent on them here, waiting for the worker
included.

Every code goes through the same engine calls, variants included (``docs/variants.md``).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from app.engine import STANDARD, Game, GameCode, Rules, Variants
from app.engine.layout import THREE_PEAKS, Layout
from app.engine.search.analysis import ANALYSES, DealAnalysis, analyse
from app.engine.search.hints import Hint, hint
from app.engine.search.review import Difficulty, playout_share, rate
from app.engine.search.solver import solve
from app.web.ops.metrics import observe_solver, solver_timer

ANALYSIS_SECONDS: Final = 10.0
"""How long one request waits for a deal's analysis: about 10 ms of CPU, and the first one
starts the worker (about 1 s of CPU); a machine under heavy load stretches both."""
WORKERS: Final = 1
"""Worker processes for analyses: one, so that the event loop keeps a core of two."""
RATED_TRIES: Final = 400
"""Random deals tried for one difficulty (the rarest, classic "easy", is 1 deal in 10)."""
WINNABLE_TRIES: Final = 60
"""Random deals tried for "winnable deals only" (3 % of easy and 25 % of classic deals of three
peaks are lost; two thirds of up-down's classic deals, the most of any layout)."""


class _Analyses:
    """The worker pool, started on first use, and the jobs in flight by deal."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._running: dict[GameCode, Future[tuple[DealAnalysis, float]]] = {}

    def _started(self) -> ProcessPoolExecutor:
        """The pool (call with the lock held), started now if need be. Its workers end when
        this process does, however it ends (:func:`watch_parent`)."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                WORKERS,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=watch_parent,
                initargs=(os.getpid(),),
            )
        return self._pool

    def _job(self, code: GameCode) -> Future[tuple[DealAnalysis, float]]:
        with self._lock:
            job = self._running.get(code)
            if job is None:
                job = self._started().submit(_timed_analysis, code)
                self._running[code] = job
                job.add_done_callback(lambda done: self._finished(code, done))
            return job

    def _finished(self, code: GameCode, job: Future[tuple[DealAnalysis, float]]) -> None:
        with self._lock:
            self._running.pop(code, None)
        if not job.cancelled() and job.exception() is None:
            analysis, seconds = job.result()
            ANALYSES.put(analysis)
            observe_solver(seconds, "analysis")

    def get(self, code: GameCode, timeout: float = ANALYSIS_SECONDS) -> DealAnalysis | None:
        """The deal's analysis, or ``None`` if it is not ready within ``timeout`` seconds."""
        kept = ANALYSES.peek(code)
        if kept is not None:
            return kept
        try:
            return self._job(code).result(timeout=timeout)[0]
        except FutureTimeout:
            return None

    def rated_code(
        self,
        rules: Rules,
        difficulty: Difficulty,
        timeout: float = ANALYSIS_SECONDS,
        variants: Variants = STANDARD,
        layout: Layout = THREE_PEAKS,
    ) -> GameCode | None:
        """A random deal of ``rules``, ``variants`` and ``layout`` rated ``difficulty``, found in
        the worker (``None``: not found in :data:`RATED_TRIES` deals, or not within ``timeout``
        seconds)."""
        with self._lock:
            job = self._started().submit(_find_rated, rules, difficulty, RATED_TRIES, variants, layout)
        try:
            return job.result(timeout=timeout)
        except FutureTimeout:
            return None

    def shutdown(self) -> None:
        """Stop the worker: the analyses queued are dropped, the one running is waited for
        (a worker the pool is not waited for outlives the server: it holds its own queue's
        pipe open). The next analysis asked for starts a new pool."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


PARENT_CHECK_S: Final = 0.5
"""How often a worker looks whether its server is still there."""


def watch_parent(parent: int) -> None:
    """A worker's initializer: end the worker as soon as ``parent`` (its server) is gone.

    A server killed with SIGKILL runs none of its own code: its pool's workers, reparented to
    PID 1 (or a subreaper), would run on for ever with their memory. A thread of the worker
    looks every :data:`PARENT_CHECK_S` whether its parent is still the one that started it, and
    ends the worker at once when it is not (``os._exit``: its job, if any, is for nobody now).
    Not ``prctl(PR_SET_PDEATHSIG)``: Linux sends that signal when the *thread* that started the
    worker ends, and the pool starts its workers from whichever thread asked first (one of the
    server's worker threads, which end when idle): that would kill the pool under a live server."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    if os.getppid() != parent:  # gone already, before this worker started
        os._exit(0)
    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _timed_analysis(code: GameCode) -> tuple[DealAnalysis, float]:
    """The worker's job: the deal's analysis, and the CPU time it took."""
    start = time.process_time()
    analysis = analyse(code)
    return analysis, time.process_time() - start


def _find_rated(
    rules: Rules,
    difficulty: Difficulty,
    tries: int,
    variants: Variants = STANDARD,
    layout: Layout = THREE_PEAKS,
) -> GameCode | None:
    """The worker's job for "winnable deals only" of one difficulty: random deals rated until
    one is ``difficulty`` (a deal's rating: the win pass and 200 playouts, about 7 ms)."""
    for _ in range(tries):
        code = GameCode.random(rules, variants, layout)
        analysis = analyse(code, scores=False)
        if analysis.winnable(0, 0, analysis.waste_after[0]) and rate(True, playout_share(code)) is difficulty:
            return code
    return None


analyses: Final = _Analyses()


@dataclass(frozen=True, slots=True)
class Outlook:
    """What a deal allows from its start: ``winnable`` is ``None`` when the analysis ran late."""

    winnable: bool | None
    best_score: int | None


@lru_cache(maxsize=4096)
def _start_outlook(code: GameCode) -> Outlook:
    with solver_timer("outlook"):
        analysis = analyses.get(code)
    if analysis is None:
        raise LookupError(code)
    start = analysis.start()
    return Outlook(start.winnable, start.best_score if start.winnable else None)


def deal_outlook(code: GameCode) -> Outlook:
    """Whether the deal can be won, and the best score it allows (when the analysis is ready)."""
    try:
        outlook = _start_outlook(code)
    except LookupError:
        return Outlook(None, None)  # not kept: asked again next time
    if outlook.winnable:
        note_winnable(code)
    return outlook


def known_par(code: GameCode) -> int | None:
    """The deal's par when this process has its analysis already; never starts one (a board
    of a year of deals must not run the solver)."""
    kept = ANALYSES.peek(code)
    if kept is None:
        return None
    start = kept.start()
    return start.best_score if start.winnable else None


def hint_for(game: Game) -> Hint:
    """One action on a winning line (towards the best score), or how many undos lead back
    to one. If the worker is late, the hint is made here from the quick part of the
    analysis alone (whether each position can be won: about 3 ms of CPU)."""
    with solver_timer("hint"):
        analysis = analyses.get(game.code)
        if analysis is None:
            analysis = analyse(game.code, scores=False)
        return hint(game, analysis=analysis)


def winnable_code(
    rules: Rules,
    difficulty: Difficulty | None = None,
    variants: Variants = STANDARD,
    layout: Layout = THREE_PEAKS,
) -> GameCode:
    """A random deal of ``rules``, ``variants`` and ``layout`` proven winnable (the quick
    search: about 5 ms a deal); with ``difficulty``, one rated so (found in the worker; any
    winnable deal if it is late)."""
    with solver_timer("deal"):
        if difficulty is not None:
            rated = analyses.rated_code(rules, difficulty, variants=variants, layout=layout)
            if rated is not None:
                note_winnable(rated)
                return rated
        for _ in range(WINNABLE_TRIES):
            code = GameCode.random(rules, variants, layout)
            if solve(Game(code)).winnable:
                note_winnable(code)
                return code
    raise RuntimeError("no winnable deal found")  # about (1/4) ** 60 for classic rules


_PROVEN: Final[dict[GameCode, None]] = {}
_PROVEN_MOST: Final = 4096


def note_winnable(code: GameCode) -> None:
    """Remember that the solver proved ``code`` winnable (the newest few thousand deals)."""
    _PROVEN[code] = None
    if len(_PROVEN) > _PROVEN_MOST:
        del _PROVEN[next(iter(_PROVEN))]


def is_proven_winnable(code: GameCode) -> bool:
    """Whether this process's solver has proven the deal winnable (the board marks it)."""
    return code in _PROVEN
