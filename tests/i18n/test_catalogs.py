"""The gettext catalogs: complete in every language, right plural forms, in step with the sources."""

from __future__ import annotations

import io
import os

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from app.i18n import LANGUAGES, catalogs
from app.web.presentation.render import ROOT

BABEL_CFG = ROOT / "app" / "i18n" / "babel.cfg"
POT = catalogs.LOCALES_DIR / "messages.pot"
NPLURALS = {"en": 2, "he": 3, "uk": 3, "th": 1}


def read(lang: str) -> Catalog:
    with catalogs.po_path(lang).open("rb") as file:
        return read_po(file, locale=lang)


def key(message_id: str | tuple[str, ...], context: str | None) -> tuple[str, str | None]:
    return (message_id[0] if isinstance(message_id, tuple) else message_id), context


def source_messages() -> dict[tuple[str, str | None], object]:
    """Every message the templates and the app's Python code mark, extracted as pybabel does."""
    with BABEL_CFG.open(encoding="utf-8") as file:
        method_map, options_map = parse_mapping_cfg(file)
    found = {}
    for _file, _line, message, _comments, context in extract_from_dir(ROOT, method_map, options_map):
        found[key(message, context)] = message
    return found


def test_the_languages_are_english_hebrew_ukrainian_and_thai() -> None:
    assert LANGUAGES == ("en", "he", "uk", "th")
    for lang in LANGUAGES:
        assert catalogs.po_path(lang).is_file(), lang


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalog_is_complete(lang: str) -> None:
    catalog = read(lang)
    messages = [m for m in catalog if m.id]
    assert len(messages) > 50
    untranslated = [m.id for m in messages if not (all(m.string) if m.pluralizable else m.string)]
    assert untranslated == [], f"{lang}: untranslated {untranslated}"
    fuzzy = [m.id for m in messages if m.fuzzy]
    assert fuzzy == [], f"{lang}: fuzzy (check and clear the flag) {fuzzy}"
    assert catalog.obsolete == {}, f"{lang}: obsolete entries left by pybabel update"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_forms_follow_the_language(lang: str) -> None:
    catalog = read(lang)
    rule = get_plural(lang)
    assert catalog.num_plurals == NPLURALS[lang] == rule.num_plurals
    assert catalog.plural_expr == rule.plural_expr  # the header is Babel's (CLDR) rule
    for message in catalog:
        if message.id and message.pluralizable:
            assert len(message.string) == NPLURALS[lang], (lang, message.id)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_keep_the_placeholders(lang: str) -> None:
    catalog = read(lang)
    problems = [(m.id, [str(e) for e in errors]) for m, errors in catalog.check()]
    assert problems == []
    # A translation may leave out a placeholder only in a plural form that names its number
    # in words ("קלף אחד"); otherwise every placeholder of the English is kept.
    for message in catalog:
        if not message.id or message.pluralizable:
            continue
        for name in ("%(card)s", "%(code)s", "%(waste)s", "%(form)s", "%(example)s", "%(score)s"):
            if name in message.id:
                assert name in message.string, (lang, message.id)


def test_every_marked_message_is_in_every_catalog() -> None:
    """Run ``pybabel extract`` and ``pybabel update`` (docs/i18n.md) after adding a string."""
    wanted = source_messages()
    assert ("Rank must be one higher or lower", None) in wanted
    assert ("ace", "rank") in wanted
    with POT.open("rb") as file:
        template = {key(m.id, m.context) for m in read_po(file) if m.id}
    assert set(wanted) - template == set(), "messages.pot is out of date: run pybabel extract"
    for lang in LANGUAGES:
        have = {key(m.id, m.context) for m in read(lang) if m.id}
        assert set(wanted) - have == set(), f"{lang}: run pybabel update"
        assert have - set(wanted) == set(), f"{lang}: messages no longer in the sources"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_missing_or_stale_mo_is_compiled_at_start(lang: str, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    work = tmp_path / "locales"
    (work / lang / "LC_MESSAGES").mkdir(parents=True)
    po = work / lang / "LC_MESSAGES" / "messages.po"
    po.write_bytes(catalogs.po_path(lang).read_bytes())
    monkeypatch.setattr(catalogs, "LOCALES_DIR", work)
    assert catalogs.is_stale(lang)
    data = catalogs.mo_bytes(lang)
    mo = work / lang / "LC_MESSAGES" / "messages.mo"
    assert mo.read_bytes() == data and not catalogs.is_stale(lang)
    compiled = read_mo(io.BytesIO(data))
    assert compiled.get("This card is blocked").string == read(lang).get("This card is blocked").string
    # An edited .po makes the .mo stale again.
    po.write_bytes(po.read_bytes() + b"\n")
    os.utime(mo, ns=(0, 0))
    assert catalogs.is_stale(lang)


def test_a_read_only_folder_still_gets_its_catalogs(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    work = tmp_path / "locales"
    (work / "he" / "LC_MESSAGES").mkdir(parents=True)
    (work / "he" / "LC_MESSAGES" / "messages.po").write_bytes(catalogs.po_path("he").read_bytes())
    monkeypatch.setattr(catalogs, "LOCALES_DIR", work)

    def refuse(path, data):  # type: ignore[no-untyped-def]
        raise PermissionError(path)

    monkeypatch.setattr(catalogs, "_write_atomically", refuse)
    translations = catalogs.load_translations("he")
    assert translations.gettext("This card is blocked") == "הקלף הזה חסום"
