"""One language's words: gettext for templates and code, card names, the board in words."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from babel.support import NullTranslations, Translations
from markupsafe import Markup

from app.engine import DECK, Card, Game, Refusal, Suit, describe_board
from app.engine.layout import THREE_PEAKS, Layout
from app.i18n.messages import REFUSAL_MESSAGES

LANGUAGE_NAMES: Final = {"en": "English", "he": "עברית", "uk": "Українська", "th": "ไทย"}
"""Each language's name in itself, for the language picker."""

RTL_LANGUAGES: Final = frozenset({"he"})

CODE_EXAMPLE: Final = "TP1-E-AAAAAAB"
_MAX_QUOTED: Final = 40
_VARIANT_SHAPE: Final = re.compile(r"TP1-[EC][A-Z]+-[A-Z]{7}")
"""A code whose rules letter has letters after it: variant letters, one of them bad."""


def _newstyle(
    gettext: Callable[[str], str],
    ngettext: Callable[[str, str, int], str],
    pgettext: Callable[[str, str], str],
) -> dict[str, Callable[..., str]]:
    """Jinja "newstyle" gettext callables (as ``install_gettext_callables(newstyle=True)`` makes).

    They format their keyword arguments into the message and mark it safe, so
    ``{% trans %}`` blocks and ``_("...", name=value)`` work; the values are escaped as
    they are formatted in. Unlike Jinja's own they do not take the template's context
    (every template of the app is autoescaped, see ``app.web.presentation.render``): a context-taking
    call costs Jinja a derived context each time once a block has set a variable, and
    the page's fragments make about twenty such calls. ``_`` is the same function as
    ``gettext``, not the i18n extension's alias that looks ``gettext`` up and calls it.
    """

    def jinja_gettext(__string: str, **variables: Any) -> str:
        return Markup(gettext(__string)) % variables

    def jinja_ngettext(__singular: str, __plural: str, __num: int, **variables: Any) -> str:
        variables.setdefault("num", __num)
        return Markup(ngettext(__singular, __plural, __num)) % variables

    def jinja_pgettext(__string_ctx: str, __string: str, **variables: Any) -> str:
        variables.setdefault("context", __string_ctx)
        return Markup(pgettext(__string_ctx, __string)) % variables

    return {
        "gettext": jinja_gettext,
        "_": jinja_gettext,
        "ngettext": jinja_ngettext,
        "pgettext": jinja_pgettext,
    }


class Locale:
    """A language: its translations and everything the pages say in it.

    Made once per language (see :func:`app.i18n.get_locale`); the card names are
    worked out once, so naming a card is a dictionary look-up.
    """

    def __init__(self, code: str, translations: Translations | NullTranslations) -> None:
        self.code = code
        self.name = LANGUAGE_NAMES[code]
        self.direction = "rtl" if code in RTL_LANGUAGES else "ltr"
        self.translations = translations
        gettext = translations.gettext
        ngettext = translations.ngettext

        def pgettext(context: str, message: str) -> str:
            return str(translations.pgettext(context, message))

        self.gettext: Callable[[str], str] = gettext
        self.ngettext: Callable[[str, str, int], str] = ngettext
        self.pgettext: Callable[[str, str], str] = pgettext

        # The board in words (SPEC section 9), in this language's words.
        self.hidden_card = gettext("hidden card")
        self.waste_word = gettext("waste")
        # Translators: the waste before its first card (the empty-waste variant), in "Waste: …".
        self.empty_waste = gettext("empty, any exposed card can be removed")
        self.row_names = (gettext("peak tops"), gettext("row 2"), gettext("row 3"), gettext("bottom row"))
        ranks = (
            pgettext("rank", "ace"), "2", "3", "4", "5", "6", "7", "8", "9", "10",
            pgettext("rank", "jack"), pgettext("rank", "queen"), pgettext("rank", "king"),
        )  # fmt: skip
        suits = {
            Suit.CLUBS: pgettext("suit", "clubs"),
            Suit.DIAMONDS: pgettext("suit", "diamonds"),
            Suit.HEARTS: pgettext("suit", "hearts"),
            Suit.SPADES: pgettext("suit", "spades"),
        }
        # Translators: a card in words, like "7 of spades" or "ace of clubs".
        card_format = pgettext("card", "%(rank)s of %(suit)s")
        self._card_names: tuple[str, ...] = (  # by the card's place in the deck; 52 the joker
            *(
                card_format % {"rank": ranks[card.rank - 1], "suit": suits[card.suit]}
                for card in DECK
                if card.suit is not None  # (every card of the 52 has a suit)
            ),
            # Translators: the joker variant's wild card (docs/variants.md).
            pgettext("card", "joker"),
        )
        self._refusals = {refusal: gettext(message) for refusal, message in REFUSAL_MESSAGES.items()}

        self.template_context: Mapping[str, Any] = MappingProxyType(
            {
                **_newstyle(gettext, ngettext, pgettext),
                "lang": code,
                "dir": self.direction,
                "locale": self,
                "card_words": self.card_words,
                "waste_words": self.waste_words,
                "describe": self.describe,
                "refusal_message": self.refusal_message,
            }
        )
        """What every template gets: gettext callables (``_`` uses them), ``lang``, ``dir``, card words."""

    def __repr__(self) -> str:
        return f"<Locale {self.code}>"

    def card_words(self, card: Card) -> str:
        """The card in words: ``7 of spades``, ``7 עלה``, ``7 пік``, ``7 โพดำ``."""
        return self._card_names[card.index]

    def waste_words(self, card: Card | None) -> str:
        """The waste card in words, or what an empty waste (the empty-waste variant) allows."""
        return self.empty_waste if card is None else self._card_names[card.index]

    def stock_words(self, count: int) -> str:
        return self.ngettext("Stock: %(num)d card", "Stock: %(num)d cards", count) % {"num": count}

    def layout_rows(self, layout: Layout) -> tuple[str, ...]:
        """The names of the layout's rows, top to bottom, in this language (three peaks:
        "peak tops", "row 2", "row 3", "bottom row")."""
        if layout is THREE_PEAKS:
            return self.row_names
        gettext = self.gettext
        middle = tuple(gettext("row %(num)d") % {"num": n} for n in range(2, len(layout.rows)))
        if layout.word == "diamonds":
            # Translators: the rows of the diamonds layout, top to bottom (the middle row is open).
            ends = (gettext("diamond tops"), gettext("diamond bottoms"))
            return (ends[0], middle[0], gettext("middle row"), middle[2], ends[1])
        return (gettext("top row"), *middle, gettext("bottom row"))

    def describe(self, game: Game) -> str:
        """The board in words (SPEC section 9) in this language."""
        return describe_board(
            game,
            card_words=self.card_words,
            hidden=self.hidden_card,
            row_names=self.layout_rows(game.layout),
            stock_words=self.stock_words,
            waste_word=self.waste_word,
            empty=self.empty_waste,
        )

    def refusal_message(self, refusal: Refusal) -> str:
        """Why the action was refused, for the player."""
        return self._refusals[refusal]

    def code_error(self, text: str) -> str:
        """Why ``text`` is not a game code: it quotes the input and shows the expected form.

        The engine's :class:`~app.engine.CodeError` says the same in English; this
        says it in the player's language.
        """
        gettext = self.gettext
        example, stripped = CODE_EXAMPLE, text.strip()
        shown = stripped if len(stripped) <= _MAX_QUOTED else stripped[:_MAX_QUOTED] + "…"
        shown = repr(shown)[1:-1]  # control characters and the like shown escaped
        if self.direction == "rtl":
            # Isolate the left-to-right code and the player's input, so the bidi algorithm
            # does not run them together with the parentheses and words around them.
            example, shown = f"\u2066{example}\u2069", f"\u2068{shown}\u2069"
        form = gettext(
            "%(example)s (TP1, E for easy or C for classic with any variant letters after it, then seven letters A-Z)"  # noqa: E501
        ) % {
            "example": example
        }
        if not stripped:
            return gettext("The game code is empty: expected %(form)s") % {"form": form}
        shape = _VARIANT_SHAPE.fullmatch(stripped.upper()) if stripped.isascii() else None
        if shape is not None:
            letters = gettext("O open peaks, W empty waste, J joker, T traditional scoring, each once")
            return gettext(
                "'%(code)s' is not a game code: the letters after E or C name variants (%(letters)s)"
            ) % {"code": shown, "letters": letters}
        return gettext("'%(code)s' is not a game code: expected %(form)s") % {"code": shown, "form": form}
