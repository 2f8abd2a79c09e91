"""The JSON API's moves with an ``Idempotency-Key`` (docs/api.md): a retry is answered, not
played again.

A bot that lost an answer (a timeout, a dropped connection) sends the same request with the
same key: it gets the first answer again, with ``Idempotent-Replayed: true``, and the game
moved once. The same key with another request (another action, another body) on that game is a
409 ``idempotency_key_reused``; while the first request with a key is still being answered,
another is a 409 ``idempotency_key_in_use`` (try again in a moment). Keys are kept by game, in
the store (:mod:`app.store.answers`), for a day.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Annotated, Final

from anyio import to_thread
from fastapi import Header, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from app.i18n import N_
from app.store import GameStore
from app.web.problems import PROBLEM_JSON, Refused

KEY_PATTERN: Final = r"^[!-~]{1,128}$"
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=KEY_PATTERN,
        description="Optional: any 1 to 128 printable ASCII characters (a UUID, say), new for each"
        " move; a retry with the same key and request gets the first answer again and the game"
        " moves once (kept a day)",
    ),
]
REUSED: Final = N_("This Idempotency-Key was used for another request on this game: use a new key.")
IN_USE: Final = N_("A request with this Idempotency-Key is still being answered: try again in a moment.")
REPLAYED: Final = "Idempotent-Replayed"

Answer = BaseModel | Response


def fingerprint(request: Request, body: bytes) -> str:
    text = f"{request.method} {request.url.path}\n".encode() + body
    return hashlib.sha256(text).hexdigest()


def as_response(answer: Answer) -> Response:
    if isinstance(answer, Response):
        return answer
    return JSONResponse(answer.model_dump(mode="json"))


async def answered_once(
    request: Request, store: GameStore, game_id: str, key: str | None, act: Callable[[], Awaitable[Answer]]
) -> Answer:
    """``act()``'s answer; with a key, the one kept for it when the request was answered before."""
    if key is None:
        return await act()
    mine = fingerprint(request, await request.body())
    claimed = await to_thread.run_sync(store.claim_answer, game_id, key, mine)
    if claimed is not None:
        if claimed.request != mine:
            raise Refused(409, REUSED, "idempotency_key_reused")
        if claimed.status is None or claimed.body is None:
            raise Refused(409, IN_USE, "idempotency_key_in_use", {"Retry-After": "1"})
        media = PROBLEM_JSON if claimed.status >= 400 else "application/json"
        return Response(claimed.body, claimed.status, {REPLAYED: "true"}, media_type=media)
    try:
        response = as_response(await act())
    except BaseException:  # nothing was done (a 404, a race not running, the store away): the key goes
        await to_thread.run_sync(store.drop_answer, game_id, key)
        raise
    body = bytes(response.body).decode()
    await to_thread.run_sync(store.keep_answer, game_id, key, response.status_code, body)
    return response
