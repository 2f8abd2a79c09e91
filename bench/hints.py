"""Benchmark hints: CPU time of a cold hint (the deal never analysed) and a warm one.

    .venv/bin/python bench/hints.py                 # 300 positions, both rule sets
    .venv/bin/python bench/hints.py --positions 60  # quicker

Positions are random mid-game positions (10 to 40 random legal actions into random deals),
including positions of the 10 hardest deals of each rule set: those issue 13 names, then
deals among the first 2,000 that the depth-first search cannot decide within its budget. A cold hint is the whole-deal
analysis with scores plus the lookup, as the web app's worker makes it (here in this
process); a warm hint is the lookup in a kept analysis. Times are this process's CPU time
(``time.process_time``); the machine's load is printed beside them.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine.actions import Action
from app.engine.deal import DEAL_COUNT, GameCode, Rules
from app.engine.game import Game
from app.engine.search.analysis import _sets, analyse
from app.engine.search.hints import hint
from app.engine.search.solver import QUICK_NODES, DealSolver, SearchLimitExceeded
from app.engine.search.solver_stats import percentile

NAMED: Final = ("TP1-E-AAAABTA", "TP1-C-YBNNXMJ")
"""Deals issue 13 names as the slowest hints of the old solver (with easy deal 1170, its
slowest to prove lost): always among the hardest."""


def hardest(rules: Rules, count: int) -> list[GameCode]:
    """The deals issue 13 names, then the first deals the quick search cannot decide: ``count``."""
    found = [c for c in map(GameCode.parse, NAMED) if c.rules is rules]
    if rules is Rules.EASY:
        found.append(GameCode(rules, 1170))
    for number in range(2000):
        game = Game(GameCode(rules, number))
        try:
            DealSolver.for_game(game).find_win(0, 0, game.waste.rank, True, node_limit=QUICK_NODES)
        except SearchLimitExceeded:
            if game.code not in found:
                found.append(game.code)
            if len(found) == count:
                break
    return found


def position(code: GameCode, rng: random.Random) -> Game:
    game = Game(code)
    for _ in range(rng.randint(10, 40)):
        choices: list[Action] = [Action(p) for p in game.playable_positions()]
        if game.can_draw():
            choices.append(Action(None))
        if not choices or game.is_over:
            break
        game.play(rng.choice(choices))
    return game if not game.is_over else Game(code)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    _sets()  # the layout, shared by every deal: built once per process
    analyse(GameCode(Rules.EASY, DEAL_COUNT - 1))  # and numpy's first calls (as in a worker that has run)
    codes = [code for rules in Rules for code in hardest(rules, 10)]
    while len(codes) < args.positions:
        codes.append(GameCode(rng.choice(list(Rules)), rng.randrange(DEAL_COUNT)))
    games = [position(code, rng) for code in codes[: args.positions]]
    cold: list[float] = []
    warm: list[float] = []
    slowest = ("", 0.0)
    for game in games:
        start = time.process_time()
        analysis = analyse(game.code)
        hint(game, analysis=analysis)
        spent = time.process_time() - start
        cold.append(spent * 1000)
        if spent * 1000 > slowest[1]:
            slowest = (f"{game.code_text()} after {game.moves} moves", spent * 1000)
        start = time.process_time()
        for _ in range(10):
            hint(game, analysis=analysis)
        warm.append((time.process_time() - start) * 100)
    nbytes = analysis.nbytes
    every = sorted(cold + warm)
    cold.sort()
    warm.sort()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores shared)")
    print(f"{len(games)} positions, {len(codes[:20])} of them in the hardest deals")
    print(f"cold hint, ms CPU: mean {sum(cold) / len(cold):.1f}, median {percentile(cold, 0.5):.1f}, "
          f"p99 {percentile(cold, 0.99):.1f}, max {cold[-1]:.1f} ({slowest[0]})")
    print(f"warm hint, ms CPU: mean {sum(warm) / len(warm):.3f}, median {percentile(warm, 0.5):.3f}, "
          f"p99 {percentile(warm, 0.99):.3f}, max {warm[-1]:.3f}")
    print(f"a cold and a warm hint per position together: p99 {percentile(every, 0.99):.1f} ms")
    print(f"memory of one deal's analysis: {nbytes / 2**20:.2f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
