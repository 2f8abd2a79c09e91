"""Open the store a database URL names."""

from __future__ import annotations

from app.store.base import DEFAULT_MAX_GAMES_PER_PLAYER, GameStore
from app.store.memory import MemoryStore


def open_store(url: str, *, max_games_per_player: int = DEFAULT_MAX_GAMES_PER_PLAYER) -> GameStore:
    """``memory://`` keeps games in this process; SQL URLs use :mod:`app.store.database.sql`."""
    if url.startswith("memory:"):
        return MemoryStore(max_games_per_player=max_games_per_player)
    from app.store.database.sql import SqlStore

    return SqlStore(url, max_games_per_player=max_games_per_player)
