"""The inputs of the deal difficulty over many deals, and its distribution (docs/solvability.md).

For each deal: whether it can be won (the solver), the share of random playouts that clear
it (:func:`app.engine.search.review.playout_share`), and the rating (:func:`app.engine.search.review.rate`);
with ``--best`` also the fewest draws a win needs (the layout's best score - par; a best-score
search, slower)
and how many of the deal's legal first actions keep a win in reach. One CSV row a deal,
written as it goes, so a long run can be read (and extrapolated) while it runs;
``--summary`` prints the distribution.

    .venv/bin/python scripts/difficulty.py --rules easy --deals 10000 --csv difficulty-easy.csv
    .venv/bin/python scripts/difficulty.py --summary difficulty-easy.csv
    .venv/bin/python scripts/difficulty.py --layout valley --rules classic --deals 10000 --csv valley.csv
"""

from __future__ import annotations

import argparse
import collections
import csv
import sys
import time

from app.engine import Game, GameCode, Rules
from app.engine.layout import layout_named
from app.engine.rules import best_score
from app.engine.search.analysis import analyse
from app.engine.search.review import THRESHOLDS, children, playout_share, rate
from app.engine.search.solver_stats import wilson_interval

FIELDS = (
    "code", "winnable", "playout_share", "fewest_draws", "winning_first", "first_actions", "rating",
    "cpu_ms",
)


def inputs(code: GameCode, best: bool) -> dict[str, object]:
    started = time.process_time()
    analysis = analyse(code, scores=best)  # whether each position can be won: about 3 ms
    deal = Game(code)
    winnable = analysis.winnable(0, 0, analysis.waste_after[0])
    share = playout_share(code) if winnable else 0.0
    first = list(children(deal))
    fewest = winning_first = None
    if winnable and best:
        fewest = best_score(code.layout) - analysis.start().best_score
        winning_first = analysis.winning_first_moves()
    rating = rate(winnable, share)
    return {
        "code": code.text(),
        "winnable": int(winnable),
        "playout_share": share,
        "fewest_draws": "" if fewest is None else fewest,
        "winning_first": "" if winning_first is None else winning_first,
        "first_actions": len(first),
        "rating": rating.value,
        "cpu_ms": round((time.process_time() - started) * 1000, 1),
    }


def summary(path: str) -> None:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    ratings = collections.Counter(
        rate(r["winnable"] == "1", float(r["playout_share"])).value for r in rows
    )
    print(f"{len(rows)} deals, {rows[0]['code']} to {rows[-1]['code']}")
    for word in ("easy", "medium", "hard", "expert", "impossible"):
        low, high = wilson_interval(ratings[word], len(rows))
        print(f"  {word:<10} {ratings[word]:>6}  {100 * ratings[word] / len(rows):5.1f}%"
              f"  [{100 * low:.1f}, {100 * high:.1f}]")
    print("  thresholds (share of playouts won):", [(least, rating.value) for least, rating in THRESHOLDS])
    shares = sorted(float(r["playout_share"]) for r in rows if r["winnable"] == "1")
    if shares:
        tenths = [shares[min(len(shares) - 1, len(shares) * k // 10)] for k in range(11)]
        print("  playout share of winnable deals by tenths:", [round(s, 3) for s in tenths])
    draws = collections.Counter(int(r["fewest_draws"]) for r in rows if r["fewest_draws"])
    print("  fewest draws a win needs:", dict(sorted(draws.items())))
    first = collections.Counter(int(r["winning_first"]) for r in rows if r["winning_first"])
    print("  winning first actions:", dict(sorted(first.items())))
    cpu = sorted(float(r["cpu_ms"]) for r in rows)
    print(f"  CPU per deal: mean {sum(cpu) / len(cpu):.0f} ms, median {cpu[len(cpu) // 2]:.0f} ms,"
          f" max {cpu[-1]:.0f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", choices=["easy", "classic"], default="easy")
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--csv", default="difficulty.csv")
    parser.add_argument("--best", action="store_true", help="also the fewest draws and winning first actions")
    parser.add_argument("--layout", type=layout_named, default=layout_named("three-peaks"),
                        help="three-peaks, diamonds, valley, theatre or up-down (docs/layouts.md)")
    parser.add_argument("--summary", metavar="CSV", help="print the distribution of a finished run")
    args = parser.parse_args(argv)
    if args.summary:
        summary(args.summary)
        return 0
    rules = Rules.from_word(args.rules)
    with open(args.csv, "w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        for number in range(args.start, args.start + args.deals):
            writer.writerow(inputs(GameCode(rules, number, layout=args.layout), args.best))
            f.flush()
    summary(args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
