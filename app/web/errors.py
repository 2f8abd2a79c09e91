"""Errors as the player or the client sees them: a page in the player's language, or the JSON
API's problem details (RFC 9457, :mod:`app.web.problems`) for a path under ``/api/``; never a
bare 500.

* an HTTP error (404, 405, a route's 400 or 409): its status and its detail, translated;
* the store unreachable: 503 with ``Retry-After: 5`` (nothing was changed);
* a request the routes cannot read: 422 (the JSON API lists what was wrong).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.i18n import N_, current_locale
from app.store.base import StoreUnavailable
from app.web.ops import metrics
from app.web.presentation.render import Pages
from app.web.problems import problem_response


def handle_errors(app: FastAPI) -> None:
    """Install the app's exception handlers."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        code = getattr(error, "error", None)
        return error_response(request, error.status_code, str(error.detail), error.headers, code)

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(request: Request, error: StoreUnavailable) -> Response:
        # Nothing was changed: the player can simply try again.
        metrics.store_error("request")
        detail = N_("The game store cannot be reached just now. Nothing was lost: try again in a moment.")
        return error_response(request, 503, detail, {"Retry-After": "5"}, "store_unavailable")

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> Response:
        if wants_json(request):
            detail = current_locale().gettext(N_("That request is not one the game understands."))
            return problem_response(422, detail, errors=jsonable_errors(error))
        return error_response(request, 422, N_("That request is not one the game understands."))


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def jsonable_errors(error: RequestValidationError) -> list[dict[str, Any]]:
    return [
        {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
        for e in error.errors()
    ]


def error_response(
    request: Request,
    status: int,
    detail: str,
    headers: Mapping[str, str] | None = None,
    code: str | None = None,
) -> Response:
    if detail:  # details the catalogs know are translated
        detail = current_locale().gettext(detail)
    if wants_json(request):
        return problem_response(status, detail, code, dict(headers) if headers else None)
    if status == 404 and detail == current_locale().gettext("Not Found"):
        detail = ""  # Starlette's word for an unknown URL: the page's heading says it already
    page_renderer: Pages = request.app.state.pages
    return page_renderer.page(
        "error.html",
        {"request": request, "status_code": status, "detail": detail, "oob": False},
        status_code=status,
        headers=headers,
    )
