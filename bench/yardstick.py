"""The app ``bench/web.py`` serves: the app as shipped, plus the benchmark's trivial page.

``bench/web.py`` compares a move with the cheapest request that goes the way the app's pages
go: a plain ``def`` route, so one hop to the thread pool, through every middleware, the
player's cookie read and its signature checked. That was ``/healthz`` when the bench's
targets were set (0.57 at 08f8c2c); since 7ad3088 ``/healthz`` is a coroutine that skips the
player cookie (monitors get none), about a third of that cost, so it no longer stands for a
page. Both are measured; docs/performance.md gives the two ratios.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

from app.web.main import create_app as create_shipped_app

TRIVIAL_PAGE = "/bench/trivial"


def create_app() -> FastAPI:
    app = create_shipped_app()

    @app.get(TRIVIAL_PAGE, include_in_schema=False)
    def trivial_page() -> PlainTextResponse:
        return PlainTextResponse("ok\n")

    return app
