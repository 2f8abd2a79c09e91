"""The variants (docs/variants.md): codes, the joker deck, and each rule with its worked example.

The expected cards, fits and scores are worked out here from docs/variants.md and
docs/deals.md (the deal vectors, the rule texts), not taken from the engine.
"""

from __future__ import annotations

import itertools
import random

import pytest

from app.engine import (
    JOKER,
    STANDARD,
    Card,
    CodeError,
    Game,
    GameCode,
    RefusedAction,
    Rules,
    Status,
    VariantError,
    Variants,
    ranks_adjacent,
    shuffle_tp1,
)
from app.engine.search.analysis import analyse
from app.engine.search.hints import hint
from app.engine.search.solver import solve_code
from app.engine.state import game_from_state, state_of
from app.engine.words import describe_board

DEAL_1 = "7D 9C 4D 8H 8D 5S JD 6D 9S JC 5D KD 3C 2D JH 5H 7H 4H 2C AD 6S KC KH 10H 10S JS 10D 8S"
DEAL_1_WASTE = "QC"
DEAL_1_STOCK = "4S 6C 7C AS 5C AH KS 6H QS QH QD 9D 3D 3S AC 4C 2H 8C 10C 3H 2S 9H 7S"
JOKER_DEAL_0 = (
    "8S 8H 7D KH KS 2S JH 9H QD 4D 3H KD 3C 10H QC 2C 9D AS 3S 10C 7H AH 8D 4H 4C 7C 6C 9S 9C 7S "
    "QS QH 5H 10D 2H 2D JK AD 5D 6H 10S 5C 8C 6D JS JC 3D 4S JD 6S 5S AC KC"
)
JOKER_DEAL_1 = (
    "QC 3D KS 8D KC 5D JH JK 2H 2D 4S 5H 5C JC 9C 9S 10C 2S 6D 3S 6H QD 8H AS 7C 10S 7S 8C JS AH "
    "4C 3H 2C 6S KH 4H KD AD 9H 5S JD 4D 9D 3C QS 8S QH 7H 6C 10H AC 7D 10D"
)
ALL_LETTERS = "OWJT"


def texts(cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(card.text() for card in cards)


# -- codes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("TP1-EOJ-AAAAAAB", "TP1-EOJ-AAAAAAB"),
        ("tp1-ejo-aaaaaab", "TP1-EOJ-AAAAAAB"),
        (" TP1-ctjwo-AAAAAAB ", "TP1-COWJT-AAAAAAB"),
        ("TP1-NW-AAAAAAB", "TP1-EW-AAAAAAB"),  # the legacy rules letter, with a variant
        ("https://example.org/g/tp1-et-aaaaaab", "TP1-ET-AAAAAAB"),
        ("TP1-E-AAAAAAB", "TP1-E-AAAAAAB"),  # no variant: exactly as before
    ],
)
def test_codes_read_leniently_and_write_canonically(typed: str, canonical: str) -> None:
    code = GameCode.parse(typed)
    assert code.text() == canonical
    assert GameCode.parse(code.text()) == code  # round trip


def test_every_combination_round_trips() -> None:
    for size in range(5):
        for chosen in itertools.combinations(ALL_LETTERS, size):
            for rules in "EC":
                letters = "".join(chosen)
                code = GameCode.parse(f"TP1-{rules}{letters[::-1].lower()}-ABCDEFG")
                assert code.text() == f"TP1-{rules}{letters}-ABCDEFG"
                assert code.variants.letters == letters
                assert Variants.from_words(code.variants.words) == code.variants
                assert code.number == GameCode.parse("TP1-E-ABCDEFG").number


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("TP1-EX-AAAAAAB", "'X' is not a variant"),
        ("TP1-EOO-AAAAAAB", "the variant 'O' is given twice"),
        ("TP1-EOJo-AAAAAAB", "the variant 'O' is given twice"),
        ("TP1-EE-AAAAAAB", "'E' is not a variant"),
    ],
)
def test_bad_variant_letters_are_refused_clearly(typed: str, says: str) -> None:
    with pytest.raises(CodeError) as caught:
        GameCode.parse(typed)
    message = str(caught.value)
    assert says in message and repr(typed) in message and "TP1-E-AAAAAAB" in message


def test_variant_words_for_the_api() -> None:
    assert Variants.from_words(["joker", "open_peaks"]).letters == "OJ"
    assert Variants.from_words(["Wild", "runs", "no-waste"]).letters == "WJT"
    assert Variants.from_words([]) == STANDARD and not STANDARD
    with pytest.raises(VariantError, match="'jokers' is not a variant"):
        Variants.from_words(["jokers"])
    with pytest.raises(VariantError, match="given twice"):
        Variants.from_words(["joker", "J"])


# -- what is dealt ---------------------------------------------------------------------------


def reference_joker_shuffle(number: int) -> list[str]:
    """docs/deals.md sections 4 and 6a, written out again: 53 cards, i from 52 down to 1."""
    deck = [r + s for s in "CDHS" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]] + ["JK"]
    state, mask = number, (1 << 64) - 1
    for i in range(52, 0, -1):
        n = i + 1
        limit = 2**64 - 2**64 % n
        while True:
            state = (state + 0x9E3779B97F4A7C15) & mask
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            x = z ^ (z >> 31)
            if x < limit:
                break
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_joker_deck_vectors_from_the_document() -> None:
    assert texts(shuffle_tp1(0, joker=True)) == JOKER_DEAL_0
    assert texts(shuffle_tp1(1, joker=True)) == JOKER_DEAL_1
    for number in (0, 1, 2, 26, 12345, 8_031_810_175):
        assert texts(shuffle_tp1(number, joker=True)).split() == reference_joker_shuffle(number)


def test_joker_deals_lay_out_53_cards() -> None:
    deal = GameCode.parse("TP1-EJ-AAAAAAA").deal()
    cards = JOKER_DEAL_0.split()
    assert texts(deal.tableau) == " ".join(cards[:28])
    assert deal.waste is not None and deal.waste.text() == cards[28] == "9C"
    assert texts(deal.stock) == " ".join(cards[29:]) and deal.stock_size == 24
    assert deal.stock[7] is JOKER  # "the joker is the 8th stock card"
    assert GameCode.parse("TP1-EJ-AAAAAAB").deal().tableau[7] is JOKER  # "position 7, in row 2"
    for number in range(200):  # every joker deal holds each of the 53 cards once
        dealt = GameCode.parse(f"TP1-CJ-{GameCode(Rules.EASY, number).letters}").deal()
        all_cards = [*dealt.tableau, *([dealt.waste] if dealt.waste else []), *dealt.stock]
        assert len(set(all_cards)) == 53 and JOKER in all_cards


def test_standard_deals_do_not_change() -> None:
    deal = GameCode.parse("TP1-E-AAAAAAB").deal()
    assert (texts(deal.tableau), deal.waste and deal.waste.text(), texts(deal.stock)) == (
        DEAL_1, DEAL_1_WASTE, DEAL_1_STOCK,
    )  # fmt: skip
    assert texts(shuffle_tp1(1)) == " ".join([*DEAL_1.split(), DEAL_1_WASTE, *DEAL_1_STOCK.split()])
    for letters in ("O", "T", "OT"):  # open peaks and traditional scoring deal the standard cards
        assert GameCode.parse(f"TP1-E{letters}-AAAAAAB").deal() == deal


def test_an_empty_waste_leaves_the_waste_card_on_the_stock() -> None:
    deal = GameCode.parse("TP1-EW-AAAAAAB").deal()
    assert texts(deal.tableau) == DEAL_1 and deal.waste is None
    assert texts(deal.stock) == f"{DEAL_1_WASTE} {DEAL_1_STOCK}" and deal.stock_size == 24
    both = GameCode.parse("TP1-EWJ-AAAAAAB").deal()
    assert both.waste is None and texts(both.stock) == " ".join(JOKER_DEAL_1.split()[28:])
    assert both.stock_size == 25


# -- open peaks ------------------------------------------------------------------------------


def test_open_peaks_show_every_card_and_change_nothing_else() -> None:
    open_game, standard = Game.from_code("TP1-EO-AAAAAAB"), Game.from_code("TP1-E-AAAAAAB")
    assert all(open_game.is_face_up(p) for p in range(28))
    assert [standard.is_face_up(p) for p in range(28)] == [p >= 18 for p in range(28)]
    assert "hidden card" not in describe_board(open_game) and "hidden card" in describe_board(standard)
    assert "Peak tops: 7 of diamonds, 9 of clubs, 4 of diamonds" in describe_board(open_game)
    rng = random.Random(3)
    for _ in range(40):  # the same play is legal in both, with the same score
        assert open_game.playable_positions() == standard.playable_positions()
        assert open_game.score == standard.score and open_game.status == standard.status
        choices = standard.playable_positions() + ([-1] if standard.can_draw() else [])
        if not choices:
            break
        move = rng.choice(choices)
        for game in (open_game, standard):
            game.draw() if move == -1 else game.remove(move)
    assert not any(open_game.is_face_up(p) for p in range(28) if open_game.is_removed(p))


# -- empty waste -----------------------------------------------------------------------------


def test_empty_waste_worked_example() -> None:
    game = Game.from_code("TP1-EW-AAAAAAB")
    assert game.waste is None and game.stock_count == 24
    assert game.playable_positions() == list(range(18, 28))  # every exposed card
    assert "waste: empty." in describe_board(game)
    game.remove(19)  # AD
    assert game.waste == Card.from_text("AD") and game.score == 499
    assert game.playable_positions() == [18, 21, 22]  # 2C, and under easy rules KC and KH
    assert game.undo().position == 19
    assert game.waste is None and game.stock_count == 24 and game.score == 500


def test_empty_waste_first_draw_just_puts_the_card_there() -> None:
    game = Game.from_code("TP1-CW-AAAAAAB")
    game.draw()
    assert game.waste == Card.from_text("QC") and game.stock_count == 23 and game.score == 499
    # classic rules: on QC only J and K fit; the bottom row has KC, KH, JS
    assert game.playable_positions() == [21, 22, 25]
    game.undo()
    assert game.waste is None and game.stock_count == 24


# -- joker -----------------------------------------------------------------------------------


def test_the_joker_fits_every_rank_both_ways() -> None:
    for rank in range(1, 14):
        for rules in Rules:
            assert ranks_adjacent(0, rank, rules) and ranks_adjacent(rank, 0, rules)
    assert JOKER.text() == "JK" and JOKER.words() == "joker" and Card.from_text("jk") is JOKER
    assert JOKER.index == 52 and Card.from_index(52) is JOKER and not JOKER.is_red


def test_joker_in_the_peaks_worked_example() -> None:
    game = Game.from_code("TP1-EJ-AAAAAAD")
    assert game.deal.tableau[22] is JOKER and game.waste == Card.from_text("6C")
    assert game.playable_positions() == [22, 23, 26]  # the joker, 5H, 5C
    game.remove(22)
    assert game.waste is JOKER
    assert game.playable_positions() == [18, 19, 20, 21, 23, 24, 25, 26, 27]
    assert describe_board(game).startswith("Stock: 24 cards; waste: joker.")


def test_joker_on_the_waste_takes_any_exposed_card() -> None:
    game = Game.from_code("TP1-EJ-AAAAAAF")
    assert game.waste is JOKER and game.playable_positions() == list(range(18, 28))
    drawn = Game.from_code("TP1-CJ-AAAAAAA")  # the joker is the 8th stock card
    for _ in range(8):
        drawn.draw()
    assert drawn.waste is JOKER
    exposed = [p for p in range(28) if drawn.is_exposed(p)]
    assert drawn.playable_positions() == exposed


# -- traditional scoring ---------------------------------------------------------------------


def test_traditional_scoring_worked_example() -> None:
    game = Game.from_code("TP1-ET-AAAAAAB")
    assert game.score == 0
    expected = [(21, 1), (19, 3), (18, 6), (None, 1), (None, -4), (None, -9), (20, -8), (10, -6)]
    for position, score in expected:
        game.draw() if position is None else game.remove(position)
        assert game.score == score, (position, score)
    game.undo()
    assert game.score == -8
    game.remove(10)
    assert game.score == -6  # a removal scores 2 again: the run is restored exactly


def run_score(line: list[int | None], peaks_in_order: int) -> int:
    """docs/variants.md section 5, counted action by action."""
    score = run = 0
    for action in line:
        if action is None:
            run, score = 0, score - 5
        else:
            run += 1
            score += run
    return score + [0, 15, 30, 60][peaks_in_order]


def test_traditional_scoring_over_random_play_with_undo() -> None:
    rng = random.Random(17)
    for number in range(30):
        game = Game(GameCode(Rules.EASY, number, Variants(traditional=True)))
        line: list[int | None] = []
        history = [game.score]
        for _ in range(120):
            choices = game.playable_positions() + ([-1] if game.can_draw() else [])
            if game.status is not Status.PLAYING or not choices or (line and rng.random() < 0.15):
                if not line:
                    break
                game.undo()
                line.pop()
                history.pop()
                assert game.score == history[-1]  # undo restores the score exactly
                continue
            move = rng.choice(choices)
            game.draw() if move == -1 else game.remove(move)
            line.append(None if move == -1 else move)
            history.append(game.score)
            assert game.score == run_score(line, sum(game.peaks_cleared))


def test_all_three_peaks_pay_60_and_the_best_line_is_one_long_run() -> None:
    # A won line's score under T: its runs' triangles, -5 a draw, +60.
    assert run_score([1] * 28, 3) == 28 * 29 // 2 + 60


# -- combinations and state ------------------------------------------------------------------


def test_all_four_together() -> None:
    game = Game.from_code("TP1-COWJT-AAAAAAB")
    assert game.code.text() == "TP1-COWJT-AAAAAAB" and game.rules is Rules.CLASSIC
    assert game.waste is None and game.stock_count == 25 and game.score == 0
    assert all(game.is_face_up(p) for p in range(28))
    assert game.deal.tableau[7] is JOKER  # the joker deck's deal 1
    first = game.playable_positions()[0]
    game.remove(first)
    assert game.score == 1


@pytest.mark.parametrize("letters", ["O", "W", "J", "T", "OWJT", "WJ"])
def test_random_play_keeps_every_variant_consistent(letters: str) -> None:
    rng = random.Random(letters)
    for number in range(20):
        game = Game(GameCode(Rules.EASY if number % 2 else Rules.CLASSIC, number, Variants.parse(letters)))
        size = game.stock_count
        while game.status is Status.PLAYING:
            choices = game.playable_positions() + ([-1] if game.can_draw() else [])
            move = rng.choice(choices)
            game.draw() if move == -1 else game.remove(move)
            assert game.stock_count + game.drawn == size
            for p in game.playable_positions():  # a playable card fits the waste (or the waste is empty)
                card = game.deal.tableau[p]
                assert game.is_exposed(p)
                assert game.waste is None or ranks_adjacent(card.rank, game.waste.rank, game.rules)
        again = game_from_state(state_of(game))  # a stored variant game comes back the same
        assert again == game and again.code.variants == Variants.parse(letters)
        if game.status is Status.BLOCKED:
            with pytest.raises(RefusedAction):
                game.draw()


# -- the solver judges traditional scoring ---------------------------------------------------


def test_the_solver_judges_traditional_scoring() -> None:
    for text in ("TP1-ET-AAAAAAB", "TP1-COWJT-AAAAAAB"):
        solution = solve_code(text)
        start = analyse(GameCode.parse(text)).start()
        assert solution.winnable == start.winnable
        game = Game.from_code(text)
        assert hint(game).undos_to_winnable == (0 if start.winnable else None)
