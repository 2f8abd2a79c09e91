"""Positions for the solver tests: games in progress with a few cards left."""

from __future__ import annotations

import random
from collections.abc import Iterator

from app.engine.actions import Action
from app.engine.deal import DEAL_COUNT, GameCode, Rules
from app.engine.game import Game
from app.engine.search.solver import solve


def random_action(game: Game, rng: random.Random) -> Action | None:
    """A random legal action (removals and the draw equally likely), or None if there is none."""
    choices: list[Action] = [Action(p) for p in game.playable_positions()]
    if game.can_draw():
        choices.append(Action(None))
    return rng.choice(choices) if choices else None


def small_positions(seed: int, rules: Rules, count: int, *, most_left: int = 6,
                    ) -> Iterator[Game]:
    """``count`` games with at most ``most_left`` cards on the peaks, some winnable, some not.

    Each follows a winning line of a random winnable deal until only a few cards are
    left, then strays from it with a few random actions.
    """
    rng = random.Random(seed)
    made = 0
    while made < count:
        game = Game(GameCode(rules, rng.randrange(DEAL_COUNT)))
        solution = solve(game)
        if not solution.winnable:
            continue
        left = rng.randint(1, most_left)
        for action in solution.line:
            if game.cards_left() <= left:
                break
            game.play(action)
        for _ in range(rng.randint(0, 4)):
            action = random_action(game, rng)
            if action is None or game.is_over:
                break
            game.play(action)
        if game.is_over:
            continue
        made += 1
        yield game


def replays_to(game: Game, line: tuple[Action, ...]) -> Game:
    """The game after playing ``line`` on a copy (raises if an action is refused)."""
    replay = game.copy()
    for action in line:
        replay.play(action)
    return replay
