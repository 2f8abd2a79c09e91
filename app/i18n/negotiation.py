"""Which language a request gets: the player's choice (a cookie), else ``Accept-Language``, else English."""

from __future__ import annotations

import re
from typing import Final

LANGUAGES: Final = ("en", "he", "uk", "th")
"""The languages the app speaks, English first (the default)."""

DEFAULT_LANGUAGE: Final = "en"

_ALIASES: Final = {"iw": "he"}
"""Old language codes some browsers still send (``iw`` was Hebrew's code before 1989)."""

_TAG: Final = re.compile(r"[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*|\*")
_MAX_HEADER: Final = 1000
_MAX_ITEMS: Final = 40


def supported(code: str | None) -> str | None:
    """The supported language a code names (``he``, ``he-IL``, ``HE_il``, ``iw``), or ``None``."""
    if not code:
        return None
    primary = re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]
    primary = _ALIASES.get(primary, primary)
    return primary if primary in LANGUAGES else None


def parse_accept_language(header: str | None) -> list[tuple[str, float]]:
    """The language ranges of an ``Accept-Language`` header with their weights, best first.

    Lenient: a malformed item is skipped, a malformed weight counts as 1, weights are
    clamped to 0..1, and an overlong header is cut. Never raises.
    """
    if not header:
        return []
    ranges: list[tuple[str, float]] = []
    for item in header[:_MAX_HEADER].split(",")[:_MAX_ITEMS]:
        tag, _, params = item.strip().partition(";")
        tag = tag.strip()
        if not _TAG.fullmatch(tag):
            continue
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 1.0
                if weight != weight:  # NaN
                    weight = 0.0
                weight = min(max(weight, 0.0), 1.0)
        ranges.append((tag, weight))
    # Stable: equal weights keep the header's order.
    return sorted(ranges, key=lambda pair: -pair[1])


def from_accept_language(header: str | None) -> str | None:
    """The best supported language the header accepts (weight above 0), or ``None``."""
    for tag, weight in parse_accept_language(header):
        if weight <= 0:
            continue
        language = supported(tag)
        if language is not None:
            return language
    return None


def choose_language(cookie: str | None, accept_language: str | None) -> str:
    """The player's choice, else the browser's preference, else English."""
    return supported(cookie) or from_accept_language(accept_language) or DEFAULT_LANGUAGE
