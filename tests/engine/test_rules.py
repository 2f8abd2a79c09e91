"""The rules' one home (app/engine/rules.py): adjacency, the tableau by rank, both scorings."""

from __future__ import annotations

from app.engine import DRAW, Game, GameCode, Rules
from app.engine.rules import (
    BEST_SCORE,
    adjacent_ranks,
    peak_bonus,
    playable_by_rank,
    ranks_adjacent,
    ranks_cycle,
    traditional_score,
)


def test_adjacency_is_symmetric_and_joins_king_and_ace_only_in_easy_rules() -> None:
    for rules in Rules:
        for a in range(1, 14):
            for b in range(1, 14):
                assert ranks_adjacent(a, b, rules) is ranks_adjacent(b, a, rules)
                assert ranks_adjacent(a, b, rules) is (abs(a - b) == 1 or (ranks_cycle(rules) and {a, b} == {1, 13}))
    assert adjacent_ranks(13, Rules.EASY) == (12, 1) and adjacent_ranks(13, Rules.CLASSIC) == (12,)
    assert ranks_cycle(Rules.EASY) and not ranks_cycle(Rules.CLASSIC)


def test_the_tableau_by_rank_is_the_adjacency_of_each_card() -> None:
    ranks = [1, 13, 0, 7]  # an ace, a king, a joker, a seven
    for rules in Rules:
        table = playable_by_rank(ranks, rules)
        assert table[0] == 0b1111  # a wild waste takes every card
        for waste in range(1, 14):
            assert table[waste] == sum(1 << p for p, r in enumerate(ranks) if ranks_adjacent(r, waste, rules))
    assert playable_by_rank(ranks, Rules.EASY)[12] == 0b0110 and playable_by_rank(ranks, Rules.CLASSIC)[12] == 0b0110
    assert playable_by_rank(ranks, Rules.EASY)[1] == 0b0110 and playable_by_rank(ranks, Rules.CLASSIC)[1] == 0b0100


def test_the_scorings_pay_what_the_spec_says() -> None:
    assert BEST_SCORE == 772  # 500 - 28 removals + 3 x 100
    assert [peak_bonus(n, traditional=False) for n in range(4)] == [0, 100, 200, 300]
    assert [peak_bonus(n, traditional=True) for n in range(4)] == [0, 15, 30, 60]
    # removal, removal, draw, removal: 1 + 2 - 5 + 1
    assert traditional_score([False, False, True, False], 0) == -1
    assert traditional_score([False] * 4, 1) == 1 + 2 + 3 + 4 + 15


def test_a_game_scores_by_the_rules() -> None:
    game = Game(GameCode.parse("TP1-ET-AAAAAAB"))
    game.replay([DRAW, DRAW])
    assert game.score == -10 and game.peak_bonus == 0
    plain = Game(GameCode.parse("TP1-E-AAAAAAB"))
    plain.replay([DRAW, DRAW])
    assert plain.score == 498
