"""Small helpers for the pure ASGI middlewares (they answer before any route runs)."""

from __future__ import annotations

from starlette.types import Scope, Send

from app.web.problems import PROBLEM_JSON, problem_bytes


def header(scope: Scope, name: bytes) -> str | None:
    """The request's first header called ``name`` (lower case), as text, or ``None``."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


async def send_json_error(
    send: Send, status: int, detail: str, headers: dict[str, str] | None = None, error: str | None = None
) -> None:
    """Answer a problem (RFC 9457: app/web/problems.py) with ``status`` (and ``headers``), as
    the JSON API's errors look."""
    body = problem_bytes(status, detail, error)
    extra = [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", PROBLEM_JSON.encode()),
                (b"content-length", str(len(body)).encode()),
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
