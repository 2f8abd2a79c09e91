"""Templates: one page template per screen, with named blocks that htmx swaps.

A plain request gets the whole page; an htmx request (``HX-Request: true``)
gets only the blocks it swaps, rendered from the same template with
``jinja2-fragments``. Every response says ``Vary: HX-Request``.

Every render speaks the request's language: :meth:`Pages.page` and
:meth:`Pages.blocks` add the current locale's ``template_context`` (newstyle
``gettext``/``ngettext``/``pgettext``, which ``_()`` and ``{% trans %}`` use,
``lang``, ``dir``, ``card_words``, ``describe``, ``refusal_message``) under the
route's own context. The environment's null translations are only a fallback.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Final

import jinja2
from jinja2_fragments import render_blocks
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse

from app.engine import Card
from app.i18n import LANGUAGE_NAMES, LANGUAGES, current_locale

ROOT: Final = Path(__file__).resolve().parents[2]
TEMPLATES_DIR: Final = ROOT / "templates"
STATIC_DIR: Final = ROOT / "static"


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


def make_environment() -> jinja2.Environment:
    """The Jinja2 environment of every page: autoescaped, with the i18n extension."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
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
    env.globals["languages"] = tuple((code, LANGUAGE_NAMES[code]) for code in LANGUAGES)
    return env


def localized(context: Mapping[str, Any]) -> dict[str, Any]:
    """The route's context over the current language's (gettext, ``lang``, ``dir``, card words)."""
    return {**current_locale().template_context, **context}


def _memoized_macro(env: jinja2.Environment, template: str, name: str) -> Callable[..., Markup]:
    """A template macro whose output is kept per distinct arguments (all hashable).

    The table repeats the same 28 slot shapes over and over; each is rendered once
    (per language) from its template and then reused.
    """
    macro = getattr(env.get_template(template).module, name)

    @lru_cache(maxsize=8192)
    def cached(*args: Hashable) -> Markup:
        return Markup(macro(*args).strip())

    return cached


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


class Pages:
    """Renders a page template whole or by blocks."""

    def __init__(self, env: jinja2.Environment) -> None:
        self.env = env
        self.slot_html = _memoized_macro(env, "_slot.html", "slot_html")
        """``slot_html(slot, card_name, hidden_label)``: one tableau position's HTML."""

    def page(
        self,
        name: str,
        context: Mapping[str, Any],
        *,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> HTMLResponse:
        html = self.env.get_template(name).render(localized(context))
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
        html = render_blocks(self.env, name, list(block_names), localized(context))
        return self._response(html, status_code, headers)

    @staticmethod
    def _response(html: str, status_code: int, headers: Mapping[str, str] | None) -> HTMLResponse:
        response = HTMLResponse(html, status_code=status_code, headers=headers)
        response.headers["Vary"] = "HX-Request"
        response.headers["Cache-Control"] = "no-store"
        return response
