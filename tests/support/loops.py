"""Running a coroutine to its end from a test, whatever ran before it in the process."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` in a thread of its own: in a pytest worker that ran a browser
    test first, Playwright's sync API leaves an event loop running in the main thread, and
    ``asyncio.run()`` refuses to nest (``make test`` meets this when a worker steals tests)."""
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()
