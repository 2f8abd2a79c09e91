"""Game codes (SPEC section 3): format, lenient reading, strict refusal, base 26, daily."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

from app.engine import DEAL_COUNT, CodeError, Game, GameCode, Rules


def test_deal_count() -> None:
    assert DEAL_COUNT == 26**7


@pytest.mark.parametrize(
    ("letters", "number"),
    [
        ("AAAAAAA", 0),
        ("AAAAAAB", 1),
        ("AAAAAAZ", 25),
        ("AAAAABA", 26),
        ("AAAAABB", 27),
        ("AAAABAA", 26**2),
        ("BAAAAAA", 26**6),
        ("ZZZZZZZ", 26**7 - 1),
    ],
)
def test_base_26(letters: str, number: int) -> None:
    code = GameCode.parse(f"TP1-E-{letters}")
    assert code.number == number
    assert code.letters == letters
    assert GameCode(Rules.CLASSIC, number).text() == f"TP1-C-{letters}"


def test_rules_letters() -> None:
    assert GameCode.parse("TP1-E-AAAAAAB").rules is Rules.EASY
    assert GameCode.parse("TP1-C-AAAAAAB").rules is Rules.CLASSIC
    assert GameCode.parse("TP1-E-AAAAAAB") != GameCode.parse("TP1-C-AAAAAAB")
    assert Rules.EASY.word == "easy" and Rules.CLASSIC.word == "classic"
    assert Rules.from_word("classic") is Rules.CLASSIC
    with pytest.raises(ValueError):
        Rules.from_word("hard")


def test_legacy_n_is_read_as_easy_and_written_e() -> None:
    code = GameCode.parse("TP1-N-AAAAAAB")
    assert code.rules is Rules.EASY
    assert code == GameCode.parse("TP1-E-AAAAAAB")
    assert code.text() == str(code) == "TP1-E-AAAAAAB"
    assert Game.from_code("tp1-n-hellooo").code_text() == "TP1-E-HELLOOO"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("TP1-E-AAAAAAB", "TP1-E-AAAAAAB"),
        ("tp1-e-aaaaaab", "TP1-E-AAAAAAB"),
        ("Tp1-c-AbCdEfG", "TP1-C-ABCDEFG"),
        ("  TP1-C-ZZZZZZZ  ", "TP1-C-ZZZZZZZ"),
        ("\tTP1-E-AAAAAAB\n", "TP1-E-AAAAAAB"),
        ("TP1-N-QWERTYU", "TP1-E-QWERTYU"),
        ("https://example.org/g/tp1-e-aaaaaab", "TP1-E-AAAAAAB"),
        ("https://example.org/g/TP1-C-ZZZZZZZ", "TP1-C-ZZZZZZZ"),
        ("http://localhost:8000/g/TP1-E-AAAAABA?ref=share", "TP1-E-AAAAABA"),
        ("https://example.org/g/tp1-n-aaaaaab/", "TP1-E-AAAAAAB"),
        ("https://example.org/new?code=TP1-C-AAAAAAB", "TP1-C-AAAAAAB"),
        ("  example.org/g/TP1-E-AAAAAAB ", "TP1-E-AAAAAAB"),
        # A digit typed for a letter: 1 for I, 0 for O (issue 30).
        ("TP1-E-AAAAAA1", "TP1-E-AAAAAAI"),
        ("tp1-c0-h1h1h1h", "TP1-CO-HIHIHIH"),
        # A text holding one code: a sentence, a share text with its link (SPEC section 3).
        ("https://example.org/g/ TP1-E-AAAAAAB", "TP1-E-AAAAAAB"),
        ("try this one: TP1-C-ZZZZZZZ!", "TP1-C-ZZZZZZZ"),
        (
            "I won TriPeaks deal TP1-EW-ABCDEFG with 512 points. Can you beat it? https://x.org/g/TP1-EW-ABCDEFG",
            "TP1-EW-ABCDEFG",
        ),
        ("שחקו TP1-E-AAAAAAB איתי", "TP1-E-AAAAAAB"),  # Hebrew around it
    ],
)
def test_lenient_reading(text: str, canonical: str) -> None:
    code = GameCode.parse(text)
    assert code.text() == canonical
    assert GameCode.parse(code.text()) == code


@pytest.mark.parametrize(
    "text",
    [
        "TP2-E-AAAAAAB",
        "TP-E-AAAAAAB",
        "XP1-E-AAAAAAB",
        "TP1-X-AAAAAAB",
        "TP1-EASY-AAAAAAB",
        "TP1-E-AAAAAA",
        "TP1-E-AAAAAAAA",
        "TP1-E-1234567",
        "TP1-E-AAAA-AAB",
        "TP1EAAAAAAB",
        "TP1 E AAAAAAB",
        "TP1_E_AAAAAAB",
        "TP1-E-AAAAAAB-X",
        "xTP1-E-AAAAAAB",
        "TP1-E-AAAAAAB TP1-E-AAAAAAC",
        "try TP1-E-AAAAAAB or TP1-C-AAAAAAB",  # two codes: which one?
        "TP1-E-AAAAAA2",
        "TP1-E-AAAAAAB1 in a sentence",
        "TP1-\u0415-AAAAAAB",  # Cyrillic capital IE for E
        "TP1-E-\u0410AAAAAB",  # Cyrillic capital A
        "\uff34\uff30\uff11-E-AAAAAAB",  # full-width TP1
        "TP1-E-AAAAAA\u0392",  # Greek capital beta for B
        "TP1\u2010E\u2010AAAAAAB",  # Unicode hyphens
        "https://example.org/g/TP1-E-AAAAAA",
        "https://example.org/g/TP1-E-AAAAAABX",
        "https://example.org/g/TP1-E-AAAAAAB/TP1-C-AAAAAAC",
        "hello",
        "?",
        "-1",
    ],
)
def test_strict_refusal(text: str) -> None:
    with pytest.raises(CodeError) as caught:
        GameCode.parse(text)
    message = str(caught.value)
    # The message quotes the input (long ones cut short) ...
    assert repr(text.strip()[:30])[:-1] in message
    # ... and shows the expected form, on one line.
    assert "TP1-E-AAAAAAB" in message
    assert "\n" not in message


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_empty_code_is_refused(text: str) -> None:
    with pytest.raises(CodeError, match="empty") as caught:
        GameCode.parse(text)
    assert "TP1-E-AAAAAAB" in str(caught.value)


def test_huge_input_is_refused_with_a_short_message() -> None:
    huge = "TP1-E-" + "A" * 1_000_000
    with pytest.raises(CodeError) as caught:
        GameCode.parse(huge)
    message = str(caught.value)
    assert len(message) < 300
    assert "'TP1-E-AAAA" in message
    assert "TP1-E-AAAAAAB" in message
    with pytest.raises(CodeError):
        GameCode.parse("https://example.org/" + "x/" * 200_000 + "TP1-E-AAAAAAB" + "y" * 10)


@pytest.mark.parametrize("value", [None, 1, b"TP1-E-AAAAAAB", ["TP1-E-AAAAAAB"]])
def test_non_strings_are_refused(value: object) -> None:
    with pytest.raises(CodeError):
        GameCode.parse(value)  # type: ignore[arg-type]


def test_code_error_is_a_value_error() -> None:
    assert issubclass(CodeError, ValueError)


@pytest.mark.parametrize("number", [-1, 26**7, 2**64])
def test_deal_numbers_out_of_range(number: int) -> None:
    with pytest.raises(CodeError):
        GameCode(Rules.EASY, number)


@pytest.mark.parametrize(
    "number", [0, 1, 25, 26, 27, 675, 676, 12_345_678, 3_855_268_884, 26**7 - 2, 26**7 - 1]
)
@pytest.mark.parametrize("rules", list(Rules))
def test_round_trip(number: int, rules: Rules) -> None:
    code = GameCode(rules, number)
    assert GameCode.parse(code.text()) == code
    assert GameCode.parse(code.text().lower()) == code
    assert GameCode.parse(f"https://example.org/g/{code.text()}") == code
    assert eval(repr(code), {"GameCode": GameCode}) == code
    text = code.text()
    assert len(text) == 13 and text.startswith(f"TP1-{rules.letter}-")


def test_parsing_is_a_pure_function() -> None:
    first = GameCode.parse(" tp1-c-abcdefg ")
    second = GameCode.parse("TP1-C-ABCDEFG")
    assert first == second and hash(first) == hash(second)


def test_random_codes_are_valid() -> None:
    codes = {GameCode.random() for _ in range(50)}
    assert len(codes) > 40
    for code in codes:
        assert code.rules is Rules.EASY and 0 <= code.number < DEAL_COUNT
    assert GameCode.random(Rules.CLASSIC).rules is Rules.CLASSIC


def test_daily_code_is_pinned() -> None:
    assert GameCode.daily(dt.date(2025, 1, 1)).text() == "TP1-E-TOFTAXB"
    # docs/deals.md's worked example.
    assert dt.date(2025, 1, 1).toordinal() == 739_252
    assert GameCode.daily(dt.date(2025, 1, 1)).number == 6_038_358_431
    assert GameCode.daily(dt.date(2025, 1, 2)).text() == "TP1-E-UDWZRFE"
    assert GameCode.daily(dt.date(2000, 2, 29), Rules.CLASSIC).text() == "TP1-C-NMACVEM"


def test_daily_code_is_deterministic_and_changes_every_day() -> None:
    start = dt.date(2024, 1, 1)
    days = [start + dt.timedelta(days=i) for i in range(3 * 366)]
    codes = [GameCode.daily(day) for day in days]
    assert codes == [GameCode.daily(day) for day in days]
    for a, b in itertools.pairwise(codes):
        assert a != b
    assert len({c.number for c in codes}) == len(codes)
    assert GameCode.daily(start, Rules.CLASSIC).number == codes[0].number
