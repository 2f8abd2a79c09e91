"""The whole-deal analysis's two passes on every layout, each on its own: CPU per deal, and
per 1,000 sets of removed cards judged (docs/performance.md, "Why the analysis with scores
follows the layout's sets").

    .venv/bin/python bench/analysis_parts.py [--deals 100] [--rules easy]

Each deal is analysed on every layout in turn, in one process, after ``warm_up``, so that the
layouts share whatever load the machine has. Prints, per layout: the sets, the cells of the
best-score table (sets x numbers drawn), the win pass and the best-score pass's mean CPU per
deal, both as a ratio to three peaks', and both passes' CPU per 1,000 sets.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine import GameCode, Rules, Variants
from app.engine.layout import LAYOUTS
from app.engine.search.best_pass import best_after_draws
from app.engine.search.passes import _sets, win_limits
from app.engine.search.solver_stats import warm_up


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--rules", choices=["easy", "classic"], default="easy")
    args = parser.parse_args(argv)
    rules = Rules.EASY if args.rules == "easy" else Rules.CLASSIC
    for layout in LAYOUTS.values():
        warm_up(layout)
    win = dict.fromkeys(LAYOUTS, 0.0)
    best = dict.fromkeys(LAYOUTS, 0.0)
    for number in range(args.start, args.start + args.deals):
        for word, layout in LAYOUTS.items():
            deal = GameCode(rules, number, Variants(), layout).deal()
            started = time.process_time()
            win_limits(deal, rules, layout)
            judged = time.process_time()
            best_after_draws(deal, rules, layout)
            win[word] += judged - started
            best[word] += time.process_time() - judged
    print(f"{rules.word} rules, deals {args.start} to {args.start + args.deals - 1}, CPU per deal")
    print("layout          sets    cells   win ms  x win  best ms  x best  both ms per 1,000 sets")
    for word, layout in LAYOUTS.items():
        sets = len(_sets(layout).masks)
        cells = sets * (GameCode(rules, args.start, Variants(), layout).deal().stock_size + 1)
        w, b = win[word] / args.deals * 1000, best[word] / args.deals * 1000
        w3, b3 = win["three-peaks"] / args.deals * 1000, best["three-peaks"] / args.deals * 1000
        print(f"{word:<12} {sets:7,d} {cells:9,d} {w:7.2f} {w / w3:6.2f} {b:8.2f} {b / b3:7.2f}"
              f" {(w + b) / sets * 1000:10.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
