"""The catalogs' own strings, read from the .po files with Babel: the oracle of the page tests.

The app translates through compiled catalogs and its own ``Locale``; these read the source
catalogs directly, so a page that says anything other than what the catalog says fails.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from app.engine import Card, Game, describe_board

LOCALES = Path(__file__).resolve().parents[2] / "app" / "i18n" / "locales"
RANK_WORDS = {1: "ace", 11: "jack", 12: "queen", 13: "king"}


@cache
def catalog(lang: str) -> Catalog:
    with (LOCALES / lang / "LC_MESSAGES" / "messages.po").open("rb") as file:
        return read_po(file)


def po(lang: str, msgid: str, context: str | None = None) -> str:
    """The catalog's translation of ``msgid`` (it must have one, and not a fuzzy one)."""
    message = catalog(lang).get(msgid, context=context)
    assert message is not None and isinstance(message.string, str), (lang, msgid, context)
    assert message.string and not message.fuzzy, (lang, msgid, context)
    return message.string


def po_plural(lang: str, msgid: str, count: int) -> str:
    """The catalog's plural form of ``msgid`` for ``count``, by the catalog's own Plural-Forms."""
    found = catalog(lang)
    message = found.get(msgid)
    assert message is not None and isinstance(message.string, tuple), (lang, msgid)
    index = gettext.c2py(found.plural_expr)(count)
    return message.string[index]


def card_words(lang: str, card: Card) -> str:
    rank = po(lang, RANK_WORDS[card.rank], "rank") if card.rank in RANK_WORDS else str(card.rank)
    return po(lang, "%(rank)s of %(suit)s", "card") % {"rank": rank, "suit": po(lang, card.suit.word, "suit")}


def board_words(lang: str, game: Game) -> str:
    """The board in words (SPEC section 9), in the catalog's words (the engine lays them out)."""
    return describe_board(
        game,
        card_words=lambda card: card_words(lang, card),
        hidden=po(lang, "hidden card"),
        row_names=tuple(po(lang, name) for name in ("peak tops", "row 2", "row 3", "bottom row")),
        stock_words=lambda n: po_plural(lang, "Stock: %(num)d card", n) % {"num": n},
        waste_word=po(lang, "waste"),
    )


def code_error(lang: str, text: str) -> str:
    """Why ``text`` (a short one, plain characters) is not a game code, in the catalog's words."""
    form = po(lang, "%(example)s (TP1, E for easy or C for classic with any variant letters after it, then seven letters A-Z)")
    form %= {"example": "TP1-E-AAAAAAB"}
    return po(lang, "'%(code)s' is not a game code: expected %(form)s") % {"code": text, "form": form}
