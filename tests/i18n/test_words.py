"""Each language's words: card names, the board in words, refusals, code errors, plurals.

The Hebrew and Ukrainian wording comes from the rule texts in ``/work/shared/seeds``
(their refusal messages, rule names, card and rank names and the board in words).
"""

# ruff: noqa: RUF001 - the tests hold Ukrainian text, whose letters look like Latin ones

from __future__ import annotations

import pytest

from app.engine import DECK, Card, CodeError, Game, GameCode, Refusal, Rules
from app.engine.cards import Suit
from app.engine.words import describe_board
from app.i18n import LANGUAGES, get_locale
from app.i18n.messages import REFUSAL_MESSAGES

CODE = "TP1-E-AAAAAAB"


def c(text: str) -> Card:
    return Card.from_text(text)


@pytest.mark.parametrize(
    ("lang", "names"),
    [
        ("en", {"7S": "7 of spades", "AC": "ace of clubs", "KC": "king of clubs", "QH": "queen of hearts"}),
        # The seeds: "אס תלתן", "3 עלה", "מלך תלתן", "2 יהלום", "8 לב"; the queen from "ממלכה למלך".
        (
            "he",
            {
                "7S": "7 עלה",
                "AC": "אס תלתן",
                "KC": "מלך תלתן",
                "2D": "2 יהלום",
                "8H": "8 לב",
                "QH": "מלכה לב",
            },
        ),
        # The seeds: "туз треф", "3 пік", "король треф", "2 бубон", "8 черв"; the queen from "від дами".
        (
            "uk",
            {
                "7S": "7 пік",
                "AC": "туз треф",
                "KC": "король треф",
                "2D": "2 бубон",
                "8H": "8 черв",
                "QH": "дама черв",
            },
        ),
        ("th", {"7S": "7 โพดำ", "AC": "เอซ ดอกจิก", "KC": "คิง ดอกจิก", "2D": "2 ข้าวหลามตัด", "QH": "ควีน โพแดง"}),
    ],
)
def test_card_names_in_words(lang: str, names: dict[str, str]) -> None:
    words = get_locale(lang)
    for text, name in names.items():
        assert words.card_words(c(text)) == name


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_has_its_own_name(lang: str) -> None:
    words = get_locale(lang)
    names = {words.card_words(card) for card in DECK}
    assert len(names) == 52
    if lang != "en":
        assert not names & {card.words() for card in DECK}  # nothing left in English
    assert len({words.pgettext("suit", s.word) for s in Suit}) == 4


def test_english_is_the_engines_english() -> None:
    en = get_locale("en")
    for card in DECK:
        assert en.card_words(card) == card.words()
    for refusal in Refusal:
        assert en.refusal_message(refusal) == refusal.message
    for number in (0, 1, 77, 12345):
        game = Game(GameCode(Rules.EASY, number))
        assert en.describe(game) == describe_board(game)
        while game.playable_positions():
            game.remove(game.playable_positions()[0])
        game.draw()
        assert en.describe(game) == describe_board(game)
    for text in ("TP1-X-HELLO", "", "  ", "x" * 80, "TP1-E-AAAA", "שלום"):
        try:
            GameCode.parse(text)
        except CodeError as error:
            assert en.code_error(text) == str(error), text
        else:  # pragma: no cover
            raise AssertionError(text)


def test_every_refusal_has_a_message() -> None:
    assert set(REFUSAL_MESSAGES) == set(Refusal)


@pytest.mark.parametrize(
    ("lang", "messages"),
    [
        (
            "he",
            {
                Refusal.RANK_MISMATCH: "הדרגה חייבת להיות גבוהה או נמוכה באחת",
                Refusal.CARD_BLOCKED: "הקלף הזה חסום",
            },
        ),
        (
            "uk",
            {
                Refusal.RANK_MISMATCH: "Має бути на один ранг вищою або нижчою",
                Refusal.CARD_BLOCKED: "Ця карта заблокована",
            },
        ),
        ("th", {Refusal.RANK_MISMATCH: "อันดับต้องสูงกว่าหรือต่ำกว่าหนึ่งขั้น", Refusal.CARD_BLOCKED: "ไพ่ใบนี้ถูกปิดทับอยู่"}),
    ],
)
def test_refusals_use_the_sources_wording(lang: str, messages: dict[Refusal, str]) -> None:
    words = get_locale(lang)
    for refusal, message in messages.items():
        assert words.refusal_message(refusal) == message
    assert len({words.refusal_message(r) for r in Refusal}) == len(Refusal)


@pytest.mark.parametrize(
    ("lang", "blocked", "easy", "classic"),
    [
        ("he", "אין עוד מהלכים אפשריים", ("קל", "מלך ואס מחוברים"), ("קלאסי", "מלך ואס נפרדים")),
        (
            "uk",
            "Більше немає можливих ходів",
            ("Легкий", "Король і туз пов’язані"),
            ("Класичний", "Король і туз не пов’язані"),
        ),
    ],
)
def test_blocked_and_rule_names_use_the_sources_wording(
    lang: str, blocked: str, easy: tuple[str, str], classic: tuple[str, str]
) -> None:
    gettext = get_locale(lang).gettext
    assert gettext("No more possible moves") == blocked
    assert (gettext("Easy"), gettext("King and Ace joined")) == easy
    assert (gettext("Classic"), gettext("King and Ace apart")) == classic


@pytest.mark.parametrize(
    ("lang", "start", "rows"),
    [
        (
            "en",
            "Stock: 23 cards; waste: ",
            ("Peak tops: hidden card, hidden card, hidden card; row 2: ", "; bottom row: "),
        ),
        # The seeds: "קופת משיכה: 23 קלפים; ערימת השלכה: אס תלתן. ראשי הפסגות: קלף מוסתר, ..."
        (
            "he",
            "קופת משיכה: 23 קלפים; ערימת השלכה: ",
            ("ראשי הפסגות: קלף מוסתר, קלף מוסתר, קלף מוסתר; שורה 2: ", "; השורה התחתונה: "),
        ),
        # The seeds say "Прикуп: 23 карт"; Ukrainian grammar (and the plural rule) wants "23 карти".
        (
            "uk",
            "Прикуп: 23 карти; скид: ",
            ("Верхівки: закрита карта, закрита карта, закрита карта; ряд 2: ", "; нижній ряд: "),
        ),
        ("th", "กองจั่ว: 23 ใบ; กองทิ้ง: ", ("ยอดบนสุด: ไพ่คว่ำ, ไพ่คว่ำ, ไพ่คว่ำ; แถว 2: ", "; แถวล่างสุด: ")),
    ],
)
def test_the_board_in_words(lang: str, start: str, rows: tuple[str, str]) -> None:
    words = get_locale(lang)
    game = Game.from_code(CODE)
    text = words.describe(game)
    assert text.startswith(start + words.card_words(game.waste) + ". ")
    for part in rows:
        assert part in text
    bottom = ", ".join(words.card_words(game.deal.tableau[p]) for p in range(18, 28))
    assert text.endswith(bottom)
    # Removed cards are left out; a row that starts the board gets a capital where there are capitals.
    for position in game.playable_positions()[:1]:
        game.remove(position)
    assert words.card_words(game.deal.tableau[position]) + "," not in words.describe(game).split(". ", 1)[1]


@pytest.mark.parametrize(
    ("lang", "counts"),
    [
        ("en", {1: "Stock: 1 card", 2: "Stock: 2 cards", 23: "Stock: 23 cards", 0: "Stock: 0 cards"}),
        (
            "he",
            {
                1: "קופת משיכה: קלף אחד",
                2: "קופת משיכה: שני קלפים",
                3: "קופת משיכה: 3 קלפים",
                23: "קופת משיכה: 23 קלפים",
            },
        ),
        (
            "uk",
            {
                1: "Прикуп: 1 карта",
                21: "Прикуп: 21 карта",
                2: "Прикуп: 2 карти",
                23: "Прикуп: 23 карти",
                5: "Прикуп: 5 карт",
                11: "Прикуп: 11 карт",
                12: "Прикуп: 12 карт",
                0: "Прикуп: 0 карт",
            },
        ),
        ("th", {1: "กองจั่ว: 1 ใบ", 2: "กองจั่ว: 2 ใบ", 23: "กองจั่ว: 23 ใบ"}),
    ],
)
def test_plural_forms(lang: str, counts: dict[int, str]) -> None:
    words = get_locale(lang)
    for count, text in counts.items():
        assert words.stock_words(count) == text


@pytest.mark.parametrize("lang", ["he", "uk", "th"])
def test_a_code_error_quotes_the_input_and_shows_the_form(lang: str) -> None:
    words = get_locale(lang)
    message = words.code_error("  TP1-X-HELLO ")
    assert "TP1-X-HELLO" in message and "TP1-E-AAAAAAB" in message
    assert message != get_locale("en").code_error("TP1-X-HELLO")
    long = words.code_error("y" * 100)
    assert "y" * 40 + "…" in long and "y" * 41 not in long
    assert "\\n" in words.code_error("a\nb")  # control characters shown escaped
    assert "TP1-E-AAAAAAB" in words.code_error("")


def test_unknown_languages_are_refused() -> None:
    with pytest.raises(ValueError, match="unsupported language"):
        get_locale("fr")
