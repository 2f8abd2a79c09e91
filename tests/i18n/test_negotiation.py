"""Choosing the language: the cookie, else Accept-Language (parsed leniently), else English."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.i18n import choose_language, from_accept_language, parse_accept_language, supported


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("he", "he"),
        ("he-IL,he;q=0.9,en-US;q=0.8,en;q=0.7", "he"),
        ("en-US,en;q=0.9,uk;q=0.8", "en"),
        ("fr-FR, fr;q=0.9, uk;q=0.5, th;q=0.8", "th"),
        ("de, *;q=0.5", None),
        ("iw-IL", "he"),
        ("UK-ua", "uk"),
        ("th_TH", "th"),
        ("he;q=0, uk;q=0.1", "uk"),
        ("he;q=0.000", None),
        ("uk;q=abc", "uk"),  # a broken weight counts as 1
        ("uk;q=0.4, th;q=nan", "uk"),
        ("th;q=2, he;q=0.9", "th"),  # clamped to 1
        ("th;q=-1, he", "he"),
        ("", None),
        (None, None),
        (";;;,,,", None),
        ("\x00\x01garbage", None),
        ("😀, he", "he"),
        ("he" * 1000, None),
        ("en-GB;level=1;q=0.5", "en"),
    ],
)
def test_accept_language(header: str | None, expected: str | None) -> None:
    assert from_accept_language(header) == expected


def test_weights_sort_best_first_and_keep_order_on_ties() -> None:
    assert parse_accept_language("a;q=0.5, b, c;q=0.5, d;q=1") == [
        ("b", 1.0),
        ("d", 1.0),
        ("a", 0.5),
        ("c", 0.5),
    ]


def test_the_cookie_beats_the_header_and_english_is_the_default() -> None:
    assert choose_language("th", "he") == "th"
    assert choose_language("xx", "he") == "he"
    assert choose_language(None, None) == "en"
    assert choose_language("", "de-DE") == "en"
    assert supported(" HE ") == "he" and supported("zz") is None


@given(st.text(max_size=300))
def test_any_header_gives_a_language(header: str) -> None:
    assert choose_language(None, header) in ("en", "he", "uk", "th")
