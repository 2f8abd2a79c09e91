"""Cards: ranks, suits and the 52-card deck (SPEC section 1), and the joker variant's wild card.

A card parses and formats its text form (``Card.from_text("10H")`` /
``card.text()``) and names itself in words (``card.words()`` ->
``"10 of hearts"``). The 52 cards are made once; ``Card.from_text`` and
``Card.from_index`` return those same objects. The joker (``JOKER``, text ``JK``, words
``joker``, index 52) has rank 0 and no suit; only a joker deal (``docs/variants.md``) holds it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Final


class CardError(ValueError):
    """A text that is not a card in SPEC's text form."""


class Suit(enum.Enum):
    """The four suits in deck order: clubs, diamonds, hearts, spades."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    # Members are singletons compared by identity, so identity's hash (in C) fits their
    # equality; Enum's own __hash__ is a Python call, and every card lookup hashes a suit
    # (about sixty of them for each move the page shows).
    __hash__ = object.__hash__

    @property
    def letter(self) -> str:
        return self.value

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @property
    def word(self) -> str:
        """The plural English name: ``clubs``."""
        return self.name.lower()

    @property
    def index(self) -> int:
        return _SUIT_ORDER.index(self)


_SUIT_SYMBOLS: Final = {
    Suit.CLUBS: "\u2663",
    Suit.DIAMONDS: "\u2666",
    Suit.HEARTS: "\u2665",
    Suit.SPADES: "\u2660",
}
_SUIT_ORDER: Final = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)

RANK_TEXTS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""Text form of ranks 1 (ace) to 13 (king)."""

RANK_WORDS: Final = (
    "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king",
)
"""English words for ranks 1 to 13, as the board in words uses them."""


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card: ``rank`` 1 (ace) to 13 (king) and a ``suit``; or the joker (rank 0, no suit)."""

    rank: int
    suit: Suit | None
    _index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Worked out once: pages look cards up by it (card names, the table's cached HTML).
        index = 52 if self.suit is None else _SUIT_ORDER.index(self.suit) * 13 + self.rank - 1
        object.__setattr__(self, "_index", index)

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    @property
    def index(self) -> int:
        """Place in the ordered deck: clubs A..K are 0..12, then diamonds, hearts, spades."""
        return self._index

    @property
    def is_red(self) -> bool:
        return self.suit is not None and self.suit.is_red

    @property
    def rank_text(self) -> str:
        return "JK" if self.suit is None else RANK_TEXTS[self.rank - 1]

    def text(self) -> str:
        """SPEC's text form: rank then suit letter, ``AS``, ``10H``; the joker is ``JK``."""
        return "JK" if self.suit is None else RANK_TEXTS[self.rank - 1] + self.suit.letter

    def symbol_text(self) -> str:
        """Rank and suit symbol, for people: ``10♥``; the joker is ``JK``."""
        return "JK" if self.suit is None else RANK_TEXTS[self.rank - 1] + self.suit.symbol

    def words(self) -> str:
        """The card in English words: ``ace of clubs``, ``7 of spades``, ``joker``."""
        return "joker" if self.suit is None else f"{RANK_WORDS[self.rank - 1]} of {self.suit.word}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Card.from_text({self.text()!r})"

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card of a deck index: 0-51 the ordered deck, 52 the joker."""
        if index == 52:
            return JOKER
        if not 0 <= index < 52:
            raise CardError(f"card index {index!r} is not 0 to 52")
        return DECK[index]

    @classmethod
    def from_text(cls, text: str) -> Card:
        """Parse ``AS``, ``10h``, `` kd ``, ``JK`` (case and surrounding spaces ignored)."""
        card = _BY_TEXT.get(text.strip().upper()) if isinstance(text, str) else None
        if card is None:
            shown = text[:20] if isinstance(text, str) else text
            raise CardError(
                f"{shown!r} is not a card: expected a rank (A, 2-10, J, Q, K) "
                "then a suit letter (C, D, H, S), like AS or 10H, or JK for the joker"
            )
        return card


DECK: Final[tuple[Card, ...]] = tuple(
    Card(rank, suit) for suit in _SUIT_ORDER for rank in range(1, 14)
)
"""The 52 cards in deck order (``DECK[card.index] is card``)."""

JOKER: Final = Card(0, None)
"""The joker variant's wild card: rank 0, no suit, text ``JK``, deck index 52."""

_BY_TEXT: Final = {card.text(): card for card in (*DECK, JOKER)}
