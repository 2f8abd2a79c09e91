"""The store interface the web app talks to.

A stored game is a :class:`~app.engine.Game` with an id, its owner (the
player's id from the signed cookie, or ``None`` for a game made through the
JSON API, where the unguessable id is the only key) and a version number that
grows with every save. :meth:`GameStore.save` is a compare-and-set on that
version, so two requests racing on one game can never lose an action: the
loser gets :class:`VersionConflict` and reloads.
"""

from __future__ import annotations

import abc
import secrets
from dataclasses import dataclass

from app.engine import Game, GameCode


class VersionConflict(Exception):
    """The game was saved by someone else since it was loaded."""


class StoreUnavailable(Exception):
    """The store cannot be reached or written just now; nothing was changed."""


def new_game_id() -> str:
    """An unguessable game id: 128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: str
    owner: str | None
    game: Game
    version: int


class GameStore(abc.ABC):
    """Games by id, and each player's current game. Thread-safe; every method is blocking."""

    @abc.abstractmethod
    def create(self, game: Game, owner: str | None) -> StoredGame:
        """Keep a new game; when ``owner`` is given it becomes that player's current game."""

    @abc.abstractmethod
    def get(self, game_id: str) -> StoredGame | None:
        """The game with this id, or ``None``."""

    @abc.abstractmethod
    def save(self, stored: StoredGame, game: Game) -> StoredGame:
        """Replace ``stored`` by ``game`` if nobody saved it since; else raise :class:`VersionConflict`."""

    @abc.abstractmethod
    def current(self, owner: str) -> StoredGame | None:
        """The player's current game, or ``None``."""

    @abc.abstractmethod
    def find(self, owner: str, code: GameCode) -> StoredGame | None:
        """The player's most recently created game of this deal (same code and rules), or ``None``."""

    @abc.abstractmethod
    def set_current(self, owner: str, game_id: str) -> None:
        """Make one of the player's games their current game."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
