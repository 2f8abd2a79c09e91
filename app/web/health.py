"""Health for operators: ``/healthz`` (liveness) and ``/readyz`` (readiness).

* ``GET /healthz``: the process answers. Nothing else is checked: a supervisor restarts a
  server that stops answering it, and restarting would not mend a full disk.
* ``GET /readyz``: the store can write now. It makes one small real write (the last-seen
  time of a probe player no cookie can name) and answers 200 ``ready``, or 503 with the
  reason (a read-only database, a full disk, a database server that cannot be reached),
  with ``Retry-After``. At most one probe runs at a time; its answer is kept for
  :data:`PROBE_KEPT_S`, so a monitor polling often costs one write a second at most.

Neither sets a cookie, nor counts against the rate limits (see :mod:`app.web.players`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Final

from anyio import to_thread
from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from app.store import GameStore
from app.store.base import StoreUnavailable
from app.web import metrics

router = APIRouter(include_in_schema=False)
log = logging.getLogger("tripeaks.health")

PROBE_PLAYER: Final = "~readiness-probe~"
"""The probe's player id: player ids from cookies are URL-safe base64, which has no ``~``."""

PROBE_KEPT_S: Final = 1.0
NO_STORE: Final = {"Cache-Control": "no-store"}


class Readiness:
    """The last probe's answer (``None``: ready, else the reason), kept a moment."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.checked = -PROBE_KEPT_S
        self.reason: str | None = None

    async def check(self, store: GameStore) -> str | None:
        async with self.lock:
            if time.monotonic() - self.checked >= PROBE_KEPT_S:
                self.reason = await probe(store)
                self.checked = time.monotonic()
            return self.reason


async def probe(store: GameStore) -> str | None:
    """Why ``store`` cannot write just now, or ``None`` when a write went through."""
    try:
        await to_thread.run_sync(store.set_display_name, PROBE_PLAYER, None)
    except StoreUnavailable as error:
        metrics.store_error("readyz")
        return f"the store cannot write: {error}"
    except Exception as error:  # a bug, not a fault: said, and logged with its traceback
        metrics.store_error("readyz")
        log.exception("the readiness probe failed")
        return f"the store failed: {type(error).__name__}: {error}"
    return None


@router.get("/healthz")
async def healthz() -> PlainTextResponse:
    return PlainTextResponse("ok\n", headers=NO_STORE)


@router.get("/readyz")
async def readyz(request: Request) -> PlainTextResponse:
    state = request.app.state
    reason = await state.readiness.check(state.store)
    if reason is not None:
        return PlainTextResponse(
            f"not ready: {reason}\n", status_code=503, headers={**NO_STORE, "Retry-After": "5"}
        )
    return PlainTextResponse("ready\n", headers=NO_STORE)
