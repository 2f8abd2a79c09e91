"""Devices as the pages show them: a browser's kind from its user agent, in the player's words;
the QR code of a link (SVG drawn on the server with segno); dates and times.

A kind is kept as ``Browser/System`` (``Firefox/Android``; ``?`` for what the user agent does
not say): names of products, the same in every language. The sentence around them
("Firefox on Android") is the catalog's.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

import segno
from babel.dates import format_datetime
from markupsafe import Markup, escape

from app.i18n import current_locale

BROWSERS: Final = (
    ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("Edg/", "Edge"), ("OPR/", "Opera"), ("OPiOS/", "Opera"),
    ("SamsungBrowser/", "Samsung Internet"), ("YaBrowser/", "Yandex Browser"), ("Vivaldi/", "Vivaldi"),
    ("FxiOS/", "Firefox"), ("Firefox/", "Firefox"), ("CriOS/", "Chrome"), ("Chromium/", "Chromium"),
    ("Chrome/", "Chrome"), ("Safari/", "Safari"),
)  # fmt: skip
"""Tokens of the user agent, the most specific first (Edge and Opera say ``Chrome/`` too)."""
SYSTEMS: Final = (
    ("Android", "Android"), ("iPhone", "iOS"), ("iPad", "iPadOS"), ("CrOS", "ChromeOS"),
    ("Windows", "Windows"), ("Mac OS X", "macOS"), ("Macintosh", "macOS"), ("Linux", "Linux"),
)  # fmt: skip
UNKNOWN: Final = "?"


def device_kind(user_agent: str) -> str:
    """``Browser/System`` from a user agent (``?`` for a part it does not name)."""
    browser = next((name for token, name in BROWSERS if token in user_agent), UNKNOWN)
    system = next((name for token, name in SYSTEMS if token in user_agent), UNKNOWN)
    return f"{browser}/{system}"


def kind_words(kind: str) -> str:
    """The kind as a person reads it, in the current language: "Firefox on Android"."""
    words = current_locale()
    browser, _, system = kind.partition("/")
    if browser != UNKNOWN and system not in (UNKNOWN, ""):
        return words.gettext("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    if browser != UNKNOWN:
        return browser
    if system not in (UNKNOWN, ""):
        return words.gettext("A browser on %(system)s") % {"system": system}
    return words.gettext("A browser")


def when_text(epoch: float) -> str:
    """A date and time in the current language (UTC, as the daily deal's days are)."""
    moment = dt.datetime.fromtimestamp(epoch, dt.UTC)
    return format_datetime(moment, "medium", tzinfo=dt.UTC, locale=current_locale().code)


def iso(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat()


def spelled(code: str) -> str:
    """A code as a screen reader should read it, symbol by symbol: ``K7M-Q2X`` → ``K 7 M, Q 2 X``."""
    return ", ".join(" ".join(group) for group in code.split("-"))


def qr_svg(url: str, label: str) -> Markup:
    """The QR code of ``url`` as inline SVG: dark on light whatever the page's colours (a camera
    reads it so), with a quiet zone; named ``label`` for screen readers."""
    qr = segno.make(url, error="m", micro=False)
    svg = qr.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True, svgclass="qr-code")
    named = f'<svg role="img" aria-label="{escape(label)}" '
    return Markup(svg.replace("<svg ", named, 1))
