"""The app ``bench/web.py`` serves: the app as shipped, plus the benchmark's trivial page, and
with ``TRIPEAKS_BENCH_WITHOUT`` the plain version of any of the move's clever parts.

``bench/web.py`` compares a move with the cheapest request that goes the way the app's pages
go: a plain ``def`` route, so one hop to the thread pool, through every middleware, the
player's cookie read and its signature checked. That was ``/healthz`` when the bench's
targets were set (0.57 at 08f8c2c); since 7ad3088 ``/healthz`` is a coroutine that skips the
player cookie (monitors get none), about a third of that cost, so it no longer stands for a
page. Both are measured; docs/performance.md gives the two ratios.

Each clever part on the move's path is kept only while it pays (docs/performance.md, "The
clever parts"); ``TRIPEAKS_BENCH_WITHOUT=move-route,slot-key,...`` puts back, for the
bench alone, the plain way each one replaced (:data:`PARTS`), so ``bench/web.py --guard``
can measure a move with and without it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import jinja2
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse
from fastapi.routing import APIRoute

from app.engine import Card
from app.engine.layout import Layout
from app.i18n import Locale
from app.web.main import create_app as create_shipped_app
from app.web.presentation.render import TEMPLATES_DIR, Pages, _Slots
from app.web.routes.moves import MoveRoute

TRIVIAL_PAGE = "/bench/trivial"


def plain_move_routes(app: FastAPI) -> None:
    """The moves through FastAPI's own route handler (its dependency solving), not MoveRoute's."""
    routes = app.router.routes
    for i, route in enumerate(routes):
        if isinstance(route, MoveRoute):
            routes[i] = APIRoute(
                route.path, route.endpoint, methods=route.methods, name=route.name,
                openapi_extra=route.openapi_extra,
            )


def plain_slot_key(app: FastAPI) -> None:
    """Each slot's HTML looked up by a tuple of its card and flags, not by one packed number."""
    pages: Pages = app.state.pages
    slots = _Slots(pages.env)
    kept: dict[tuple[object, ...], str] = {}

    def html(position: int, card_index: int, removed: bool, turned: bool, hinted: bool, words: Locale,
             covered: bool = False, layout: Layout | None = None) -> str:
        card = Card.from_index(card_index) if card_index >= 0 else None
        key = (layout, position, card, covered, removed, turned, hinted, words)
        found = kept.get(key)
        if found is None:
            found = kept[key] = slots.html(position, card_index, removed, turned, hinted, words, covered, layout)
        return found

    pages._slot = html  # type: ignore[method-assign]


def plain_run_clock(app: FastAPI) -> None:
    """The run-and-clock block as an include of its own template, not inline in game.html."""
    pages: Pages = app.state.pages
    page = (Path(TEMPLATES_DIR) / "game.html").read_text()
    found = re.search(r"(\{% block run_clock %\})(.*?)(\{% endblock %\})", page, re.S)
    assert found is not None, "game.html has no run_clock block"
    included = page[: found.start(2)] + '{% include "_bench_run_clock.html" %}' + page[found.end(2):]
    pages.env.loader = jinja2.ChoiceLoader([
        jinja2.DictLoader({"game.html": included, "_bench_run_clock.html": found.group(2)}),
        pages.env.loader,  # type: ignore[list-item]
    ])
    pages.env.cache.clear()  # type: ignore[union-attr]


PARTS: dict[str, Callable[[FastAPI], None]] = {
    "move-route": plain_move_routes,
    "slot-key": plain_slot_key,
    "inline-clock": plain_run_clock,
}
"""Each clever part on a move's path, by name, and what puts its plain version back."""


def create_app() -> FastAPI:
    app = create_shipped_app()

    @app.get(TRIVIAL_PAGE, include_in_schema=False)
    def trivial_page() -> PlainTextResponse:
        return PlainTextResponse("ok\n")

    for part in filter(None, os.environ.get("TRIPEAKS_BENCH_WITHOUT", "").split(",")):
        PARTS[part](app)
    return app
