"""A game as data: the stored state (its line and counters, checked on the way back in)
and the deal as a dict (SPEC section 8's state; ``tripeaks deal --json``).

:func:`state_of` gives a game's state and :func:`game_from_state` a game back from one; a state
read back is replayed move by move, so a stored game is always one that play can reach.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.actions import DRAW, PositionError, RefusedAction, check_position
from app.engine.deal import CodeError, GameCode
from app.engine.game import UNDO_LIMIT, Game, Status


class StateError(ValueError):
    """A stored game state that does not describe a game that can arise by play."""


def state_of(game: Game) -> dict[str, Any]:
    """The whole state as JSON-able data; :func:`game_from_state` gives back an identical game."""
    state: dict[str, Any] = {
        "code": game.code_text(),
        "line": list(game.line_codes),
        "moves": game.moves,
        "undo": game.undo_available,
    }
    if game.hints:
        state["hints"] = game.hints
    if game.started_at is not None:
        state["started"] = game.started_at
    if game.ended_after is not None:
        state["ended_after"] = game.ended_after
    return state


def game_from_state(data: Mapping[str, Any]) -> Game:
    """Rebuild a game from :func:`state_of`; raises :class:`StateError` for anything inconsistent."""
    try:
        code = GameCode.parse(data["code"])
        line, moves, undo = data["line"], data["moves"], data["undo"]
        hints = data.get("hints", 0)
        started, ended_after = data.get("started"), data.get("ended_after")
    except (KeyError, TypeError, AttributeError, CodeError) as error:
        raise StateError(f"not a stored game: {error}") from None
    if not (isinstance(line, list) and all(type(a) is int for a in line)):
        raise StateError("not a stored game: 'line' must be a list of integers")
    if type(moves) is not int or type(undo) is not int or type(hints) is not int or hints < 0:
        raise StateError("not a stored game: 'moves', 'undo' and 'hints' must be counts")
    game = Game(code)
    try:
        game.replay(DRAW if a == DRAW else check_position(a, code.layout.count) for a in line)
    except (RefusedAction, PositionError) as error:
        raise StateError(f"not a stored game: its line is not playable ({error})") from None
    # Every action in effect can be undone (up to the limit): the counter follows the line.
    if not len(line) <= moves or undo != min(len(line), UNDO_LIMIT):
        raise StateError("not a stored game: its counters do not fit its line")
    # The clock (older states have none): a start, and an end only once the game has ended.
    if not all(_is_time(t) for t in (started, ended_after)):
        raise StateError("not a stored game: 'started' and 'ended_after' must be seconds")
    if ended_after is not None and (started is None or game.status is Status.PLAYING):
        raise StateError("not a stored game: only an ended game's clock has stopped")
    game.restore(
        moves=moves,
        undo=undo,
        hints=hints,
        started=None if started is None else float(started),
        ended_after=None if ended_after is None else float(ended_after),
    )
    return game


def _is_time(value: object) -> bool:
    """``None``, or a finite, non-negative number of seconds (JSON's int or float)."""
    if value is None:
        return True
    if type(value) is int or type(value) is float:
        return 0 <= value < 1e12  # (NaN and infinity are not)
    return False


def deal_dict(game: Game) -> dict[str, Any]:
    """The full deal, every card shown (for ``tripeaks deal --json``)."""
    code, deal, layout = game.code, game.deal, game.layout
    return {
        "code": code.text(),
        "rules": code.rules.word,
        "layout": layout.word,
        "deal_number": code.number,
        "tableau": [c.text() for c in deal.tableau],
        "waste": None if deal.waste is None else deal.waste.text(),
        "stock": [c.text() for c in deal.stock],
        "positions": [
            {"row": spot.row, "column": spot.column, "covered_by": list(layout.covered_by[p])}
            for p, spot in enumerate(layout.spots)
        ],
        **({"variants": code.variants.words} if code.variants else {}),
    }
