"""Catalog chores: ``python -m app.i18n check`` and ``python -m app.i18n fill-english``.

``check`` lists, per language, the messages still untranslated or marked fuzzy
(the tests refuse both). ``fill-english`` copies the English message ids into
the English catalog's empty translations after a ``pybabel update``: English is
the source language, so its translation is its message id.
"""

from __future__ import annotations

import sys

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from app.i18n.catalogs import po_path
from app.i18n.negotiation import LANGUAGES


def _read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as file:
        return read_po(file, locale=lang)


def _translated(string: object) -> bool:
    return all(string) if isinstance(string, (tuple, list)) else bool(string)


def check() -> int:
    problems = 0
    for lang in LANGUAGES:
        for message in _read(lang):
            if not message.id:
                continue
            if not _translated(message.string) or message.fuzzy:
                problems += 1
                state = "fuzzy" if message.fuzzy else "untranslated"
                print(f"{lang}: {state}: {message.id!r}")
    print("all catalogs complete" if not problems else f"{problems} to do")
    return 1 if problems else 0


def fill_english() -> int:
    catalog = _read("en")
    filled = 0
    for message in catalog:
        if not message.id or (_translated(message.string) and not message.fuzzy):
            continue
        message.string = tuple(message.id) if isinstance(message.id, tuple) else message.id
        message.flags.discard("fuzzy")
        filled += 1
    with po_path("en").open("wb") as file:
        write_po(file, catalog, width=0)
    print(f"en: {filled} filled")
    return 0


def main(argv: list[str]) -> int:
    commands = {"check": check, "fill-english": fill_english}
    if len(argv) != 1 or argv[0] not in commands:
        print("usage: python -m app.i18n check | fill-english", file=sys.stderr)
        return 2
    return commands[argv[0]]()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
