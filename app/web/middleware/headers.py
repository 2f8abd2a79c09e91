"""Small helpers for the pure ASGI middlewares (they answer before any route runs)."""

from __future__ import annotations

import json

from starlette.types import Scope, Send


def header(scope: Scope, name: bytes) -> str | None:
    """The request's first header called ``name`` (lower case), as text, or ``None``."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


async def send_json_error(send: Send, status: int, detail: str) -> None:
    """Answer ``{"detail": ...}`` with ``status``, as the JSON API's errors look."""
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
