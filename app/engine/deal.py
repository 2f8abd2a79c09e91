"""Deals and game codes (SPEC section 3).

A game code ``TP1-E-AAAAAAB`` names a rule set and a deal number. ``TP1`` is
one fixed shuffle, defined in ``docs/deals.md`` and implemented by
:func:`shuffle_tp1`: SplitMix64 seeded with the deal number drives a
Fisher-Yates shuffle of the ordered deck, with rejection sampling so every
permutation step is exactly uniform. It uses only 64-bit integer arithmetic,
so it deals the same cards on every machine and Python version.

Variant letters (``docs/variants.md``) may follow the rules letter: ``TP1-EOJ-AAAAAAB``.
Only the joker (``J``, a 53-card deck) and the empty waste (``W``, the waste card stays in
the stock) change what is dealt; the standard codes deal exactly as before.

A layout's letter (``docs/layouts.md``: ``D`` diamonds, ``V`` valley, ``H`` theatre, ``U``
up-down) stands right after the rules letter: ``TP1-EV-AAAAAAB``, ``TP1-CVOJ-AAAAAAB``. A
code with none is three peaks, so every code of before names the same deal. A layout of
``N`` cards takes the first ``N`` shuffled cards, the next goes to the waste, the rest to
the stock.
"""

from __future__ import annotations

import datetime as _dt
import enum
import re
import secrets
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from app.engine.cards import DECK, JOKER, Card
from app.engine.layout import LAYOUT_LETTERS, THREE_PEAKS, Layout
from app.engine.variants import STANDARD, VariantError, Variants

DEAL_COUNT: Final = 26**7
"""Deal numbers run from 0 to ``DEAL_COUNT - 1`` (seven base-26 letters)."""

TABLEAU_SIZE: Final = 28
_MASK64: Final = (1 << 64) - 1


class CodeError(ValueError):
    """A text that is not a game code. The message quotes it and shows the expected form."""


class Rules(enum.Enum):
    """The two rule sets: easy joins king and ace, classic keeps them apart."""

    EASY = "E"
    CLASSIC = "C"

    @property
    def letter(self) -> str:
        return self.value

    @property
    def word(self) -> str:
        """``easy`` or ``classic``, as the JSON API writes it."""
        return self.name.lower()

    @property
    def king_ace_joined(self) -> bool:
        return self is Rules.EASY

    @classmethod
    def from_word(cls, word: str) -> Rules:
        for rules in cls:
            if rules.word == word:
                return rules
        raise ValueError(f"{word!r} is not a rule set: expected 'easy' or 'classic'")


_RULE_LETTERS: Final = {"E": Rules.EASY, "C": Rules.CLASSIC, "N": Rules.EASY}
_CODE: Final = r"TP1-([ECN])([A-Z]{0,8})-([A-Z]{7})"
_WHOLE_CODE: Final = re.compile(_CODE)
CODE_PATTERN: Final = r"^TP1-[ECN][DVHU]?O?W?J?T?-[A-Z]{7}$"
"""A code as it is written (:meth:`GameCode.text`), for documents (the API's OpenAPI): the rules,
at most one layout letter, the variant letters in their order, the deal. :meth:`GameCode.parse`
reads more (any case, letters in any order, a link, a sentence)."""
_CODE_IN_LINK: Final = re.compile(r"(?:^|[/=?#&])" + _CODE + r"(?=$|[/?#&])")
_LINK: Final = re.compile(r"(?:https?://)?[^\s/]*(?:/[^\s]*)?")
_CODE_IN_TEXT: Final = re.compile(r"(?<![A-Z0-9-])TP1-([ECN])([A-Z01]{0,8})-([A-Z01]{7})(?![A-Z0-9-])")
"""A code inside other text (a pasted share text, a sentence), a digit 1 or 0 typed for I or O
in its letters (SPEC section 3's leniency); read when the text holds one code only."""
_DIGIT_FOR_LETTER: Final = str.maketrans("10", "IO")
EXPECTED_FORM: Final = (
    "TP1-E-AAAAAAB (TP1, E for easy or C for classic with any variant letters after it,"
    " then seven letters A-Z)"
)


class UnsolvedVariant(ValueError):
    """A question the depth-first search cannot answer for a variant deal: it knows the
    standard deck only (:func:`dealt_waste`). The whole-deal analysis judges every variant."""


def dealt_waste(deal: Deal) -> Card:
    """The waste card the deal turns face up; refuses the empty-waste variant, which has none."""
    if deal.waste is None:
        raise UnsolvedVariant("an empty-waste deal has no waste card until the first action")
    return deal.waste


def rank_of(card: Card | None) -> int:
    """A waste card's rank, 0 for an empty waste (in the rules, every card fits both)."""
    return 0 if card is None else card.rank


def _quote(text: str) -> str:
    shown = text if len(text) <= 40 else text[:40] + "…"
    return repr(shown)


@dataclass(frozen=True, slots=True)
class GameCode:
    """A deal under a rule set and variants: ``GameCode.parse("TP1-E-AAAAAAB")``, ``str(code)``."""

    rules: Rules
    number: int
    variants: Variants = STANDARD
    layout: Layout = THREE_PEAKS
    _text: str = field(init=False, repr=False, compare=False)
    """The canonical code, worked out once (every save and every page writes it)."""

    def __post_init__(self) -> None:
        if not isinstance(self.number, int) or not 0 <= self.number < DEAL_COUNT:
            raise CodeError(f"deal number {self.number!r} is not 0 to {DEAL_COUNT - 1}")
        n, out = self.number, []
        for _ in range(7):
            n, digit = divmod(n, 26)
            out.append(chr(65 + digit))
        if not isinstance(self.variants, Variants):
            raise CodeError(f"variants {self.variants!r} are not a Variants value")
        if not isinstance(self.layout, Layout):
            raise CodeError(f"layout {self.layout!r} is not a Layout value")
        rules_part = self.rules.letter + self.layout.letter + self.variants.letters
        object.__setattr__(self, "_text", f"TP1-{rules_part}-{''.join(reversed(out))}")

    @property
    def letters(self) -> str:
        """The deal number as seven letters, most significant first."""
        return self._text[-7:]

    def text(self) -> str:
        """The canonical code: ``TP1-E-AAAAAAB``, the layout's letter next, then variant
        letters in order (``TP1-EVOJ-…``); legacy ``N`` is written ``E``."""
        return self._text

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"GameCode.parse({self.text()!r})"

    def deal(self) -> Deal:
        return _cached_deal(self.number, self.variants.joker, self.variants.empty_waste, self.layout.count)

    @classmethod
    def parse(cls, text: str) -> GameCode:
        """Read a code leniently: any case, surrounding spaces, a pasted share link, a text
        holding one code (a sentence, a share text), a digit 1 or 0 typed for I or O.

        Anything else raises :class:`CodeError` quoting the input and the expected form.
        """
        if not isinstance(text, str):
            raise CodeError(f"{text!r} is not a game code: expected {EXPECTED_FORM}")
        return _parsed(text)

    @classmethod
    def _read(cls, text: str) -> GameCode:
        stripped = text.strip()
        if not stripped:
            raise CodeError(f"The game code is empty: expected {EXPECTED_FORM}")
        match = None
        upper = stripped.upper()
        if stripped.isascii():
            match = _WHOLE_CODE.fullmatch(upper)
            if match is None and _LINK.fullmatch(stripped) and "/" in stripped:
                found = _CODE_IN_LINK.findall(upper)
                if len(set(found)) == 1:
                    match = _WHOLE_CODE.fullmatch("TP1-{}{}-{}".format(*found[0]))
        if match is None:
            digits = _DIGIT_FOR_LETTER
            codes = {
                f"TP1-{rules}{letters.translate(digits)}-{number.translate(digits)}"
                for rules, letters, number in _CODE_IN_TEXT.findall(upper)
            }
            if len(codes) == 1:
                match = _WHOLE_CODE.fullmatch(codes.pop())
        if match is None:
            raise CodeError(f"{_quote(stripped)} is not a game code: expected {EXPECTED_FORM}")
        letters = match.group(2)
        layouts = [LAYOUT_LETTERS[letter] for letter in letters if letter in LAYOUT_LETTERS]
        if len(layouts) > 1:
            raise CodeError(f"{_quote(stripped)} is not a game code: it names two layouts")
        try:
            variants = Variants.parse("".join(c for c in letters if c not in LAYOUT_LETTERS))
        except VariantError as error:
            raise CodeError(
                f"{_quote(stripped)} is not a game code: {error} (expected {EXPECTED_FORM})"
            ) from None
        number = 0
        for letter in match.group(3):
            number = number * 26 + ord(letter) - 65
        return cls(_RULE_LETTERS[match.group(1)], number, variants, *layouts)

    @classmethod
    def random(
        cls, rules: Rules = Rules.EASY, variants: Variants = STANDARD, layout: Layout = THREE_PEAKS
    ) -> GameCode:
        """A deal chosen uniformly at random (from the operating system's randomness)."""
        return cls(rules, secrets.randbelow(DEAL_COUNT), variants, layout)

    @classmethod
    def daily(cls, day: _dt.date, rules: Rules = Rules.EASY) -> GameCode:
        """The deal of a calendar day: the same for everyone, different each day."""
        state = (day.toordinal() * 0x9E3779B97F4A7C15 + 0x5450315F4441494C) & _MASK64
        return cls(rules, _mix64(state) % DEAL_COUNT)


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def shuffle_tp1(number: int, *, joker: bool = False) -> tuple[Card, ...]:
    """The ``TP1`` shuffle of deal ``number``: the 52 cards (53 with the joker) in dealing order.

    SplitMix64 (state starts at ``number``; each output adds the golden-ratio
    constant, then mixes) gives 64-bit words. For ``i`` from 51 down to 1 a
    word ``x`` is drawn until ``x < 2**64 - 2**64 % (i + 1)``, and the cards at
    ``i`` and ``x % (i + 1)`` of the ordered deck (``DECK``) are swapped. The joker
    deck is the ordered deck with the joker after the king of spades (index 52), shuffled
    the same way from ``i = 52``.
    """
    if not 0 <= number < DEAL_COUNT:
        raise CodeError(f"deal number {number!r} is not 0 to {DEAL_COUNT - 1}")
    cards = [*DECK, JOKER] if joker else list(DECK)
    state = number
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            state = (state + 0x9E3779B97F4A7C15) & _MASK64
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
            z ^= z >> 31
            if z < limit:
                break
        j = z % bound
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


@lru_cache(maxsize=4096)
def _parsed(text: str) -> GameCode:
    """Codes are immutable: a stored game's code, read at every load, is parsed once."""
    return GameCode._read(text)


@lru_cache(maxsize=4096)
def _cached_deal(
    number: int, joker: bool = False, empty_waste: bool = False, tableau_size: int = TABLEAU_SIZE
) -> Deal:
    """Deals are immutable and pure: a server loading the same games over and over shuffles once."""
    return Deal.from_number(number, joker=joker, empty_waste=empty_waste, tableau_size=tableau_size)


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of a deal as laid out: tableau by position, the waste card (``None`` in the
    empty-waste variant), the stock top first."""

    tableau: tuple[Card, ...]
    waste: Card | None
    stock: tuple[Card, ...]

    @property
    def stock_size(self) -> int:
        """23 in the standard deal, one more with the joker, one more with an empty waste."""
        return len(self.stock)

    @classmethod
    def from_number(
        cls, number: int, *, joker: bool = False, empty_waste: bool = False, tableau_size: int = TABLEAU_SIZE
    ) -> Deal:
        """Shuffled cards 0 to N-1 go to positions 0 to N-1 (N = 28 in three peaks), card N to
        the waste, the rest to the stock (top first). With an empty waste, card N stays in
        the stock as its top card."""
        cards = shuffle_tp1(number, joker=joker)
        n = tableau_size
        if empty_waste:
            return cls(cards[:n], None, cards[n:])
        return cls(cards[:n], cards[n], cards[n + 1 :])
