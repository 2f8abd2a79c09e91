"""Traditional scoring (variant T, docs/variants.md sections 5 and 8) in the analysis, the
solver, hints and the review, against the suite's plain search (``plain_traditional`` in
tests/support/reference.py: every exact position ``(removed, drawn, waste, run)``
tried, written from the rules, knowing nothing of the analysis's tables)."""

from __future__ import annotations

import itertools
import random

import pytest

from app.engine import Game, GameCode, Rules, Status, Variants
from app.engine.line import Line
from app.engine.search.analysis import analyse
from app.engine.search.hints import hint
from app.engine.search.review import Review, analysis_for, deal_difficulty
from app.engine.search.solver import solve
from tests.support.deals import played_by_hints
from tests.support.reference import plain_traditional

LETTERS = ["T", "OT", "WT", "JT", "WJT", "OWJT"]


def waste_rank(game: Game) -> int:
    return 0 if game.waste is None else game.waste.rank


def late_position(code: GameCode, rng: random.Random) -> Game:
    """Random play, removals twice as likely as draws, until few cards are left."""
    game = Game(code)
    while game.cards_left() > rng.randrange(4, 12) and game.status is Status.PLAYING:
        choices = game.playable_positions() * 2 + ([-1] if game.can_draw() else [])
        if not choices:
            break
        move = rng.choice(choices)
        game.draw() if move == -1 else game.remove(move)
    return game


def reference(game: Game) -> tuple[bool, int, int | None]:
    return plain_traditional(
        game.deal, game.rules, game.removed_mask, game.drawn, waste_rank(game), game.run
    )


def replay(game: Game, line: list[object] | tuple[object, ...]) -> Game:
    played = game.copy()
    for action in line:
        played.play(action)  # type: ignore[arg-type]
    return played


@pytest.mark.parametrize("letters", LETTERS)
@pytest.mark.parametrize("rules", [Rules.EASY, Rules.CLASSIC])
def test_late_positions_agree_with_the_plain_search(letters: str, rules: Rules) -> None:
    rng = random.Random(f"T{letters}{rules}")
    checked = mid_run = 0
    for number in range(6):
        code = GameCode(rules, number, Variants.parse(letters))
        analysis = analyse(code)
        for _ in range(5):
            game = late_position(code, rng)
            if game.is_over:
                continue
            won, gain, win_gain = reference(game)
            verdict = analysis.of(game)
            assert (verdict.winnable, verdict.best_score) == (won, game.score + gain), (code, game.line)
            # The best line replays in the engine to exactly that score.
            line = analysis.best_line(game.removed_mask, game.drawn, waste_rank(game), run=game.run)
            assert replay(game, line).score == verdict.best_score, (code, game.line)
            if won:
                assert replay(game, analysis.winning_line(
                    game.removed_mask, game.drawn, waste_rank(game)) or []).status is Status.WON
                assert win_gain is not None
                # A hint keeps the win in reach, even where the best score gives it up.
                move = hint(game, analysis=analysis).action
                assert move is not None
                assert reference(replay(game, [move]))[0] or replay(game, [move]).is_over
            mid_run += game.run > 0
            checked += 1
    assert checked >= 20 and mid_run >= 5


def test_a_win_is_not_always_the_best_traditional_score() -> None:
    """Stopping may beat drawing on to a win: draws cost 5 each (docs/variants.md section 8).
    Positions late on the best lines of a few deals, judged by the plain search."""
    found = 0
    for number in range(6):
        code = GameCode(Rules.EASY, number, Variants.parse("T"))
        analysis = analyse(code)
        game = Game(code)
        for action in analysis.best_line(0, 0, analysis.waste_after[0]):
            game.play(action)
            if game.cards_left() > 9 or game.is_over:
                continue
            won, gain, win_gain = reference(game)
            if won and win_gain is not None and win_gain < gain:
                verdict = analysis.of(game)
                assert verdict.winnable and verdict.best_score == game.score + gain
                line = analysis.best_line(game.removed_mask, game.drawn, waste_rank(game), run=game.run)
                assert replay(game, line).status is not Status.WON
                found += 1
    assert found >= 1


@pytest.mark.parametrize("letters", ["T", "WJT", "OWJT"])
@pytest.mark.parametrize("rules", [Rules.EASY, Rules.CLASSIC])
def test_the_solvers_lines_replay_in_the_engine(letters: str, rules: Rules) -> None:
    won = 0
    for number in range(5):
        code = GameCode(rules, number, Variants.parse(letters))
        start = analyse(code).start()
        plain = solve(Game(code))
        assert plain.winnable == start.winnable
        if plain.winnable:
            assert replay(Game(code), plain.line).status is Status.WON, code
            won += 1
        best = solve(Game(code), best=True)
        assert best.winnable == start.winnable and best.score == start.best_score
        assert replay(Game(code), best.line).score == best.score, code
        if plain.winnable:
            # Hints all the way: each a legal action, and the game is won at the end.
            assert played_by_hints(code).status is Status.WON
    assert won >= 2


def test_the_review_of_a_traditional_game() -> None:
    code = GameCode(Rules.EASY, 3, Variants.parse("T"))
    rng = random.Random(3)
    game = Game(code)
    while game.status is Status.PLAYING:
        choices = game.playable_positions() * 2 + ([-1] if game.can_draw() else [])
        move = rng.choice(choices)
        game.draw() if move == -1 else game.remove(move)
    line = Line.of(game)
    review = Review.build(code, line, analysis_for(code))
    start = analyse(code).start()
    assert review.par == (start.best_score if start.winnable else None)
    bests = [step.best_score for step in review.steps]
    assert all(b is not None for b in bests)
    assert all(a >= b for a, b in itertools.pairwise(bests))  # type: ignore[operator]
    for step in review.steps[-8:]:  # the late steps, against the plain search
        if not step.game.is_over:
            won, gain, _ = reference(step.game)
            assert (step.winnable, step.best_score) == (won, step.game.score + gain)
    assert review.final.best_score == game.score  # won or blocked: nothing more to gain
    if start.winnable and not review.won:
        assert review.point_of_no_return is not None
    assert deal_difficulty(code) == review.difficulty


def test_a_position_needs_its_run_and_score_under_traditional_scoring() -> None:
    analysis = analyse(GameCode.parse("TP1-ET-AAAAAAB"))
    with pytest.raises(ValueError, match="score so far"):
        analysis.verdict(0, 0, analysis.waste_after[0])
    with pytest.raises(ValueError, match="run and the score"):
        analysis.best_score(0, 0, analysis.waste_after[0])
    with pytest.raises(ValueError, match="card just drawn"):
        analysis.verdict(0, 0, 5, run=0, score=0)
    with pytest.raises(ValueError, match="cannot follow"):
        analysis.verdict(0, 0, analysis.waste_after[0], run=1, score=0)
