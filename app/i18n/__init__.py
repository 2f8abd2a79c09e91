"""Languages: English, Hebrew, Ukrainian and Thai, from gettext catalogs (Babel).

- ``locales/<lang>/LC_MESSAGES/messages.po`` hold the translations (see ``docs/i18n.md``);
  they are compiled to ``.mo`` at start when needed (:mod:`app.i18n.catalogs`).
- :func:`choose_language` picks a request's language: the ``tp_lang`` cookie (the
  player's choice), else ``Accept-Language``, else English.
- :class:`Locale` is one language's words; :func:`current_locale` is the one the
  current request speaks (set by :class:`app.web.middleware.language.LocaleMiddleware`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Final

from app.i18n.catalogs import load_translations
from app.i18n.locale import LANGUAGE_NAMES, RTL_LANGUAGES, Locale
from app.i18n.messages import N_
from app.i18n.negotiation import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    choose_language,
    from_accept_language,
    parse_accept_language,
    supported,
)

LANGUAGE_COOKIE: Final = "tp_lang"

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LANGUAGE_COOKIE",
    "LANGUAGE_NAMES",
    "N_",
    "RTL_LANGUAGES",
    "Locale",
    "choose_language",
    "current_locale",
    "from_accept_language",
    "get_locale",
    "load_all",
    "parse_accept_language",
    "supported",
    "use_locale",
]


@cache
def get_locale(code: str) -> Locale:
    """The :class:`Locale` of a supported language code (made once, then shared)."""
    if code not in LANGUAGES:
        raise ValueError(f"unsupported language {code!r}: expected one of {', '.join(LANGUAGES)}")
    return Locale(code, load_translations(code))


def load_all() -> None:
    """Load (and compile if needed) every catalog now, so a broken one fails at start."""
    for code in LANGUAGES:
        get_locale(code)


_current: ContextVar[Locale | None] = ContextVar("tripeaks_locale", default=None)


def current_locale() -> Locale:
    """The language of the request being handled (English outside a request)."""
    return _current.get() or get_locale(DEFAULT_LANGUAGE)


@contextmanager
def use_locale(locale: Locale) -> Iterator[Locale]:
    """Speak ``locale`` inside the ``with`` block (the middleware does this per request)."""
    token = _current.set(locale)
    try:
        yield locale
    finally:
        _current.reset(token)
