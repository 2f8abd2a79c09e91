"""Benchmark the solver: the figures of docs/solvability.md.

    .venv/bin/python bench/solver.py --deals 10000                # both rule sets, one core
    .venv/bin/python bench/solver.py --deals 10000 --csv out.csv  # keep every deal's result
    .venv/bin/python bench/solver.py --from-csv out.csv --plot docs/solve_times.png
    .venv/bin/python bench/solver.py --deals 2000 --best --csv best.csv --plot-scores docs/best_scores.png
    .venv/bin/python bench/solver.py --deals 1000 --best --variants T   # traditional scoring
    .venv/bin/python bench/solver.py --deals 1000 --best --layout valley  # another layout
    .venv/bin/python bench/solver.py --deals 1000 --best --layout all     # every layout, compared

Times are the processor time of each solve in one process (``time.process_time``),
deal after deal, the shared tables built before the first one; the wall-clock
times are kept beside them. ``--jobs`` spreads the deals over processes: quicker
for the shares, but the times then suffer from the other processes.

``--layout all`` solves each deal on every layout in turn, in one process, so that the
layouts share whatever load the machine has, and prints each layout's mean, 99th
percentile and max as a ratio to three peaks' (the layouts issue asks for at most 2x).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine.deal import Rules
from app.engine.layout import LAYOUTS, THREE_PEAKS, Layout, layout_named
from app.engine.search.solver_stats import (
    DealResult,
    Summary,
    format_summary,
    solve_deal,
    solve_range,
    summarize,
    warm_up,
)
from app.engine.variants import Variants

FIELDS = ("rules", "number", "winnable", "cpu_ms", "wall_ms", "nodes", "score")


def _progress(done: int, count: int) -> None:
    if done == count or done % 100 == 0:
        print(f"\r  {done}/{count}", end="" if done < count else "\n", file=sys.stderr, flush=True)


def write_csv(path: Path, rows: list[tuple[Rules, DealResult]],
              layouts: list[str] | None = None) -> None:
    """Every deal's result; with ``layouts`` (``--layout all``), a first column names each row's layout."""
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(FIELDS if layouts is None else ("layout", *FIELDS))
        for i, (rules, r) in enumerate(rows):
            writer.writerow(
                ([] if layouts is None else [layouts[i]]) + [
                    rules.word,
                    r.number,
                    int(r.winnable),
                    f"{r.cpu_seconds * 1000:.3f}",
                    f"{r.wall_seconds * 1000:.3f}",
                    r.nodes,
                    "" if r.score is None else r.score,
                ]
            )


def read_csv(path: Path) -> dict[Rules, list[DealResult]]:
    results: dict[Rules, list[DealResult]] = {}
    with path.open(newline="") as source:
        for row in csv.DictReader(source):
            rules = Rules.from_word(row["rules"])
            results.setdefault(rules, []).append(
                DealResult(
                    number=int(row["number"]),
                    winnable=row["winnable"] == "1",
                    cpu_seconds=float(row["cpu_ms"]) / 1000,
                    wall_seconds=float(row["wall_ms"]) / 1000,
                    nodes=int(row["nodes"]),
                    score=int(row["score"]) if row["score"] else None,
                )
            )
    return results


def plot(results: dict[Rules, list[DealResult]], path: Path) -> None:
    """Solve-time distribution (log scale), winnable and lost deals apart, per rule set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4.2), squeeze=False)
    for axis, (rules, rows) in zip(axes[0], results.items(), strict=True):
        times = [r.cpu_seconds * 1000 for r in rows]
        low = max(0.01, min(times))
        high = max(times)
        bins = [low * (high / low) ** (i / 60) for i in range(61)]
        won = [r.cpu_seconds * 1000 for r in rows if r.winnable]
        lost = [r.cpu_seconds * 1000 for r in rows if not r.winnable]
        axis.hist([won, lost], bins=bins, stacked=True, label=["winnable", "not winnable"],
                  color=["#3b7dd8", "#d8643b"])
        axis.set_xscale("log")
        summary = summarize(rows)
        for value, name in ((summary.median_ms, "median"), (summary.mean_ms, "mean"),
                            (summary.p99_ms, "99th pct")):
            axis.axvline(value, color="black", linestyle=":", linewidth=1)
            axis.text(value, axis.get_ylim()[1] * 0.95, f" {name}\n {value:.1f} ms",
                      fontsize=8, va="top")
        axis.set_title(f"{rules.word} rules: {len(rows)} deals, "
                       f"{100 * summary.share:.1f}% winnable")
        axis.set_xlabel("solve time per deal, ms (processor time, one core, log scale)")
        axis.set_ylabel("deals")
        axis.legend(loc="center right")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def plot_scores(results: dict[Rules, list[DealResult]], path: Path) -> None:
    """Best-score distribution per rule set (a run made with --best)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4.2), squeeze=False)
    for axis, (rules, rows) in zip(axes[0], results.items(), strict=True):
        won = [r.score for r in rows if r.winnable and r.score is not None]
        lost = [r.score for r in rows if not r.winnable and r.score is not None]
        low = min([*won, *lost], default=500)
        bins = list(range(low - low % 2, 776, 2))
        axis.hist([won, lost], bins=bins, stacked=True, color=["#3b7dd8", "#d8643b"],
                  label=["winnable: 772 - fewest draws", "no win: best score reachable"])
        axis.set_title(f"{rules.word} rules: best score of {len(rows)} deals")
        axis.set_xlabel("best score")
        axis.set_ylabel("deals")
        axis.set_yscale("log")
        axis.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def compare_layouts(rules: Rules, start: int, count: int, *, best: bool, variants: Variants,
                    wall: bool, csv_rows: list[tuple[str, Rules, DealResult]] | None = None
                    ) -> dict[Layout, Summary]:
    """Each deal on every layout in turn (one process: the layouts share the machine's load).
    ``csv_rows`` collects every deal's result with its layout's word, when given."""
    for layout in LAYOUTS.values():
        warm_up(layout)
    results: dict[Layout, list[DealResult]] = {layout: [] for layout in LAYOUTS.values()}
    for done, number in enumerate(range(start, start + count), start=1):
        for layout, rows in results.items():
            rows.append(solve_deal(rules, number, best, variants, layout))
        _progress(done, count)
    if csv_rows is not None:
        csv_rows.extend((layout.word, rules, r) for layout, rows in results.items() for r in rows)
    return {layout: summarize(rows, wall=wall) for layout, rows in results.items()}


def format_ratios(summaries: dict[Layout, Summary]) -> str:
    base = summaries[THREE_PEAKS]
    lines = ["layout        mean ms   p99 ms   max ms   x mean   x p99   x max  (x: to three peaks)"]
    for layout, s in summaries.items():
        lines.append(
            f"{layout.word:<12} {s.mean_ms:8.2f} {s.p99_ms:8.1f} {s.max_ms:8.1f} "
            f"{s.mean_ms / base.mean_ms:8.2f} {s.p99_ms / base.p99_ms:7.2f} {s.max_ms / base.max_ms:7.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--rules", nargs="+", default=["easy", "classic"],
                        choices=["easy", "classic"])
    parser.add_argument("--jobs", type=int, default=1, help="processes (0: all cores)")
    parser.add_argument("--best", action="store_true", help="also find the best scores")
    parser.add_argument("--wall", action="store_true", help="summarise wall-clock times")
    parser.add_argument("--csv", type=Path, help="write every deal's result here")
    parser.add_argument("--from-csv", type=Path, help="summarise (and plot) a saved run")
    parser.add_argument("--plot", type=Path, help="draw the time distribution (needs matplotlib)")
    parser.add_argument("--plot-scores", type=Path, help="draw the best-score distribution")
    parser.add_argument("--variants", type=Variants.parse, default=Variants(), metavar="LETTERS",
                        help="variant letters (docs/variants.md): O, W, J, T")
    parser.add_argument("--layout", default="three-peaks",
                        help="three-peaks, diamonds, valley, theatre, up-down (docs/layouts.md), "
                        "or all: every layout, compared")
    args = parser.parse_args(argv)
    if args.layout == "all":
        csv_rows: list[tuple[str, Rules, DealResult]] = []
        for word in args.rules:
            rules = Rules.from_word(word)
            print(f"{word}:", file=sys.stderr)
            summaries = compare_layouts(rules, args.start, args.deals, best=args.best,
                                        variants=args.variants, wall=args.wall, csv_rows=csv_rows)
            for layout, summary in summaries.items():
                print(format_summary(rules, args.start, summary, variants=args.variants, layout=layout))
            print(format_ratios(summaries))
            print()
        if args.csv:
            write_csv(args.csv, [(rules, r) for _, rules, r in csv_rows], [word for word, _, _ in csv_rows])
        return 0
    layout: Layout = layout_named(args.layout)

    if args.from_csv:
        results = read_csv(args.from_csv)
    else:
        results = {}
        for word in args.rules:
            rules = Rules.from_word(word)
            print(f"{word}:", file=sys.stderr)
            results[rules] = solve_range(
                rules, args.start, args.deals, best=args.best, jobs=args.jobs,
                progress=_progress, variants=args.variants, layout=layout,
            )
        if args.csv:
            write_csv(args.csv, [(rules, r) for rules, rows in results.items() for r in rows])
    for rules, rows in results.items():
        start = min(r.number for r in rows)
        print(format_summary(rules, start, summarize(rows, wall=args.wall), scores=args.best,
                             variants=args.variants, layout=layout))
        print()
    if args.plot:
        plot(results, args.plot)
    if args.plot_scores:
        plot_scores(results, args.plot_scores)
    return 0


if __name__ == "__main__":
    sys.exit(main())
