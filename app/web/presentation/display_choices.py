"""The player's Display choices (card back, table, deck) as cookies, and what every page makes of
them: the classes of ``<html>`` and the browser's theme colour; and the page a settings form was
sent from. The Display page and the settings' routes are ``app/web/routes/display.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from fastapi import Request

from app.i18n import N_
from app.web.middleware.player_cookie import read_cookies

SETTING_MAX_AGE: Final = 400 * 24 * 3600


@dataclass(frozen=True, slots=True)
class Choice:
    """One of the Display page's questions: its cookie and its values (the first, the game's own)."""

    field: str
    cookie: str
    values: tuple[tuple[str, str], ...]
    """(value, its name for the player, to be translated)."""

    def of(self, request: Request | None) -> str:
        kept = read_cookies(request.scope).get(self.cookie) if request is not None else None
        return kept if kept in self.words() else self.values[0][0]

    def words(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.values)


BACK: Final = Choice(
    "back", "tp_back", (("blue", N_("Blue")), ("red", N_("Red")), ("lattice", N_("Lattice")))
)


TABLE: Final = Choice(
    "table", "tp_table", (("green", N_("Green felt")), ("blue", N_("Blue felt")), ("wine", N_("Wine felt")))
)


DECK: Final = Choice(
    "deck",
    "tp_deck",
    (("two", N_("Two colours: red and black")), ("four", N_("Four colours: diamonds blue, clubs green"))),
)


CHOICES: Final = (BACK, TABLE, DECK)


THEME_COLOURS: Final = {"green": "#0b5a33", "blue": "#0c3d63", "wine": "#5c1a2a"}
"""The light felt of each table: the browser's colour for the page (``theme-color``)."""


def display_classes(request: Request | None) -> str:
    """The classes of ``<html>`` for the player's choices: ``back-blue table-green deck-two``."""
    return " ".join(f"{choice.field}-{choice.of(request)}" for choice in CHOICES)


def theme_colour(request: Request | None) -> str:
    return THEME_COLOURS[TABLE.of(request)]


def back_to(request: Request) -> str:
    """The page the form was sent from (a path on this site), else the home page."""
    referer = request.headers.get("referer", "")
    try:
        parts = urlsplit(referer)
    except ValueError:
        return "/"
    if parts.netloc != request.url.netloc or not parts.path.startswith("/") or parts.path.startswith("//"):
        return "/"
    if parts.path.startswith("/settings/"):
        return "/"
    return parts.path + (f"?{parts.query}" if parts.query else "")
