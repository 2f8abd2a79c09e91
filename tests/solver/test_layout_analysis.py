"""The search on every layout (issue 25): the whole-deal analysis, the depth-first solver,
hints and the review's playouts, against a plain search written from the layouts' tables
(tests/support/layout_tables.py), as the variants' tests do (test_variant_analysis.py)."""

from __future__ import annotations

import random

import pytest

from app.engine import DRAW, Game, GameCode, Rules, Variants
from app.engine.layout import LAYOUTS
from app.engine.rules import best_score
from app.engine.search.analysis import MOST_DRAWS, analyse
from app.engine.search.hints import hint
from app.engine.search.review import deal_difficulty
from app.engine.search.solver import solve
from tests.support.layout_tables import plain

CASES = [(rules, letters) for rules, letters in ((Rules.EASY, ""), (Rules.CLASSIC, ""), (Rules.CLASSIC, "W"), (Rules.EASY, "J"))]


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_the_analysis_and_the_solver_agree_with_a_plain_search(word: str) -> None:
    # Positions a random game reaches with about half the cards gone (a whole deal's plain
    # search takes half a minute); both answers must come up.
    rng, answers = random.Random(word), {True: 0, False: 0}
    layout = LAYOUTS[word]
    for number in range(16):
        rules, letters = CASES[number % 4]
        code = GameCode(rules, number, Variants.parse(letters), layout)
        game = Game(code)
        while game.cards_left() > layout.count // 2 + rng.randrange(0, 3) and game.status.value == "playing":
            moves = game.playable_positions() or ([DRAW] if game.can_draw() else [])
            game.replay([rng.choice(moves)])
        if game.status.value != "playing":
            continue
        position = (game.removed_mask, game.drawn, 0 if game.waste is None or game.waste.rank == 0 else game.waste.rank)
        won, best = plain(code, *position)
        analysis = analyse(code)
        assert analysis.winnable(*position) is won, (code, position)
        assert analysis.best_score(*position) == best, (code, position)
        if not letters:  # the depth-first search knows the standard deck
            solution = solve(game)
            assert solution.winnable is won
            if won:
                end = game.copy()
                end.replay([DRAW if a.position is None else a.position for a in solution.line])
                assert end.status.value == "won" and end.score >= best_score(layout) - MOST_DRAWS
        answers[won] += 1
    assert answers[True] >= 2 and answers[False] >= 2, answers


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_hints_lead_to_a_win_on_every_layout_and_mid_game_positions_agree(word: str) -> None:
    layout, rng, played = LAYOUTS[word], random.Random(word), 0
    for number in range(20, 60):
        code = GameCode(Rules.EASY, number, Variants(), layout)
        if not analyse(code).start().winnable:
            continue
        game = Game(code)
        while game.status.value == "playing":  # follow the hints to the end
            advice = hint(game)
            assert advice.undos_to_winnable == 0 and advice.action is not None
            game.play(advice.action)
        assert game.status.value == "won"
        # A random game's position: the analysis says what the depth-first solver says.
        wander = Game(code)
        for _ in range(rng.randrange(5, 25)):
            moves = wander.playable_positions() + ([DRAW] if wander.can_draw() else [])
            if not moves:
                break
            wander.replay([rng.choice(moves)])
        if wander.status.value == "playing":
            assert solve(wander).winnable is analyse(code).of(wander).winnable
        played += 1
        if played == 3:
            break
    assert played == 3


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_every_layout_has_difficulty_bands_and_traditional_scores(word: str) -> None:
    code = GameCode(Rules.EASY, 3, Variants.parse("T"), LAYOUTS[word])
    verdict = analyse(code).start()
    assert verdict.best_score >= 0
    assert deal_difficulty(GameCode(Rules.EASY, 3, Variants(), LAYOUTS[word])).value


COMBINATIONS = [(rules, letters) for rules in (Rules.EASY, Rules.CLASSIC) for letters in ("W", "J", "WJ", "OT", "OWJT")]
"""With the plain game of the first test: every deck the variants deal (none, an empty waste,
the joker, both) under both rules; open peaks and traditional scoring deal the same deck."""


@pytest.mark.parametrize(("rules", "letters"), COMBINATIONS, ids=lambda v: getattr(v, "word", v))
@pytest.mark.parametrize("word", list(LAYOUTS))
def test_every_variant_combination_agrees_with_the_plain_search(word: str, rules: Rules, letters: str) -> None:
    layout, rng = LAYOUTS[word], random.Random(f"{word}{rules.word}{letters}")
    variants = Variants.parse(letters)
    for number in range(40):  # a game stopped with about half the cards gone
        code = GameCode(rules, number, variants, layout)
        game = Game(code)
        while game.cards_left() > layout.count // 2 and game.status.value == "playing":
            moves = game.playable_positions() or ([DRAW] if game.can_draw() else [])
            game.replay([rng.choice(moves)])
        if game.status.value == "playing":
            break
    assert game.status.value == "playing"
    position = (game.removed_mask, game.drawn, 0 if game.waste is None or game.waste.rank == 0 else game.waste.rank)
    won, best = plain(code, *position)
    analysis = analyse(code)
    assert analysis.winnable(*position) is won and analysis.of(game).winnable is won
    assert solve(game).winnable is won
    if not variants.traditional:
        assert analysis.best_score(*position) == best == analysis.of(game).best_score
    line = analysis.winning_line(*position)
    assert (line is not None) is won
    if line is not None:  # the analysis's line wins on the engine
        game.replay([DRAW if a.position is None else a.position for a in line])
        assert game.status.value == "won"
