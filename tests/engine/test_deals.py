"""Deals (SPEC section 3): the TP1 shuffle, pinned with test vectors.

The vectors below were generated once from the implementation and are a pin:
if any of them changes, TP1 codes no longer deal what they dealt, which SPEC
forbids. A new shuffle needs a new version prefix, not new vectors here.
"""

from __future__ import annotations

import pytest

from app.engine import DEAL_COUNT, DECK, Card, CodeError, Deal, GameCode, shuffle_tp1

VECTORS = {
    "TP1-E-AAAAAAA": (
        "8S JH 9C 2S 2D QD 6S 10C 3D AC JC 7C 9H 8C QS KH 5H 2C 3H 5C AH 6C 4S 10D 5D 8H 8D AD",
        "QH",
        "10S QC JD 3S 4D 2H 9D 3C KD AS 7S 9S 7D JS 6H KS 4C 7H 5S 6D 4H KC 10H",
    ),
    "TP1-E-AAAAAAB": (
        "7D 9C 4D 8H 8D 5S JD 6D 9S JC 5D KD 3C 2D JH 5H 7H 4H 2C AD 6S KC KH 10H 10S JS 10D 8S",
        "QC",
        "4S 6C 7C AS 5C AH KS 6H QS QH QD 9D 3D 3S AC 4C 2H 8C 10C 3H 2S 9H 7S",
    ),
    "TP1-E-AAAAABA": (
        "9C 10H JC 5C AD KD JD 10S 2S 8H 8D 9S 5S JH 2D AC QH AS KS QD 4H 3D 8S 5D 3C 6S QC 8C",
        "7D",
        "AH 6C 7C 2H 3S 3H 4C 9D 6D 4D JS 5H 10D 9H 7S 4S 2C 7H KH 6H KC 10C QS",
    ),
    "TP1-C-TRIPEAK": (
        "KS 10C KD 3H QD KH QH AD 5C 10D 9C 9S AC 7C 7H 2D 6S 8H 9H JD 5S 6D 8D QC 6C 7S 8S 3S",
        "2H",
        "3D 4H 2C AH AS KC 4D 5H 2S JH 9D 7D 5D JS 3C 4C 10S 4S QS 10H JC 6H 8C",
    ),
    "TP1-E-MMMMMMM": (
        "8D QC 3S 3H 2D 5H 2S 8H 8C 7D 2H 5D 2C 5C 3D 10S 3C KD 4C JS 6S AC 9C JH 4S 10C AH 7S",
        "4D",
        "10H QS JC 6D KS AS QH 7H 9H 5S KH 8S 9D 6H KC 10D AD 6C 9S JD 7C 4H QD",
    ),
    "TP1-C-ZZZZZZZ": (
        "6S 5S JH 4D 4S 2S AC 7D 9C 10C AH KS 3C 6H 8H 10H JS 6D 2H QC 2D 8S 8D 8C 9D 6C JC 9S",
        "KH",
        "4C 5H 9H 3S KD 2C KC QH 7S 5C 4H JD 3D AS QS AD 7C 10S 10D 7H 5D QD 3H",
    ),
}


def deal_texts(deal: Deal) -> tuple[str, str, str]:
    return (
        " ".join(c.text() for c in deal.tableau),
        deal.waste.text(),
        " ".join(c.text() for c in deal.stock),
    )


@pytest.mark.parametrize("code", sorted(VECTORS))
def test_pinned_deals(code: str) -> None:
    tableau, waste, stock = VECTORS[code]
    assert len(tableau.split()) == 28 and len(stock.split()) == 23
    deal = GameCode.parse(code).deal()
    assert deal_texts(deal) == (tableau, waste, stock)


def test_rules_do_not_change_the_deal() -> None:
    easy = GameCode.parse("TP1-E-TRIPEAK").deal()
    assert deal_texts(easy) == VECTORS["TP1-C-TRIPEAK"]
    assert GameCode.parse("TP1-N-AAAAAAB").deal() == GameCode.parse("TP1-E-AAAAAAB").deal()


MASK64 = (1 << 64) - 1


def reference_shuffle(number: int) -> list[Card]:
    """TP1 as docs/deals.md defines it, written out again from the document."""
    deck = [
        Card.from_text(r + s)
        for s in "CDHS"
        for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    ]
    state = number

    def next_word() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    for i in range(51, 0, -1):
        n = i + 1
        limit = 2**64 - (2**64 % n)
        x = next_word()
        while x >= limit:
            x = next_word()
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize("number", [0, 1, 2, 26, 1000, 987_654_321, DEAL_COUNT - 1])
def test_shuffle_matches_the_documented_algorithm(number: int) -> None:
    cards = reference_shuffle(number)
    assert list(shuffle_tp1(number)) == cards
    deal = Deal.from_number(number)
    assert list(deal.tableau) == cards[:28]
    assert deal.waste == cards[28]
    assert list(deal.stock) == cards[29:]


def test_documented_worked_example() -> None:
    """The first random words and cards of deal 1, as docs/deals.md shows them."""
    state = 1
    words = []
    for _ in range(3):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        words.append(z ^ (z >> 31))
    assert words == [0x910A2DEC89025CC1, 0xBEEB8DA1658EEC67, 0xF893A2EEFB32555E]
    assert [w % n for w, n in zip(words, (52, 51, 50), strict=True)] == [45, 34, 40]
    deal = Deal.from_number(1)
    assert [c.text() for c in deal.tableau[:3]] == ["7D", "9C", "4D"]
    assert deal.waste.text() == "QC"
    assert [c.text() for c in deal.stock[-3:]] == ["2S", "9H", "7S"]


@pytest.mark.parametrize("number", [*range(0, 2000, 7), *range(DEAL_COUNT - 300, DEAL_COUNT)])
def test_every_deal_is_a_permutation(number: int) -> None:
    deal = Deal.from_number(number)
    cards = [*deal.tableau, deal.waste, *deal.stock]
    assert len(deal.tableau) == 28 and len(deal.stock) == 23
    assert sorted(c.index for c in cards) == list(range(52))
    assert set(cards) == set(DECK)


def test_deals_differ() -> None:
    deals = {Deal.from_number(n) for n in range(500)}
    assert len(deals) == 500


@pytest.mark.parametrize("number", [-1, DEAL_COUNT])
def test_shuffle_refuses_numbers_out_of_range(number: int) -> None:
    with pytest.raises(CodeError):
        shuffle_tp1(number)
    with pytest.raises(CodeError):
        Deal.from_number(number)
