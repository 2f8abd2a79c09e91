"""The layouts on the page (``docs/layouts.md``): their names and rows in the player's
language, where each card is drawn, the New game window's choice of them (with a small
drawing of each shape, remembered in a cookie), and which are mostly unwinnable.

Where a card is drawn comes from the engine's :class:`~app.engine.layout.Layout` alone: a
card at (row, column) in half-card units gets the classes ``r-<row> x-<column>`` and its
height ``h-<height>`` (static/tripeaks.css places and stacks them); the board's classes
(``span-<columns> rows-<rows>``) size the cards to the layout's width and height.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Final, Literal

from markupsafe import Markup
from starlette.requests import Request

from app.engine import Rules
from app.engine.layout import LAYOUTS, THREE_PEAKS, Layout, LayoutError, layout_named
from app.i18n import Locale, current_locale
from app.web.middleware.player_cookie import read_cookies

LAYOUT_COOKIE: Final = "tp_layout"
"""The layout last chosen in the New game window, as its word (``"valley"``)."""

LayoutWord = Literal["three-peaks", "diamonds", "valley", "theatre", "up-down"]
"""A layout's word, as the New game window posts it."""

LAYOUT_INDEX: Final = {layout: index for index, layout in enumerate(LAYOUTS.values())}

WINNABLE_SHARES: Final[dict[tuple[str, Rules], float]] = {
    ("three-peaks", Rules.EASY): 0.9708,
    ("three-peaks", Rules.CLASSIC): 0.7353,
    ("diamonds", Rules.EASY): 0.9989,
    ("diamonds", Rules.CLASSIC): 0.9387,
    ("valley", Rules.EASY): 0.9731,
    ("valley", Rules.CLASSIC): 0.7148,
    ("theatre", Rules.EASY): 0.9755,
    ("theatre", Rules.CLASSIC): 0.7300,
    ("up-down", Rules.EASY): 0.7515,
    ("up-down", Rules.CLASSIC): 0.3358,
}
"""The winnable share of deals 0-9,999 of each layout and rule set (docs/solvability.md)."""


def mostly_unwinnable() -> tuple[tuple[Layout, Rules, float], ...]:
    """The layouts and rules of which most deals cannot be won: the New game window suggests
    "winnable deals only" for them."""
    return tuple(
        (LAYOUTS[word], rules, share) for (word, rules), share in WINNABLE_SHARES.items() if share < 0.5
    )


def layout_name(layout: Layout, words: Locale | None = None) -> str:
    """The layout's name in the player's language: "Valley"."""
    pgettext = (words or current_locale()).pgettext
    return {
        "three-peaks": pgettext("layout", "Three peaks"),
        "diamonds": pgettext("layout", "Diamonds"),
        "valley": pgettext("layout", "Valley"),
        "theatre": pgettext("layout", "Theatre"),
        "up-down": pgettext("layout", "Up-down"),
    }[layout.word]


def layout_note(layout: Layout, words: Locale | None = None) -> str:
    """The layout's shape in one line, for the New game window."""
    gettext = (words or current_locale()).gettext
    return {
        "three-peaks": gettext("28 cards in three peaks side by side"),
        "diamonds": gettext("27 cards in three diamonds, the middle row open"),
        "valley": gettext("30 cards: two peaks with an upside-down peak between them"),
        "theatre": gettext("30 cards: two wings and a wide stage"),
        "up-down": gettext("30 cards: a peak and an upside-down peak"),
    }[layout.word]


@cache
def card_classes(layout: Layout) -> tuple[str, ...]:
    """Each position's place on the board as classes: ``r-<row> x-<column> h-<height>``."""
    return tuple(f"r-{s.row} x-{s.column} h-{s.height}" for s in layout.spots)


@cache
def tableau_order(layout: Layout) -> tuple[int, ...]:
    """The positions in the order the page lays them out: row by row, top row first."""
    return tuple(p for row in layout.rows for p in row)


def board_classes(layout: Layout) -> str:
    """The board's classes: its layout, and its width and height in half-card units and rows
    (the cards are as large as they allow)."""
    span = 1 + max(s.column for s in layout.spots)
    return f"layout-{layout.word} span-{span} rows-{len(layout.rows)}"


@cache
def shape_svg(layout: Layout) -> Markup:
    """A small drawing of the layout's shape: a card for each position, the open ones light,
    the face-down ones dark (decorative: its name is beside it)."""
    span = 1 + max(s.column for s in layout.spots)
    width, height = (span + 1) * 5, len(layout.rows) * 7 + 6
    cards = "".join(
        f'<rect x="{s.column * 5}" y="{s.row * 7}" width="9" height="13" rx="1.5"'
        f' class="{"open" if s.height == 0 else "down"}"/>'
        for s in sorted(layout.spots, key=lambda s: -s.height)
    )
    return Markup(
        f'<svg class="layout-shape" viewBox="-0.5 -0.5 {width} {height}" width="{width}" height="{height}"'
        f' aria-hidden="true" focusable="false">{cards}</svg>'
    )


@dataclass(frozen=True, slots=True)
class LayoutChoice:
    """One radio button of the New game window's Layout fieldset."""

    word: str
    name: str
    note: str
    shape: Markup
    checked: bool


def layout_choices(chosen: Layout) -> list[LayoutChoice]:
    """The five layouts for the New game window, ``chosen`` checked."""
    return [
        LayoutChoice(
            layout.word, layout_name(layout), layout_note(layout), shape_svg(layout), layout is chosen
        )
        for layout in LAYOUTS.values()
    ]


def remembered_layout(request: Request) -> Layout:
    """The layout the player last dealt (the cookie); three peaks if it is missing or bad."""
    try:
        return layout_named(read_cookies(request.scope).get(LAYOUT_COOKIE, "three-peaks")[:20])
    except LayoutError:
        return THREE_PEAKS
