"""How long a game's review takes: a 60-action game, reviewed cold and from the kept analysis.

    .venv/bin/python bench/review.py [--games 20] [--repeat 50]

For each of ``--games`` deals (easy and classic in turn) a long game is made: a line has at
most 51 actions in effect (28 removals, 23 draws; a 60-move game has undone some, and undone
actions are not reviewed), so the game follows a winning line, then random legal actions,
up to 60 or its end; games under 40 actions are skipped. Its review is built: once cold (the
deal's whole-deal analysis made now, as the first review of a deal never seen asks for; the
web app makes it in its worker process), once right after (the deal analysed: the issue's
target, < 50 ms at p99), then ``--repeat`` times warm (a new review of the same line each
time, as after the server's review cache dropped it). CPU time (``time.process_time``), with
the machine's load printed beside.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from app.engine import Game, GameCode, Rules
from app.engine.line import Line
from app.engine.search.analysis import ANALYSES
from app.engine.search.review import DealAnalysisAdapter, Review, children
from app.engine.search.solver import solve

ACTIONS = 60


def sixty_action_game(code: GameCode, rng: random.Random) -> Line | None:
    game = Game(code)
    solution = solve(game)
    for action in solution.line:
        if len(game.line) == ACTIONS - 1 or game.is_over:
            break
        game.play(action)
    while len(game.line) < ACTIONS and not game.is_over:
        moves = list(children(game))
        if not moves:
            break
        game.play(rng.choice(moves)[0])
    return Line.of(game) if len(game.line) >= 40 else None


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    rng = random.Random(14)
    cold: list[float] = []
    first: list[float] = []
    warm: list[float] = []
    lengths: list[int] = []
    number = 0
    while len(cold) < args.games:
        rules = (Rules.EASY, Rules.CLASSIC)[len(cold) % 2]
        code = GameCode(rules, 1000 + number)
        number += 1
        line = sixty_action_game(code, rng)
        if line is None:
            continue
        lengths.append(len(line))
        assert ANALYSES.peek(code) is None  # a deal not analysed yet
        started = time.process_time()
        analysis = DealAnalysisAdapter(code)  # the deal's analysis, made now
        Review.build(code, line, analysis)
        cold.append(time.process_time() - started)
        started = time.process_time()
        Review.build(code, line, DealAnalysisAdapter(code))  # the analysis kept
        first.append(time.process_time() - started)
        for _ in range(args.repeat):
            started = time.process_time()
            Review.build(code, line, analysis)
            warm.append(time.process_time() - started)
    ms = 1000
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores); {len(cold)} games of {min(lengths)}-{max(lengths)} actions")
    for name, times in (("cold (analysis made)", cold), ("once analysed", first), ("warm (again)", warm)):
        print(
            f"{name:<22} mean {statistics.mean(times) * ms:7.1f} ms  median {statistics.median(times) * ms:7.1f} ms"
            f"  p99 {percentile(times, 0.99) * ms:7.1f} ms  max {max(times) * ms:7.1f} ms  (CPU, {len(times)} reviews)"
        )


if __name__ == "__main__":
    main()
