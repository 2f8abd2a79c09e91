"""Make today.csv.gz: the answers of the solver as it was before the whole-deal analysis.

    git show 49e54bd:app/engine/search/solver.py > /tmp/old_solver.py
    .venv/bin/python tests/solver/reference_answers/make_today.py /tmp/old_solver.py E 0 10000 > easy.csv
    .venv/bin/python tests/solver/reference_answers/make_today.py /tmp/old_solver.py C 0 10000 --best > classic.csv

Each line: ``rules,number,winnable,best`` (best empty when not asked). The committed file
joins such runs (``rules,number,winnable,best`` with a header) and is gzipped.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from app.engine.deal import GameCode, Rules
from app.engine.game import Game


def main(argv: list[str]) -> int:
    path, letter, start, stop = argv[0], argv[1], int(argv[2]), int(argv[3])
    best = "--best" in argv
    spec = importlib.util.spec_from_file_location("old_solver", path)
    assert spec is not None and spec.loader is not None
    old = importlib.util.module_from_spec(spec)
    sys.modules["old_solver"] = old  # dataclasses look their module up while it loads
    spec.loader.exec_module(old)
    for number in range(start, stop):
        solution = old.solve(Game(GameCode(Rules(letter), number)), best=best)
        print(f"{letter},{number},{int(solution.winnable)},{solution.score if best else ''}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
