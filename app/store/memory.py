"""An in-process store: for tests and for ``TRIPEAKS_DATABASE_URL=memory://``."""

from __future__ import annotations

import threading

from app.engine import Game, GameCode
from app.store.base import GameStore, StoredGame, VersionConflict, new_game_id


class MemoryStore(GameStore):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: dict[str, tuple[str | None, dict[str, object], int]] = {}
        self._current: dict[str, str] = {}

    def create(self, game: Game, owner: str | None) -> StoredGame:
        game_id = new_game_id()
        with self._lock:
            self._games[game_id] = (owner, game.to_dict(), 1)
            if owner is not None:
                self._current[owner] = game_id
        return StoredGame(game_id, owner, game.copy(), 1)

    def get(self, game_id: str) -> StoredGame | None:
        with self._lock:
            row = self._games.get(game_id)
        if row is None:
            return None
        owner, state, version = row
        return StoredGame(game_id, owner, Game.from_dict(state), version)

    def save(self, stored: StoredGame, game: Game) -> StoredGame:
        with self._lock:
            row = self._games.get(stored.id)
            if row is None or row[2] != stored.version:
                raise VersionConflict(stored.id)
            self._games[stored.id] = (stored.owner, game.to_dict(), stored.version + 1)
        return StoredGame(stored.id, stored.owner, game.copy(), stored.version + 1)

    def current(self, owner: str) -> StoredGame | None:
        with self._lock:
            game_id = self._current.get(owner)
        return self.get(game_id) if game_id is not None else None

    def find(self, owner: str, code: GameCode) -> StoredGame | None:
        text = code.text()
        with self._lock:
            found = [
                game_id
                for game_id, (game_owner, state, _) in self._games.items()
                if game_owner == owner and state["code"] == text
            ]
        return self.get(found[-1]) if found else None

    def set_current(self, owner: str, game_id: str) -> None:
        with self._lock:
            row = self._games.get(game_id)
            if row is not None and row[0] == owner:
                self._current[owner] = game_id
