"""Variants from the TriPeaks literature (SPEC section 10; written out in ``docs/variants.md``).

Four rules can be added to either rule set, alone or together. Each has a letter, written
after the rules letter of a game code in this fixed order: ``TP1-EOJ-AAAAAAB`` is easy
rules with open peaks and a joker.

- ``O`` open peaks: all 28 peak cards are face up from the deal.
- ``W`` empty waste: no waste card at the start; the first card removed (or drawn) starts it.
- ``J`` joker: a 53-card deck with one wild card.
- ``T`` traditional scoring: runs of removals score 1, 2, 3, ...; a draw costs 5; the peaks
  pay 15, 15 and 30; the score starts at 0 and may go below it.

A :class:`Variants` value holds the four flags. The rules consult it at the few places
they differ (the deal, the waste, which cards fit, which are face up, the score), so the
variants combine without a class per combination.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


class VariantError(ValueError):
    """Variant letters that are not a set of known variants (unknown, or one given twice)."""


@dataclass(frozen=True, slots=True)
class Variant:
    """One variant: its letter, its name in the JSON API and the English words for it."""

    letter: str
    word: str
    name: str
    aliases: tuple[str, ...]


OPEN_PEAKS: Final = Variant("O", "open_peaks", "Open peaks", ("open", "open-peaks"))
EMPTY_WASTE: Final = Variant("W", "empty_waste", "Empty waste", ("empty-waste", "no-waste"))
JOKER: Final = Variant("J", "joker", "Joker", ("wild",))
TRADITIONAL: Final = Variant("T", "traditional", "Traditional scoring", ("traditional-scoring", "runs"))

ALL: Final = (OPEN_PEAKS, EMPTY_WASTE, JOKER, TRADITIONAL)
"""Every variant, in the canonical order of their letters (``OWJT``)."""

_BY_LETTER: Final = {variant.letter: variant for variant in ALL}
_BY_WORD: Final = {
    name: variant for variant in ALL for name in (variant.word, variant.letter.lower(), *variant.aliases)
}
EXPECTED_LETTERS: Final = "O open peaks, W empty waste, J joker, T traditional scoring"


@dataclass(frozen=True, slots=True)
class Variants:
    """Which variants a game plays: ``Variants.parse("jo")``, ``variants.letters`` (``"OJ"``)."""

    open_peaks: bool = False
    empty_waste: bool = False
    joker: bool = False
    traditional: bool = False

    @property
    def letters(self) -> str:
        """The variants' letters in canonical order; empty for the standard game."""
        return "".join(variant.letter for variant in self.each())

    @property
    def words(self) -> list[str]:
        """The variants as the JSON API names them, in canonical order."""
        return [variant.word for variant in self.each()]

    def each(self) -> tuple[Variant, ...]:
        flags = (self.open_peaks, self.empty_waste, self.joker, self.traditional)
        return tuple(variant for variant, on in zip(ALL, flags, strict=True) if on)

    def __bool__(self) -> bool:
        """True when any variant is on (the standard game is false)."""
        return bool(self.letters)

    def __str__(self) -> str:
        return self.letters

    def __repr__(self) -> str:
        return f"Variants.parse({self.letters!r})"

    @classmethod
    def parse(cls, letters: str) -> Variants:
        """Read variant letters in any order and case; refuse an unknown or repeated letter."""
        seen: set[Variant] = set()
        for letter in letters.upper():
            variant = _BY_LETTER.get(letter)
            if variant is None:
                raise VariantError(f"{letter!r} is not a variant: expected {EXPECTED_LETTERS}")
            if variant in seen:
                raise VariantError(f"the variant {letter!r} is given twice")
            seen.add(variant)
        return cls._of(seen)

    @classmethod
    def from_words(cls, words: list[str] | tuple[str, ...]) -> Variants:
        """Read the JSON API's list (``["open_peaks", "joker"]``; letters and aliases too)."""
        seen: set[Variant] = set()
        for word in words:
            variant = _BY_WORD.get(word.strip().lower()) if isinstance(word, str) else None
            if variant is None:
                raise VariantError(
                    f"{str(word)[:30]!r} is not a variant: expected "
                    + ", ".join(repr(v.word) for v in ALL)
                )
            if variant in seen:
                raise VariantError(f"the variant {variant.word!r} is given twice")
            seen.add(variant)
        return cls._of(seen)

    @classmethod
    def _of(cls, chosen: set[Variant]) -> Variants:
        return cls(OPEN_PEAKS in chosen, EMPTY_WASTE in chosen, JOKER in chosen, TRADITIONAL in chosen)


STANDARD: Final = Variants()
"""No variant: the rules of SPEC sections 2-9 as they are."""
