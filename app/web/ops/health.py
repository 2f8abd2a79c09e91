"""Health for operators: ``/healthz`` (liveness) and ``/readyz`` (readiness).

* ``GET /healthz``: the process answers. Nothing else is checked: a supervisor restarts a
  server that stops answering it, and restarting would not mend a full disk.
* ``GET /readyz``: the store can write now. It makes one small real write (the last-seen
  time of a probe player no cookie can name) and answers 200 ``ready``, or 503 with a short
  public reason ("not ready: the store cannot write") and ``Retry-After``. It follows the
  store's own writes too (:attr:`GameStore.write_failure`): 503 as soon as any write failed
  (a move on a disk just full), until a write goes through again. What went wrong
  (a read-only database, a full disk, the database server's address and port) is for the
  operator only: in the server's log (once each time it changes) and on ``/metrics``
  (``tripeaks_not_ready{detail}``, behind its token). At most one probe runs at a time; its
  answer is kept for :data:`PROBE_KEPT_S`, so a monitor polling often costs one write a
  second at most.

Neither sets a cookie, nor counts against the rate limits (see :mod:`app.web.middleware.player_cookie`).
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
from app.web.ops import metrics

router = APIRouter(include_in_schema=False)
log = logging.getLogger("tripeaks.health")

PROBE_PLAYER: Final = "~readiness-probe~"
"""The probe's player id: player ids from cookies are URL-safe base64, which has no ``~``."""

PROBE_KEPT_S: Final = 1.0
NO_STORE: Final = {"Cache-Control": "no-store"}


CANNOT_WRITE: Final = "the store cannot write"
FAILED: Final = "the store failed"


class Readiness:
    """The last probe's answer (``None``: ready, else the public reason), kept a moment."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.checked = -PROBE_KEPT_S
        self.reason: str | None = None
        self.detail: str | None = None
        """What the last failure seen was, for the log and /metrics only."""
        self.probed: tuple[str | None, str | None] = (None, None)
        """The last probe's answer (:func:`probe`), kept :data:`PROBE_KEPT_S`."""

    async def check(self, store: GameStore) -> str | None:
        async with self.lock:
            if time.monotonic() - self.checked >= PROBE_KEPT_S:
                self.probed = await probe(store)
                self.checked = time.monotonic()
            reason, detail = self.probed
            failure = store.write_failure  # the store's latest write, the probe's or any other
            if reason is None and failure is not None:
                reason, detail = CANNOT_WRITE, f"{CANNOT_WRITE}: {failure}"
            if detail != self.detail:
                if detail is None:
                    log.warning("ready again: the store writes")
                else:
                    log.warning("not ready: %s", detail)
                metrics.not_ready(detail, self.detail)
            self.reason, self.detail = reason, detail
            return self.reason


async def probe(store: GameStore) -> tuple[str | None, str | None]:
    """Why ``store`` cannot write just now, as (the public reason, the operator's detail), or
    ``(None, None)`` when a write went through."""
    try:
        await to_thread.run_sync(store.set_display_name, PROBE_PLAYER, None)
    except StoreUnavailable as error:
        metrics.store_error("readyz")
        return CANNOT_WRITE, f"{CANNOT_WRITE}: {error}"
    except Exception as error:  # a bug, not a fault: logged with its traceback
        metrics.store_error("readyz")
        log.exception("the readiness probe failed")
        return FAILED, f"{FAILED}: {type(error).__name__}: {error}"
    return None, None


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
