"""The score (SPEC section 6) and its worked numbers."""

from __future__ import annotations

import pytest

from app.engine import DRAW, Game, Rules, Status
from tests.support.games import CraftedCode, craft_deal, find_win, new_game, winning_line
from tests.support.three_peaks import PEAKS

DEAL_1 = "TP1-E-AAAAAAB"

# Every card in a valid order: the bottom row, then row 3, row 2, the peak tops.
ROW_BY_ROW = [*range(18, 28), *range(9, 18), *range(3, 9), 0, 1, 2]

# SPEC's example: won in 50 moves (22 draws first, then 28 removals) with the
# left, middle and right peaks emptied on moves 37, 42 and 50.
SPEC_EXAMPLE = [DRAW] * 22 + [
    21, 22, 23, 24, 25, 12,                 # moves 23-28
    18, 19, 20, 9, 10, 11, 3, 4, 0,         # moves 29-37: the left peak is empty
    13, 14, 5, 6, 1,                        # moves 38-42: the middle peak is empty
    26, 27, 15, 16, 17, 7, 8, 2,            # moves 43-50: the right peak is empty
]  # fmt: skip


def play_checking_score(game: Game, line: list[int] | tuple[int, ...]) -> list[int]:
    """Play ``line`` checking every step's score; returns the moves on which a peak emptied."""
    emptied_on = []
    for action in line:
        score, cleared = game.score, sum(game.peaks_cleared)
        game.replay([action])
        gained = sum(game.peaks_cleared) - cleared
        assert gained in (0, 1) and (gained == 0 or action != DRAW)
        assert game.score == score - 1 + 100 * gained
        assert game.score == 500 - game.moves + 100 * sum(game.peaks_cleared)
        if gained:
            emptied_on.append(game.moves)
    return emptied_on


def test_start_score() -> None:
    assert Game.from_code(DEAL_1).score == 500
    assert Game.from_code("TP1-C-ZZZZZZZ").score == 500


def test_one_point_per_removal_and_per_draw() -> None:
    game = Game.from_code(DEAL_1)
    game.remove(21)
    assert game.score == 499
    game.draw()
    assert game.score == 498


# Wins without a single draw are rare: an exhaustive search of deals 0 to
# 167,772,160 (easy rules) found 11, about one deal in 15 million; the first is
# deal 24,049,457.
NO_DRAW_WIN = "TP1-E-ACAQIDD"


def test_772_for_a_win_without_a_draw() -> None:
    line = winning_line(NO_DRAW_WIN, 0)
    assert len(line) == 28 and DRAW not in line
    game = Game.from_code(NO_DRAW_WIN)
    play_checking_score(game, line)
    assert game.status is Status.WON
    assert game.moves == 28 and game.stock_count == 23
    assert game.score == 772 == 500 - 28 + 300


def test_the_no_draw_win_needs_king_and_ace_joined() -> None:
    assert find_win(NO_DRAW_WIN.replace("-E-", "-C-"), draws=0) is None


@pytest.mark.parametrize("rules", list(Rules))
def test_772_on_a_hand_made_deal(rules: Rules) -> None:
    game = Game(CraftedCode(rules, 0, craft_deal(ROW_BY_ROW, rules)))
    emptied_on = play_checking_score(game, ROW_BY_ROW)
    assert game.status is Status.WON
    assert game.moves == 28 and game.stock_count == 23
    assert emptied_on == [26, 27, 28]
    assert game.score == 772


def test_749_for_a_win_with_all_23_draws() -> None:
    line = winning_line(DEAL_1, 23)
    assert len(line) == 51 and line.count(DRAW) == 23
    game = Game.from_code(DEAL_1)
    play_checking_score(game, line)
    assert game.status is Status.WON and game.stock_count == 0
    assert game.score == 749 == 500 - 51 + 300


@pytest.mark.parametrize("rules", list(Rules))
def test_749_on_a_hand_made_deal(rules: Rules) -> None:
    line = [DRAW] * 23 + ROW_BY_ROW
    game = Game(CraftedCode(rules, 0, craft_deal(line, rules)))
    play_checking_score(game, line)
    assert game.status is Status.WON and game.score == 749


@pytest.mark.parametrize("rules", list(Rules))
def test_spec_example_won_in_50_moves_scores_750(rules: Rules) -> None:
    game = Game(CraftedCode(rules, 0, craft_deal(SPEC_EXAMPLE, rules)))
    emptied_on = play_checking_score(game, SPEC_EXAMPLE)
    assert emptied_on == [37, 42, 50]
    assert game.peaks_cleared == (True, True, True)
    assert game.status is Status.WON and game.moves == 50
    assert game.score == 750


@pytest.mark.parametrize("code", ["TP1-E-AAAAAAA", DEAL_1, "TP1-E-AAAAAAC", "TP1-E-AAAAAAD", "TP1-C-AAAAAAH"])
def test_wins_without_undo_score_500_minus_moves_plus_300(code: str) -> None:
    line = winning_line(code)
    game = Game.from_code(code)
    emptied_on = play_checking_score(game, line)
    assert len(emptied_on) == 3 and emptied_on[-1] == len(line)
    assert game.status is Status.WON
    assert game.score == 500 - game.moves + 300
    assert 749 <= game.score <= 772


def test_real_deal_won_in_50_moves_scores_750() -> None:
    line = winning_line(DEAL_1)
    assert len(line) == 50
    game = new_game(DEAL_1, line)
    assert game.status is Status.WON and game.score == 750


def test_undo_of_a_peak_clearing_removal_restores_the_score() -> None:
    line = winning_line(DEAL_1)
    game = Game.from_code(DEAL_1)
    checked = 0
    for action in line[:-1]:
        before_score, before_peaks = game.score, game.peaks_cleared
        game.replay([action])
        if game.peaks_cleared != before_peaks:
            assert game.score == before_score + 99
            undone = game.copy()
            undone.undo()
            assert undone.score == before_score
            assert undone.peaks_cleared == before_peaks
            assert undone.moves == game.moves
            checked += 1
    assert checked == 2  # the third peak empties with the winning removal: no undo after


def test_peak_bonus_is_for_the_peak_cards_only() -> None:
    game = Game(CraftedCode(Rules.EASY, 0, craft_deal(SPEC_EXAMPLE)))
    game.replay(SPEC_EXAMPLE[: 22 + 14])  # everything of the left peak but position 0
    assert game.peaks_cleared == (False, False, False)
    assert PEAKS[0] - {p for p in range(28) if game.is_removed(p)} == {0}
    game.replay([0])
    assert game.peaks_cleared == (True, False, False)
    assert game.score == 500 - 37 + 100


def test_blocked_game_gets_no_penalty_or_bonus() -> None:
    game = new_game("TP1-E-AAAAAAA", [DRAW] * 23)
    assert game.status is Status.BLOCKED
    assert game.score == 500 - 23


def test_undo_gives_back_the_point_but_moves_keep_counting() -> None:
    game = Game.from_code(DEAL_1)
    game.draw()
    game.undo()
    assert game.score == 500 and game.moves == 1
    game.remove(21)
    game.undo()
    game.remove(22)
    assert game.score == 499 and game.moves == 3
