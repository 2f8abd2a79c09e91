"""The game a player left under way, and the way back to it.

Every way out of a game in progress that deals another one (New game, Restart, the
top bar's Daily deal, a deal's link) leaves the game kept as it was; its id goes into
a cookie, and the game page offers "Back to the game you left" for as long as that game
is the player's, still under way and not the one on the table. (Statistics do not count
it as a loss meanwhile: docs/store.md.) Pages that change no game (Statistics, How to
play, Display) offer "Back to your game" in the top bar (``templates/base.html``).
"""

from __future__ import annotations

from typing import Final

from fastapi import Request, Response

from app.engine import Game, GameCode
from app.store import GameStore, StoredGame
from app.web.deps import GAME_ID
from app.web.middleware.player_cookie import read_cookies

LEFT_COOKIE: Final = "tp_left"
LEFT_MAX_AGE: Final = 30 * 24 * 3600
"""As long as idle cleanup keeps an unfinished game (30 days by default)."""


def under_way(stored: StoredGame | None) -> bool:
    """Whether a game is worth coming back to: a move made, not over."""
    return stored is not None and stored.game.moves > 0 and not stored.game.is_over


def remember_left(response: Response, left: StoredGame | None, now: StoredGame) -> None:
    """After a change of the current game from ``left`` to ``now``: keep the way back to
    ``left`` while it is under way (a game left without a move is not worth one)."""
    if left is not None and left.id != now.id and under_way(left):
        response.set_cookie(LEFT_COOKIE, left.id, max_age=LEFT_MAX_AGE, samesite="lax", httponly=True)


def left_game(request: Request, store: GameStore, player: str, current: StoredGame) -> StoredGame | None:
    """The game the player left under way, if the cookie names one that still is (their own,
    not ``current``); a cookie naming anything else is ignored."""
    game_id = read_cookies(request.scope).get(LEFT_COOKIE, "")
    if game_id == current.id or GAME_ID.fullmatch(game_id) is None:
        return None
    stored = store.get(game_id)
    if stored is None or stored.owner != player or not under_way(stored):
        return None
    return stored


def deal_for(store: GameStore, player: str, code: GameCode) -> tuple[StoredGame, StoredGame | None]:
    """The player's own game of this deal (the current game if it is one, else the latest), or a
    fresh deal of it; it becomes the current game. Second: the game this left, if any."""
    current = store.current(player)
    if current is not None and current.game.code == code:
        return current, None
    stored = store.find(player, code)
    if stored is None:
        return store.create(Game(code), player), current
    store.set_current(player, stored.id)
    return stored, current
