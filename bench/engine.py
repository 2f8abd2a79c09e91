"""Engine benchmark: actions per second in random play, deals per second.

Run from the project root, on one core (the script is single-threaded)::

    .venv/bin/python bench/engine.py

Random play: a seeded ``random.Random`` plays games of random deals, choosing
among the actions the rules allow at each step (a playable removal, a draw, an
undo); only accepted actions are counted, and making each new game counts in
the time. Deals: ``Deal.from_number`` and ``GameCode.deal`` over consecutive
deal numbers. Each figure is the best of a few rounds.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine import DEAL_COUNT, Deal, Game, GameCode, Rules

ACTIONS_TARGET = 200_000
DEALS_TARGET = 20_000


def random_play(actions: int, seed: int) -> tuple[int, int, int]:
    """Play until ``actions`` actions were accepted; returns (actions, games, games won)."""
    rng = random.Random(seed)
    done = games = won = 0
    rules = (Rules.EASY, Rules.CLASSIC)
    while done < actions:
        game = Game(GameCode(rules[games & 1], rng.randrange(DEAL_COUNT)))
        games += 1
        while done < actions:
            playable = game.playable_positions()
            roll = rng.random()
            if game.undo_available and roll < 0.1:
                game.undo()
            elif playable and (roll < 0.8 or not game.can_draw()):
                game.remove(rng.choice(playable))
                if game.is_over:
                    won += 1
                    done += 1
                    break
            elif game.can_draw():
                game.draw()
            else:
                break  # blocked, nothing left to undo: next game
            done += 1
    return done, games, won


def best_rate(rounds: int, work: Callable[[], int]) -> tuple[float, float]:
    """The best of ``rounds`` runs of ``work`` (which returns how many things it did).

    Returns things per second of wall-clock time and per second of this process's
    CPU time (the second is steadier on a busy machine).
    """
    best_wall = best_cpu = 0.0
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        count = work()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        best_wall = max(best_wall, count / wall)
        best_cpu = max(best_cpu, count / max(cpu, 1e-9))
    return best_wall, best_cpu


def show(name: str, unit: str, rates: tuple[float, float], target: int, extra: str = "") -> bool:
    wall, cpu = rates
    print(f"{name}: {wall:,.0f} {unit}/s ({cpu:,.0f} per CPU second{extra}; target {target:,})")
    return wall >= target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=300_000, help="accepted actions per round")
    parser.add_argument("--deals", type=int, default=30_000, help="deals per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20_240_101)
    args = parser.parse_args()

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    print(
        f"python {platform.python_version()} ({platform.python_implementation()}), "
        f"{os.cpu_count()} cpus, benchmark pinned to one core"
    )

    stats: list[tuple[int, int, int]] = []

    def play() -> int:
        result = random_play(args.actions, args.seed)
        stats.append(result)
        return result[0]

    actions_rates = best_rate(args.rounds, play)
    done, games, won = stats[-1]
    detail = f"; {done:,} accepted actions, {games:,} games, {won:,} won"
    met = show("random play", "actions", actions_rates, ACTIONS_TARGET, detail)

    deal_count: int = args.deals

    def deals() -> int:
        for number in range(deal_count):
            Deal.from_number(number)
        return deal_count

    def code_deals() -> int:
        step = DEAL_COUNT // deal_count
        for number in range(0, step * deal_count, step):
            GameCode(Rules.EASY, number).deal()
        return deal_count

    met &= show("Deal.from_number", "deals", best_rate(args.rounds, deals), DEALS_TARGET)
    met &= show("GameCode.deal", "deals", best_rate(args.rounds, code_deals), DEALS_TARGET)
    print("targets met" if met else "TARGETS MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
