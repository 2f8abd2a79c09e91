"""Request body size limit, as a pure ASGI middleware: checked before any route runs.

A body with a ``Content-Length`` over the limit is refused at once (the server reads no more
than that length). A body without one (``Transfer-Encoding: chunked``) is read here, counted
as it streams, and refused as soon as it passes the limit; one within it is handed on to the
route whole. Either way the route never runs for a body over the limit, whether it reads its
body or not (a draw does not): the answer is 413 and nothing is changed.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.middleware.headers import send_json_error


class BodySizeLimitMiddleware:
    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        streamed = False
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    too_big = True
                if too_big:
                    await self._refuse(send)
                    return
                await self.app(scope, receive, send)
                return
            if name == b"transfer-encoding":
                streamed = True
        if not streamed:  # no body at all
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body: Message | None = {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        async def replay() -> Message:
            nonlocal body
            if body is not None:
                message, body = body, None
                return message
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        await send_json_error(send, 413, f"Request body too large (at most {self.max_bytes} bytes)")
