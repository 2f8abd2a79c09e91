"""The variants in the web game (``docs/variants.md``): their names and one-line
explanations in the player's language, the label that names a game's rules and variants,
and the New game window's choice of them, remembered in a cookie as "winnable only" is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Final

from fastapi import Depends, Form
from fastapi.exceptions import RequestValidationError
from starlette.requests import Request

from app.engine import STANDARD, GameCode, Rules, Variant, VariantError, Variants
from app.engine.variants import ALL, EMPTY_WASTE, JOKER, OPEN_PEAKS, TRADITIONAL
from app.i18n import current_locale
from app.web.middleware.player_cookie import read_cookies
from app.web.presentation.layouts_on_page import layout_name

VARIANTS_COOKIE: Final = "tp_variants"
"""The variants last chosen in the New game window, as their letters (``"OJ"``; empty for none)."""


def variant_name(variant: Variant) -> str:
    """The variant's name in the player's language: "Open peaks"."""
    pgettext = current_locale().pgettext
    return {
        OPEN_PEAKS: pgettext("variant", "Open peaks"),
        EMPTY_WASTE: pgettext("variant", "Empty waste"),
        JOKER: pgettext("variant", "Joker"),
        TRADITIONAL: pgettext("variant", "Traditional scoring"),
    }[variant]


def variant_note(variant: Variant) -> str:
    """The variant in one line, for the New game window."""
    gettext = current_locale().gettext
    return {
        OPEN_PEAKS: gettext("Every card of the peaks face up from the start"),
        EMPTY_WASTE: gettext("No waste card at first: start with any exposed card"),
        JOKER: gettext("One wild joker in the deck: any card goes on it"),
        TRADITIONAL: gettext("Runs score 1, 2, 3…; a draw costs 5; from 0, may go below"),
    }[variant]


def rules_name(rules: Rules) -> str:
    gettext = current_locale().gettext
    return gettext("Easy") if rules is Rules.EASY else gettext("Classic")


def game_label(code: GameCode) -> str:
    """The rules, the layout and the variants in words: "Classic · Valley · Open peaks · Joker"
    ("Easy" for a standard game of three peaks, whose name it leaves out)."""
    layout = [layout_name(code.layout)] if code.layout.letter else []
    return " · ".join([rules_name(code.rules), *layout, *(variant_name(v) for v in code.variants.each())])


def variants_words(variants: Variants) -> str:
    """The variants alone in words, "Open peaks · Joker"; empty for the standard game."""
    return " · ".join(variant_name(v) for v in variants.each())


@dataclass(frozen=True, slots=True)
class Choice:
    """One checkbox of the New game window's Variants fieldset."""

    word: str
    letter: str
    name: str
    note: str
    checked: bool


def variant_choices(chosen: Variants) -> list[Choice]:
    """The four variants for the New game window, ``chosen`` ones checked."""
    on = set(chosen.each())
    return [Choice(v.word, v.letter, variant_name(v), variant_note(v), v in on) for v in ALL]


async def ticked_variants(
    words: Annotated[list[str], Form(alias="variants", max_length=8)] = [],  # noqa: B006
) -> Variants:
    """The variants ticked in the New game window (``/new`` and ``/races`` read the same boxes).
    A word no box sends is a request made by hand: refused as any unreadable field is (a page
    in the player's language; the JSON errors name the word)."""
    try:
        return Variants.from_words(words)
    except VariantError as error:
        raise RequestValidationError(
            [{"type": "value_error", "loc": ("body", "variants"), "msg": str(error), "input": words}]
        ) from None


TickedVariants = Annotated[Variants, Depends(ticked_variants)]


def remembered_variants(request: Request) -> Variants:
    """The variants the player last dealt with (the cookie); none if it is missing or bad."""
    try:
        return Variants.parse(read_cookies(request.scope).get(VARIANTS_COOKIE, "")[:8])
    except VariantError:
        return STANDARD
