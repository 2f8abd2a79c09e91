"""Templates: one page template per screen, with named blocks that htmx swaps.

A plain request gets the whole page; an htmx request (``HX-Request: true``)
gets only the blocks it swaps, rendered from the same template (one context
for all of them). Every response says ``Vary: HX-Request``.

Every render speaks the request's language: :meth:`Pages.page` and
:meth:`Pages.blocks` add the current locale's ``template_context`` (newstyle
``gettext``/``ngettext``/``pgettext``, which ``_()`` and ``{% trans %}`` use,
``lang``, ``dir``, ``card_words``, ``describe``, ``refusal_message``) under the
route's own context. The environment's null translations are only a fallback.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

import jinja2
from jinja2.runtime import Context
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from app.engine import Card, Game
from app.engine.layout import Layout
from app.i18n import LANGUAGE_NAMES, LANGUAGES, Locale, current_locale
from app.i18n.locale import CODE_EXAMPLE
from app.web.presentation.clock import clock_text, duration_iso, game_clock
from app.web.presentation.display_choices import display_classes, theme_colour
from app.web.presentation.layouts_on_page import (
    LAYOUT_INDEX,
    board_classes,
    card_classes,
    layout_name,
    tableau_order,
)
from app.web.presentation.sentences import card_list, outlook_sentence, playable_words, status_sentence
from app.web.presentation.sound import sound_of, sound_on
from app.web.presentation.variants_on_page import game_label, variants_words
from app.web.presentation.views import Slot

ROOT: Final = Path(__file__).resolve().parents[3]


def _assets(name: str) -> Path:
    """``templates`` or ``static``: inside the package where a wheel installed them (setup.py),
    else at the top of the checkout (a checkout, or an editable install of one)."""
    packaged = Path(__file__).resolve().parents[2] / name
    return packaged if packaged.is_dir() else ROOT / name


TEMPLATES_DIR: Final = _assets("templates")
STATIC_DIR: Final = _assets("static")


@cache
def static_url(name: str) -> str:
    """``/static/name?v=<hash of the file>``, so browsers may cache static files for long."""
    digest = hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest()[:12]
    return f"/static/{name}?v={digest}"


@cache
def vendored(package: str) -> dict[str, str]:
    """A vendored front-end file: its URL and its subresource-integrity hash."""
    manifest: dict[str, dict[str, str]] = json.loads(
        (STATIC_DIR / "vendor" / "vendor.json").read_text(encoding="utf-8")
    )
    entry = manifest[package]
    return {"url": f"/static/vendor/{entry['file']}", "integrity": entry["integrity"]}


_PAGE_HEADERS: Final = {"Vary": "HX-Request", "Cache-Control": "no-store"}
"""Every page and fragment: its content depends on ``HX-Request``, and is never cached."""


def sentence(text: str) -> Markup:
    """The text with a capital first letter (``"ace of clubs to the waste."`` → ``"Ace of ..."``).

    A filter over markup the template already escaped: only its first character changes."""
    text = Markup(text).strip()
    return Markup(text[:1].upper() + text[1:])


def code_error_html(message: str) -> Markup:
    """A refused code's message with the example code and "A-Z" kept whole, left to right.

    Without it the example breaks at its hyphens (``TP1-E-`` / ``AAAAAAB``), and in a
    right-to-left page "A-Z)" is torn apart by the bidi algorithm."""
    html = str(escape(message))
    for part in (CODE_EXAMPLE, "A-Z"):
        html = html.replace(part, f'<bdi dir="ltr" class="nowrap">{part}</bdi>')
    return Markup(html)


def make_environment() -> jinja2.Environment:
    """The Jinja2 environment of every page: autoescaped, with the i18n extension."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        # Every template escapes: the locale's gettext callables mark their messages safe and
        # escape what is formatted into them (app.i18n.locale._newstyle) on that basis.
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,
    )
    env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
    env.globals["static_url"] = static_url
    env.globals["vendored"] = vendored
    env.globals["card_words"] = Card.words
    env.globals["card_list"] = card_list
    env.globals["playable_words"] = playable_words
    env.globals.update(game_label=game_label, variants_words=variants_words)  # variants_on_page.py
    env.globals.update(  # layouts_on_page.py
        layout_name=layout_name,
        board_classes=board_classes,
        card_classes=card_classes,
        tableau_order=tableau_order,
    )
    env.filters["sentence"] = sentence
    env.filters["code_error_html"] = code_error_html
    env.globals["languages"] = tuple((code, LANGUAGE_NAMES[code]) for code in LANGUAGES)
    # The run and the clock (app/web/presentation/clock.py).
    env.globals.update(game_clock=game_clock, clock_text=clock_text, duration_iso=duration_iso)
    env.globals.update(sound_of=sound_of, sound_on=sound_on)  # app/web/presentation/sound.py

    env.globals.update(outlook_sentence=outlook_sentence, status_sentence=status_sentence)
    # The player's Display choice (app/web/presentation/display_choices.py).

    env.globals.update(display_classes=display_classes, theme_colour=theme_colour)
    return env


def localized(context: Mapping[str, Any]) -> dict[str, Any]:
    """The route's context over the current language's (gettext, ``lang``, ``dir``, card words)."""
    return {**current_locale().template_context, **context}


class _Slots:
    """One tableau position's HTML from ``_slot.html``, kept per distinct shape and language.

    The table repeats the same few shapes of each position over and over (removed, face
    down, face up, just turned, hinted); each is rendered once per language, then reused.
    A shape is looked up by one number (layout, position, card, and the four flags packed):
    one look-up per position a move, where hashing a card, or a tuple of them, is a Python
    call each time. Kept while it pays: ``bench/web.py --guard`` (``slot-key``), docs/performance.md.
    """

    MOST: Final = 20_000
    """Shapes kept per language at most (up to 30 positions, 54 faces and 16 sets of flags a
    layout can occur)."""

    def __init__(self, env: jinja2.Environment) -> None:
        self._macro = env.get_template("_slot.html").module.slot_html  # type: ignore[attr-defined]
        self._kept: dict[Locale, dict[int, str]] = {}

    def html(
        self,
        position: int,
        card_index: int,
        removed: bool,
        turned: bool,
        hinted: bool,
        words: Locale,
        covered: bool = False,
        layout: Layout | None = None,
        playable: bool = False,
    ) -> str:
        """``card_index``: the face-up card's place in the deck (52 the joker), -1 for a
        face-down card; ``covered``: face up but not exposed (open peaks); ``layout``: the
        game's (three peaks if not given); ``playable``: it can be removed now (its touch
        target reaches over its neighbours', static/tripeaks.css)."""
        index = LAYOUT_INDEX[layout] if layout is not None else 0
        key = (
            index << 17
            | playable << 16
            | position << 10
            | (card_index + 1) << 4
            | covered << 3
            | removed << 2
            | turned << 1
            | hinted
        )
        kept = self._kept.get(words)
        if kept is None:
            kept = self._kept[words] = {}
        found = kept.get(key)
        if found is None:
            card = Card.from_index(card_index) if card_index >= 0 else None
            place = card_classes(layout if layout is not None else next(iter(LAYOUT_INDEX)))[position]
            view = Slot(position, card, card is not None, removed, turned, hinted, covered, place, playable)
            name = words.card_words(card) if card else ""
            # (Open peaks: a face-up card still covered says so in its name.)
            label = words.gettext("%(card)s, covered") % {"card": name} if covered else name
            found = str(self._macro(view, name, words.hidden_card, label))
            if len(kept) >= self.MOST:
                kept.clear()
            found = kept[key] = found.strip()
        return found


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


class Pages:
    """Renders a page template whole or by blocks."""

    def __init__(self, env: jinja2.Environment) -> None:
        self.env = env
        self._slot = _Slots(env).html

    def load_all(self) -> None:
        """Compile every template now rather than on its first request."""
        for name in self.env.list_templates(extensions=["html"]):
            self.env.get_template(name)

    def tableau(self, game: Game, *, turned: frozenset[int] = frozenset(), hint: int | None = None) -> Markup:
        """The tableau's positions in its layout's order, in the current language.

        A face-down card is rendered without its card: nothing here reveals it. Which cards
        are face up is the engine's to say (:meth:`Game.face_up_mask`: the exposed ones, or
        with open peaks every card on the board). ``turned`` are the positions the last
        action turned face up; ``hint`` is a position to mark.
        """
        words = current_locale()
        layout = game.layout
        removed = game.removed_mask
        face_up = game.face_up_mask()
        covered = face_up & ~layout.exposed(removed)
        playable = game.playable_mask()
        cards = game.deal.tableau
        slot = self._slot
        return Markup(
            "\n".join(
                [
                    slot(
                        p,
                        cards[p].index if face_up >> p & 1 else -1,
                        bool(removed >> p & 1),
                        p in turned,
                        p == hint,
                        words,
                        bool(covered >> p & 1),
                        layout,
                        bool(playable >> p & 1),
                    )
                    for p in tableau_order(layout)
                ]
            )
        )

    def page(
        self,
        name: str,
        context: Mapping[str, Any],
        *,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> HTMLResponse:
        template, shared = self._context(name, context)
        try:
            html = self.env.concat(template.root_render_func(shared))
        except Exception:
            self.env.handle_exception()
        return self._response(html, status_code, headers)

    def blocks(
        self,
        name: str,
        block_names: Sequence[str],
        context: Mapping[str, Any],
        *,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> HTMLResponse:
        template, shared = self._context(name, context)
        try:
            html = "".join([self.env.concat(template.blocks[block](shared)) for block in block_names])
        except Exception:
            self.env.handle_exception()
        return self._response(html, status_code, headers)

    def _context(self, name: str, context: Mapping[str, Any]) -> tuple[jinja2.Template, Context]:
        """The template and one render context for it, Jinja's own: its globals, the language's,
        the route's. (Copying the globals once instead of at every render paid about 3 % of a
        move, not the tenth a clever part must pay: docs/performance.md, "The clever parts".)"""
        template = self.env.get_template(name)
        return template, template.new_context(localized(context))

    @staticmethod
    def _response(html: str, status_code: int, headers: Mapping[str, str] | None) -> HTMLResponse:
        return HTMLResponse(html, status_code=status_code, headers={**(headers or {}), **_PAGE_HEADERS})
