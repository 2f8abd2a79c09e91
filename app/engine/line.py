"""A game's line: the actions in effect, in order, as a link writes them (``d.18.27.d.21``).

``Line.parse("d.18.27.d.21")`` reads one, ``line.text()`` writes it back, and
``line.games(code)`` plays it on the deal and gives the game after every step
(step 0 is the deal). A removal is written as its position ``0``-``27``, a draw as
``d``; the empty text is the empty line (the deal itself). Undone actions are not
in a line: :meth:`Line.of` takes a game's :attr:`~app.engine.game.Game.line`.

The parser is strict: one spelling per line, so one URL per game. Every problem
raises :class:`LineError` (a :class:`ValueError`) naming the first bad token and
its index: a token that is not an action, an action the rules refuse at that
point (``games``), or more than :data:`MAX_ACTIONS` actions.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from app.engine.actions import Action, Refusal, RefusedAction
from app.engine.deal import GameCode
from app.engine.game import Game
from app.engine.layout import POSITION_COUNT

MAX_ACTIONS: Final = 200
"""The longest line read. A game has at most 51 actions in effect (28 removals, 23 draws)."""

DRAW_TOKEN: Final = "d"
SEPARATOR: Final = "."
_POSITIONS: Final = {str(p): p for p in range(POSITION_COUNT)}


class LineProblem(enum.Enum):
    """What is wrong with a line. The value is the API's ``error`` word."""

    UNKNOWN_TOKEN = "unknown_token"
    REFUSED = "refused_action"
    TOO_LONG = "too_long"


class LineError(ValueError):
    """A line that cannot be read or played: ``token`` at ``index`` (0-based) is the first bad one."""

    def __init__(
        self, problem: LineProblem, token: str, index: int, refusal: Refusal | None = None
    ) -> None:
        self.problem, self.token, self.index, self.refusal = problem, token, index, refusal
        shown = repr(token[:20])
        if problem is LineProblem.UNKNOWN_TOKEN:
            message = f"action {index + 1} ({shown}) is not an action: expected 'd' or a position 0 to 27"
        elif problem is LineProblem.REFUSED:
            why = refusal.message if refusal is not None else "refused"
            message = f"action {index + 1} ({shown}) is not allowed at that point: {why}"
        else:
            message = f"a line has at most {MAX_ACTIONS} actions; action {index + 1} is one too many"
        super().__init__(message)


def token_of(action: Action) -> str:
    return DRAW_TOKEN if action.position is None else str(action.position)


@dataclass(frozen=True, slots=True)
class Line:
    """The actions of a game, oldest first: ``Line.parse("d.18.27")``, ``line.text()``."""

    actions: tuple[Action, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Line:
        """Read a line's text; raises :class:`LineError` (syntax and length only: see :meth:`games`)."""
        if text == "":
            return cls()
        tokens = text.split(SEPARATOR, MAX_ACTIONS)
        if len(tokens) > MAX_ACTIONS:
            raise LineError(LineProblem.TOO_LONG, tokens[MAX_ACTIONS].split(SEPARATOR)[0], MAX_ACTIONS)
        actions = []
        for index, token in enumerate(tokens):
            if token == DRAW_TOKEN:
                actions.append(Action(None))
            elif token in _POSITIONS:
                actions.append(Action(_POSITIONS[token]))
            else:
                raise LineError(LineProblem.UNKNOWN_TOKEN, token, index)
        return cls(tuple(actions))

    @classmethod
    def of(cls, game: Game) -> Line:
        """The line of a game: its actions in effect."""
        return cls(game.line)

    def text(self) -> str:
        return SEPARATOR.join(token_of(a) for a in self.actions)

    def tokens(self) -> tuple[str, ...]:
        return tuple(token_of(a) for a in self.actions)

    def __len__(self) -> int:
        return len(self.actions)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Line.parse({self.text()!r})"

    def games(self, code: GameCode) -> tuple[Game, ...]:
        """The game after each step, step 0 being the deal; raises :class:`LineError` at the
        first action the rules refuse (the game over, a blocked card, a wrong rank, no stock)."""
        game = Game(code)
        games = [game.copy()]
        for index, action in enumerate(self.actions):
            try:
                game.play(action)
            except RefusedAction as refused:
                raise LineError(LineProblem.REFUSED, token_of(action), index, refused.refusal) from None
            games.append(game.copy())
        return tuple(games)
