"""Test helpers shared by the web and browser tests: finding deals with a known outcome.

These searches are plain depth-first searches over the engine, independent of the
app's solver, so tests that use them do not depend on the solver being right.
"""

from __future__ import annotations

from functools import cache

from app.engine import DRAW, Game, GameCode, Rules, Status


def winning_line(game: Game, node_limit: int = 200_000) -> list[int] | None:
    """A line of actions (positions, or DRAW) that wins from the game's state, or None."""
    seen: set[tuple[int, int, str]] = set()
    line: list[int] = []
    nodes = 0

    def search(g: Game) -> bool:
        nonlocal nodes
        nodes += 1
        if g.status is Status.WON:
            return True
        if nodes > node_limit:
            return False
        key = (g.removed_mask, g.drawn, g.waste.text())
        if key in seen:
            return False
        seen.add(key)
        for action in [*g.playable_positions(), *([DRAW] if g.can_draw() else [])]:
            g.replay([action])
            line.append(action)
            if search(g):
                return True
            line.pop()
            g.undo()
        return False

    g = game.copy()
    g.undo_limit = 10**6
    return list(line) if search(g) else None


@cache
def won_deal(rules: Rules = Rules.EASY, start: int = 1) -> tuple[GameCode, tuple[int, ...]]:
    """The first deal from ``start`` on with a winning line the search finds quickly."""
    for number in range(start, start + 500):
        code = GameCode(rules, number)
        line = winning_line(Game(code), node_limit=20_000)
        if line is not None:
            return code, tuple(line)
    raise AssertionError("no winnable deal found")


@cache
def blocked_by_drawing(rules: Rules = Rules.EASY) -> GameCode:
    """A deal that is blocked after drawing all 23 stock cards without removing any."""
    for number in range(1, 5000):
        game = Game(GameCode(rules, number))
        for _ in range(23):
            game.draw()
        if game.status is Status.BLOCKED:
            return game.code
    raise AssertionError("no such deal found")


# -- the plain searches of tests/support/reference.py, on engine games -----------------


def can_win(game: Game) -> bool:
    """Whether some line wins from the game's position (an exhaustive plain search)."""
    from tests.support.reference import plain_search

    return plain_search(game.deal, game.rules, game.removed_mask, game.drawn, game.waste.rank)


@cache
def best_scores(code: GameCode) -> tuple[int | None, int]:
    """The deal's best score of a win (``None`` without one) and its highest reachable score."""
    from tests.support.reference import plain_best

    return plain_best(code.deal(), code.rules)


def after_draws(code: GameCode, draws: int) -> Game:
    game = Game(code)
    game.replay([DRAW] * draws)
    return game


def played_by_hints(code: GameCode) -> Game:
    """The deal played by following the solver's hint at every step, to the game's end; each
    hint must be an action (a winnable deal's game then ends won)."""
    from app.engine.search.hints import hint

    game = Game(code)
    while not game.is_over:
        move = hint(game).action
        assert move is not None, (code, game.line)
        game.play(move)
    return game
