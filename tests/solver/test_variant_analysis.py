"""The analysis in the variants (docs/variants.md section 8) against a plain search written
from the rules: open peaks, the empty waste and the joker, alone and together.

The oracle here knows nothing of the analysis's tables: it tries every reachable exact
position (removed cards, cards drawn, waste rank, 0 for a wild waste) of the deal's cards.
"""

from __future__ import annotations

import random
import sys

import pytest

from app.engine import Game, GameCode, Rules, Status, Variants
from app.engine.deal import Deal
from app.engine.layout import PEAK_MASKS
from app.engine.search.analysis import analyse
from app.engine.search.solver import solve
from tests.support.deals import played_by_hints
from tests.support.reference import plain_search
from tests.support.three_peaks import COVERED_BY

FULL = (1 << 28) - 1
COVER = [sum(1 << q for q in COVERED_BY[p]) for p in range(28)]


def fits(card: int, waste: int, rules: Rules) -> bool:
    """docs/variants.md: the joker (rank 0) fits every waste; a wild waste (0) takes every card."""
    if card == 0 or waste == 0 or abs(card - waste) == 1:
        return True
    return rules is Rules.EASY and {card, waste} == {1, 13}


def score(removed: int, drawn: int) -> int:
    return 500 - removed.bit_count() - drawn + 100 * sum(removed & m == m for m in PEAK_MASKS)


def plain(deal: Deal, rules: Rules, removed: int, drawn: int, waste: int) -> tuple[bool, int]:
    """Whether the position can be won, and the best score reachable (SPEC section 6)."""
    ranks = [card.rank for card in deal.tableau]
    stock = [card.rank for card in deal.stock]
    seen: dict[tuple[int, int, int], tuple[bool, int]] = {}
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 2000))

    def search(removed: int, drawn: int, waste: int) -> tuple[bool, int]:
        if removed == FULL:
            return True, 772 - drawn
        key = (removed, drawn, waste)
        if key in seen:
            return seen[key]
        won, best = False, score(removed, drawn)
        for p in range(28):
            if (
                not removed >> p & 1
                and removed & COVER[p] == COVER[p]
                and fits(ranks[p], waste, rules)
            ):
                w, b = search(removed | 1 << p, drawn, ranks[p])
                won, best = won or w, max(best, b)
        if drawn < len(stock):
            w, b = search(removed, drawn + 1, stock[drawn])
            won, best = won or w, max(best, b)
        seen[key] = (won, best)
        return won, best

    return search(removed, drawn, waste)


def waste_rank(game: Game) -> int:
    return 0 if game.waste is None else game.waste.rank


def random_position(code: GameCode, rng: random.Random, actions: int) -> Game:
    game = Game(code)
    for _ in range(actions):
        choices = game.playable_positions() + ([-1] if game.can_draw() else [])
        if game.status is not Status.PLAYING or not choices:
            break
        move = rng.choice(choices)
        game.draw() if move == -1 else game.remove(move)
    return game


@pytest.mark.parametrize("letters", ["W", "J", "WJ", "OWJ"])
@pytest.mark.parametrize("rules", [Rules.EASY, Rules.CLASSIC])
def test_late_positions_agree_with_the_plain_search(letters: str, rules: Rules) -> None:
    rng = random.Random(f"{letters}{rules}")
    checked = 0
    for number in range(8):
        code = GameCode(rules, number, Variants.parse(letters))
        analysis = analyse(code)
        for _ in range(6):
            game = random_position(code, rng, rng.randrange(14, 40))
            if game.is_over:
                continue
            position = (game.removed_mask, game.drawn, waste_rank(game))
            verdict = analysis.of(game)
            assert (verdict.winnable, verdict.best_score) == plain(game.deal, rules, *position), (
                code, game.line,
            )  # fmt: skip
            checked += 1
    assert checked >= 30


@pytest.mark.parametrize("letters", ["W", "J", "WJ"])
def test_whole_deals_agree_with_the_plain_search(letters: str) -> None:
    outcomes = set()
    for rules in Rules:
        for number in range(4):
            code = GameCode(rules, number, Variants.parse(letters))
            analysis = analyse(code, scores=False)
            expected = plain_search(code.deal(), rules)
            assert analysis.winnable(0, 0, analysis.waste_after[0]) == expected, code
            outcomes.add(expected)
    assert True in outcomes


def test_open_peaks_are_judged_as_the_standard_deal() -> None:
    for number in range(5):
        for rules in Rules:
            opened = analyse(GameCode(rules, number, Variants(open_peaks=True)))
            standard = analyse(GameCode(rules, number))
            assert opened.start() == standard.start()
            assert (opened.win_limit == standard.win_limit).all()


@pytest.mark.parametrize("letters", ["W", "J", "WJ", "OJ"])
def test_winning_lines_and_hints_replay_in_the_engine(letters: str) -> None:
    won = 0
    for number in range(15):
        code = GameCode(Rules.EASY, number, Variants.parse(letters))
        solution = solve(Game(code))
        if not solution.winnable:
            continue
        game = Game(code)
        for action in solution.line:
            game.play(action)
        assert game.status is Status.WON, code
        won += 1
        # Hints all the way: each one is a legal action and the game is still won at the end.
        assert played_by_hints(code).status is Status.WON
    assert won >= 10
