"""Cards (SPEC section 1): text form, words, deck order, repr."""

from __future__ import annotations

import pytest

from app.engine import DECK, Card, CardError, Suit


def test_deck_has_52_distinct_cards_in_order() -> None:
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    assert [c.suit for c in DECK[::13]] == [Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES]
    assert [c.rank for c in DECK[:13]] == list(range(1, 14))
    for index, card in enumerate(DECK):
        assert card.index == index
        assert Card.from_index(index) is card


@pytest.mark.parametrize("card", DECK, ids=lambda c: c.text())
def test_text_round_trip(card: Card) -> None:
    assert Card.from_text(card.text()) is card
    assert Card.from_text(card.text().lower()) is card
    assert Card.from_text(f"  {card.text()} ") is card
    assert str(card) == card.text()


@pytest.mark.parametrize("card", DECK, ids=lambda c: c.text())
def test_repr_is_pasteable(card: Card) -> None:
    assert eval(repr(card), {"Card": Card}) == card


def test_text_forms() -> None:
    assert [c.text() for c in DECK[:13]] == [
        "AC",
        "2C",
        "3C",
        "4C",
        "5C",
        "6C",
        "7C",
        "8C",
        "9C",
        "10C",
        "JC",
        "QC",
        "KC",
    ]
    assert Card(10, Suit.HEARTS).text() == "10H"
    assert Card(1, Suit.SPADES).text() == "AS"
    assert Card(13, Suit.DIAMONDS).text() == "KD"
    assert Card(10, Suit.HEARTS).symbol_text() == "10\u2665"


def test_words() -> None:
    assert Card.from_text("7S").words() == "7 of spades"
    assert Card.from_text("AC").words() == "ace of clubs"
    assert Card.from_text("10H").words() == "10 of hearts"
    assert Card.from_text("JD").words() == "jack of diamonds"
    assert Card.from_text("QS").words() == "queen of spades"
    assert Card.from_text("KC").words() == "king of clubs"
    assert len({c.words() for c in DECK}) == 52


def test_colours() -> None:
    red = {c.text() for c in DECK if c.is_red}
    assert len(red) == 26
    assert all(t[-1] in "DH" for t in red)


@pytest.mark.parametrize(
    "text", ["", " ", "1S", "11H", "AX", "A S", "10", "S", "KK", "0C", "ZS", "AS!", "\u0410S"]
)
def test_bad_card_texts_are_refused(text: str) -> None:
    with pytest.raises(CardError) as caught:
        Card.from_text(text)
    assert isinstance(caught.value, ValueError)
    assert "like AS or 10H" in str(caught.value)


def test_non_string_and_bad_index_are_refused() -> None:
    with pytest.raises(CardError):
        Card.from_text(7)  # type: ignore[arg-type]
    for index in (-1, 53):
        with pytest.raises(CardError):
            Card.from_index(index)
    assert Card.from_index(52).text() == "JK"  # the joker variant's wild card
