"""The JSON API's one error shape: RFC 9457 problem details (docs/api.md, Errors).

Every refusal under ``/api/`` (the game's, a race's, an unknown id, a throttle, the store out of
reach, a request the API cannot read) answers ``application/problem+json``::

    {"type": "urn:tripeaks:problem:rank_mismatch", "title": "Conflict", "status": 409,
     "detail": "<why, in the player's language>", "error": "rank_mismatch"}

``error`` is the refusal's code (the game's own, e.g. ``card_blocked``, or one per status, e.g.
``not_found``), ``type`` the same code as a URN; a 422 adds ``errors``, FastAPI's list of what
was wrong (``loc``, ``msg``, ``type``). The pages keep their error pages (app/web/errors.py).
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any, Final

from fastapi import FastAPI, HTTPException
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.engine.deal import CODE_PATTERN

PROBLEM_JSON: Final = "application/problem+json"
TYPE_PREFIX: Final = "urn:tripeaks:problem:"

CODES: Final[dict[int, str]] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid_request",
    429: "too_many_requests",
    500: "server_error",
    503: "unavailable",
}
"""The ``error`` code of a refusal that has no more particular one, by its status."""


class ValidationIssue(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class Problem(BaseModel):
    """An RFC 9457 problem: what was refused and why."""

    type: str = Field(
        description="urn:tripeaks:problem:<error>", examples=["urn:tripeaks:problem:card_blocked"]
    )
    title: str = Field(description="The status's name (English), e.g. Conflict")
    status: int = Field(description="The HTTP status of the answer")
    detail: str = Field(description="Why, in the player's language (Accept-Language)")
    error: str = Field(
        description="The refusal's code: the game's (rank_mismatch, card_blocked, no_card, stock_empty,"
        " nothing_to_undo, game_over, attempt_unfinished, race_not_running, idempotency_key_reused,"
        " bad_code, bad_line, …) or the status's (not_found, forbidden, too_many_requests, …)",
        examples=["card_blocked"],
    )
    errors: list[ValidationIssue] | None = Field(
        default=None, description="A 422's list of what was wrong in the request (FastAPI's)"
    )
    index: int | None = Field(default=None, description="A review's bad line: the first bad action's index")


def code_of(status: int) -> str:
    return CODES.get(status, "refused" if status < 500 else "server_error")


def problem(status: int, detail: str, error: str | None = None, **extra: Any) -> dict[str, Any]:
    """The body of a problem answer."""
    code = error or code_of(status)
    try:
        title = HTTPStatus(status).phrase
    except ValueError:
        title = "Error"
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + code, "title": title, "status": status, "detail": detail, "error": code,
    }
    body.update(extra)
    return body


class ProblemResponse(JSONResponse):
    media_type = PROBLEM_JSON


def problem_response(
    status: int, detail: str, error: str | None = None, headers: dict[str, str] | None = None, **extra: Any
) -> ProblemResponse:
    return ProblemResponse(problem(status, detail, error, **extra), status_code=status, headers=headers)


def problem_bytes(status: int, detail: str, error: str | None = None) -> bytes:
    """A problem's body, for the pure ASGI middlewares."""
    return json.dumps(problem(status, detail, error)).encode()


class Refused(HTTPException):
    """An HTTP error with its own ``error`` code (the handler answers it as a problem under
    ``/api/``; a page shows its detail)."""

    def __init__(
        self, status: int, detail: str, error: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(status, detail, headers)
        self.error = error


# -- the OpenAPI document ------------------------------------------------------------------------

EVERY_API_ANSWER: Final[dict[int, str]] = {
    401: "A personal token that is not one (Authorization: Bearer)",
    422: "A request the API cannot read (errors lists what was wrong)",
    429: "Too many requests: wait Retry-After seconds",
    503: "The store cannot be reached just now; nothing was changed (Retry-After)",
}
"""What any operation under ``/api/`` may answer besides its own."""

WRITE_ANSWERS: Final[dict[int, str]] = {
    403: "Refused: the request came from another site",
    413: "Request body too large",
}


PATH_PATTERNS: Final[dict[str, str]] = {
    "game_id": r"^[A-Za-z0-9_-]{1,64}$",
    "race_id": r"^[A-Za-z0-9_-]{12}$",
    "device_id": r"^[A-Za-z0-9_-]{1,64}$",
    "token_id": r"^[A-Za-z0-9_-]{1,64}$",
    "code": CODE_PATTERN,
    "day": r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
    "line": r"^([0-9]{1,2}|d)(\.([0-9]{1,2}|d))*$",
}
"""The path parameters' forms, as the document tells them (a day that is no date, such as
2026-02-30, is a 404 like a day with no daily)."""

OWN_ANSWERS: Final[dict[str, dict[int, str]]] = {
    "/api/replay/": {400: "A bad code or line (bad_code, bad_line…, with index)",
                     403: "The deal's review is withheld while its daily is played"},
    "/api/passkeys": {409: "Passkeys cannot be used at this address"},
}
"""Statuses of a group of operations (by the start of their path) beyond :data:`EVERY_API_ANSWER`."""


def problem_content() -> dict[str, Any]:
    return {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}


def document_problems(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (FastAPI's OpenAPI) with the API's error answers as problems: every status
    each operation under ``/api/`` can answer, each as ``application/problem+json``."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in Problem.model_json_schema(ref_template="#/components/schemas/{model}").pop(
        "$defs", {}
    ).items():
        schemas[name] = schema
    schemas["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas["Problem"].pop("$defs", None)
    for path, operations in document.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            answers = dict(EVERY_API_ANSWER)
            if method != "get":
                answers.update(WRITE_ANSWERS)
            if "{" in path:
                answers.setdefault(404, "Not found")
            for start, more in OWN_ANSWERS.items():
                if path.startswith(start):
                    answers.update(more)
            for parameter in operation.get("parameters", []):
                pattern = PATH_PATTERNS.get(parameter["name"])
                if parameter.get("in") == "path" and pattern:
                    parameter.setdefault("schema", {})["pattern"] = pattern
            for status, description in answers.items():
                responses.setdefault(str(status), {"description": description})
            for status, response in responses.items():
                if int(status) >= 400:
                    response["content"] = problem_content()
                    if status in ("429", "503"):
                        response["headers"] = {
                            "Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}
                        }
    for unused in ("HTTPValidationError", "ValidationError"):
        if f'"#/components/schemas/{unused}"' not in json.dumps(document.get("paths", {})):
            schemas.pop(unused, None)
    return document


def install_document(app: FastAPI) -> None:
    """Make ``app``'s ``/openapi.json`` tell the API's problems (:func:`document_problems`)."""
    made = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document_problems(made())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
