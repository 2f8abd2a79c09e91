"""Open the store a database URL names."""

from __future__ import annotations

from app.store.base import GameStore
from app.store.memory import MemoryStore


def open_store(url: str) -> GameStore:
    """``memory://`` keeps games in this process; SQL URLs use :mod:`app.store.sql`."""
    if url.startswith("memory:"):
        return MemoryStore()
    from app.store.sql import SqlStore

    return SqlStore(url)
