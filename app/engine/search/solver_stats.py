"""Solving runs of consecutive deals: shares, confidence intervals, timings, best scores.

Used by ``tripeaks stats`` and ``bench/solver.py``. Pure Python; ``jobs > 1`` spreads
the deals over worker processes.
"""

from __future__ import annotations

import gc
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from app.engine.deal import DEAL_COUNT, GameCode, Rules
from app.engine.game import Game
from app.engine.layout import THREE_PEAKS, Layout, layout_named
from app.engine.rules import best_score
from app.engine.search.analysis import analyse
from app.engine.search.solver import solve
from app.engine.variants import STANDARD, Variants

__all__ = [
    "DealResult",
    "Summary",
    "format_summary",
    "percentile",
    "solve_deal",
    "solve_range",
    "summarize",
    "warm_up",
    "wilson_interval",
]


@dataclass(frozen=True, slots=True)
class DealResult:
    """One deal solved: its number, the answer, the work and the time it took."""

    number: int
    winnable: bool
    cpu_seconds: float
    """Processor time of the solve (the process's own time, so other load matters less)."""
    wall_seconds: float
    nodes: int
    score: int | None
    """The score of the line found (the best score when asked for)."""


def solve_deal(
    rules: Rules, number: int, best: bool = False, variants: Variants = STANDARD, layout: Layout = THREE_PEAKS
) -> DealResult:
    """Solve one new deal and time it (making the deal's cards is included)."""
    wall, cpu = time.perf_counter(), time.process_time()
    game = Game(GameCode(rules, number, variants, layout))
    solution = solve(game, best=best)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return DealResult(number, solution.winnable, cpu, wall, solution.nodes, solution.score)


def _solve_task(task: tuple[str, int, bool, str, str]) -> DealResult:
    letter, number, best, variants, layout = task
    return solve_deal(Rules(letter), number, best, Variants.parse(variants), layout_named(layout))


def solve_range(
    rules: Rules,
    start: int,
    count: int,
    *,
    best: bool = False,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    variants: Variants = STANDARD,
    layout: Layout = THREE_PEAKS,
) -> list[DealResult]:
    """Solve deals ``start`` to ``start + count - 1``; ``jobs`` processes (0: all cores).

    ``progress(done, count)`` is called as results come in. Results are in deal order.
    """
    if count < 0 or not start >= 0 or start + count > DEAL_COUNT:
        raise ValueError(f"deals {start} to {start + count - 1} are not all deal numbers")
    if jobs <= 0:
        jobs = os.cpu_count() or 1
    tasks = [
        (rules.letter, number, best, variants.letters, layout.word) for number in range(start, start + count)
    ]
    results: list[DealResult] = []
    if jobs == 1 or count < 2:
        warm_up(layout)  # build the layout's shared tables before timing
        stream: Iterator[DealResult] = map(_solve_task, tasks)
        for result in stream:
            results.append(result)
            if progress is not None:
                progress(len(results), count)
        return results
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(jobs, initializer=warm_up, initargs=(layout,)) as pool:
        for result in pool.imap(_solve_task, tasks, chunksize=8):
            results.append(result)
            if progress is not None:
                progress(len(results), count)
    return results


def warm_up(layout: Layout = THREE_PEAKS) -> None:
    """Build the tables every deal of the layout shares (the search's and the analysis's sets:
    about a second for the valley's 74,088), so that no deal's time includes them; then keep
    what lives on out of the garbage collector's walks, as a server does once loaded
    (``app.web.lifespan.settle_memory``), so that no deal's time includes a full collection
    of them either (one landed on whichever deal triggered it: a 5x "maximum")."""
    solve(Game(GameCode(Rules.EASY, 0, STANDARD, layout)))
    analyse(GameCode(Rules.EASY, 0, STANDARD, layout))  # both passes
    gc.collect()
    gc.freeze()


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a binomial share (95% by default)."""
    if trials == 0:
        return (0.0, 1.0)
    share = successes / trials
    denominator = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """The value below which ``fraction`` of the values lie (nearest rank)."""
    if not sorted_values:
        return math.nan
    index = min(len(sorted_values) - 1, max(0, math.ceil(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


@dataclass(frozen=True, slots=True)
class Summary:
    deals: int
    winnable: int
    interval: tuple[float, float]
    mean_ms: float
    median_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    slowest: int
    """The deal number that took longest."""
    mean_nodes: float
    won_scores: dict[int, int]
    """How many winnable deals had each score (the best score when asked for)."""
    lost_scores: dict[int, int]
    """How many deals with no win had each best score reachable (when asked for)."""

    @property
    def share(self) -> float:
        return self.winnable / self.deals if self.deals else math.nan


def summarize(results: Sequence[DealResult], *, wall: bool = False) -> Summary:
    """Share winnable with its 95% interval, the timing distribution, the score counts."""
    times = sorted((r.wall_seconds if wall else r.cpu_seconds) * 1000 for r in results)
    winnable = sum(r.winnable for r in results)
    won: dict[int, int] = {}
    lost: dict[int, int] = {}
    for r in results:
        if r.score is not None:
            counts = won if r.winnable else lost
            counts[r.score] = counts.get(r.score, 0) + 1
    slowest = max(results, key=lambda r: r.wall_seconds if wall else r.cpu_seconds).number
    return Summary(
        deals=len(results),
        winnable=winnable,
        interval=wilson_interval(winnable, len(results)),
        mean_ms=sum(times) / len(times),
        median_ms=percentile(times, 0.5),
        p90_ms=percentile(times, 0.9),
        p99_ms=percentile(times, 0.99),
        max_ms=times[-1],
        slowest=slowest,
        mean_nodes=sum(r.nodes for r in results) / len(results),
        won_scores=dict(sorted(won.items())),
        lost_scores=dict(sorted(lost.items())),
    )


def format_summary(
    rules: Rules,
    start: int,
    summary: Summary,
    *,
    scores: bool = False,
    variants: Variants = STANDARD,
    layout: Layout = THREE_PEAKS,
) -> str:
    """The summary as text for the terminal."""
    low, high = summary.interval
    named = "".join(f", {variant.name.lower()}" for variant in variants.each())
    if layout.letter:
        named = f", {layout.name.lower()}{named}"
    lines = [
        f"{rules.word} rules{named}, deals {start} to {start + summary.deals - 1} ({summary.deals} deals)",
        f"winnable: {summary.winnable} of {summary.deals} = {100 * summary.share:.2f}% "
        f"(95% interval {100 * low:.2f}% to {100 * high:.2f}%)",
        f"time per deal, ms: mean {summary.mean_ms:.2f}, median {summary.median_ms:.2f}, "
        f"90th percentile {summary.p90_ms:.2f}, 99th percentile {summary.p99_ms:.1f}, "
        f"max {summary.max_ms:.1f} (deal {summary.slowest})",
        f"positions searched per deal: mean {summary.mean_nodes:.0f}",
    ]
    if scores and variants.traditional:
        every = sorted(
            score for counts in (summary.won_scores, summary.lost_scores)
            for score, count in counts.items() for _ in range(count)
        )
        lines.append(
            "best traditional scores at the deal (at any moment of a game; not always a win's): "
            f"mean {sum(every) / len(every):.1f}, quartiles {percentile(every, 0.25):.0f} / "
            f"{percentile(every, 0.5):.0f} / {percentile(every, 0.75):.0f}, "
            f"min {every[0]}, max {every[-1]}"
        )
        merged: dict[int, int] = {}
        for counts in (summary.won_scores, summary.lost_scores):
            for score, count in counts.items():
                merged[score] = merged.get(score, 0) + count
        lines.extend(_histogram(merged, 25))
    elif scores:
        lines.append(f"best scores of the winnable deals ({best_score(layout)} - the fewest draws of a win):")
        lines.extend(_histogram(summary.won_scores, 1))
        lines.append("best scores reachable in the deals with no win (at any moment of a game):")
        lines.extend(_histogram(summary.lost_scores, 25))
    return "\n".join(lines)


def _histogram(counts: dict[int, int], step: int, width: int = 50) -> list[str]:
    """Text bars for the counts, in bins of ``step`` points."""
    if not counts:
        return ["  (none)"]
    bins: dict[int, int] = {}
    for score, count in counts.items():
        bins[score - score % step] = bins.get(score - score % step, 0) + count
    top = max(bins.values())
    lines = []
    for low in range(min(bins), max(bins) + step, step):
        count = bins.get(low, 0)
        bar = "#" * math.ceil(width * count / top) if count else ""
        label = f"{low}" if step == 1 else f"{low}-{low + step - 1}"
        lines.append(f"  {label:>7} {count:>6} {bar}")
    return lines
