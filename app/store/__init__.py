"""Where games live: one interface (:class:`GameStore`), several backends."""

from app.store.base import GameStore, StoredGame, StoreUnavailable, VersionConflict, new_game_id
from app.store.memory import MemoryStore

__all__ = [
    "GameStore",
    "MemoryStore",
    "StoreUnavailable",
    "StoredGame",
    "VersionConflict",
    "new_game_id",
]
