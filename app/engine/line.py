"""A game's line: the actions in effect, in order, as a link writes them (``d.18.27.d.21``).

``Line.parse("d.18.27.d.21")`` reads one, ``line.text()`` writes it back, and
``line.games(code)`` plays it on the deal and gives the game after every step
(step 0 is the deal). A removal is written as its position (``0``-``27`` in three
peaks, ``0``-``26`` in diamonds, ``0``-``29`` in the valley, theatre and up-down), a draw
as ``d``; the empty text is the empty line (the deal itself). Undone actions are not
in a line: :meth:`Line.of` takes a game's :attr:`~app.engine.game.Game.line`.
:meth:`Line.parse` reads the positions of the biggest layout unless told the layout's
count; :meth:`Line.games` refuses a position beyond the code's layout as a bad token.

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
from app.engine.layout import MOST_POSITIONS

MAX_ACTIONS: Final = 200
"""The longest line read. A game has at most 55 actions in effect (30 removals and 25 draws
in the biggest layouts with the joker and an empty waste)."""

DRAW_TOKEN: Final = "d"
SEPARATOR: Final = "."


class LineProblem(enum.Enum):
    """What is wrong with a line. The value is the API's ``error`` word."""

    UNKNOWN_TOKEN = "unknown_token"
    REFUSED = "refused_action"
    TOO_LONG = "too_long"


class LineError(ValueError):
    """A line that cannot be read or played: ``token`` at ``index`` (0-based) is the first bad one."""

    def __init__(
        self,
        problem: LineProblem,
        token: str,
        index: int,
        refusal: Refusal | None = None,
        positions: int = MOST_POSITIONS,
    ) -> None:
        self.problem, self.token, self.index, self.refusal = problem, token, index, refusal
        self.positions = positions
        """The positions of the layout the line was read for (a removal names 0 to this - 1)."""
        shown = repr(token[:20])
        if problem is LineProblem.UNKNOWN_TOKEN:
            expected = f"'d' or a position 0 to {positions - 1}"
            message = f"action {index + 1} ({shown}) is not an action: expected {expected}"
        elif problem is LineProblem.REFUSED:
            why = refusal.message if refusal is not None else "refused"
            message = f"action {index + 1} ({shown}) is not allowed at that point: {why}"
        else:
            message = f"a line has at most {MAX_ACTIONS} actions; action {index + 1} is one too many"
        super().__init__(message)


def _is_position(token: str, positions: int) -> bool:
    """Whether ``token`` is a position below ``positions``, written one way only (``7``, not
    ``07`` or ``+7``)."""
    return token.isascii() and token.isdigit() and str(int(token)) == token and int(token) < positions


def token_of(action: Action) -> str:
    return DRAW_TOKEN if action.position is None else str(action.position)


@dataclass(frozen=True, slots=True)
class Line:
    """The actions of a game, oldest first: ``Line.parse("d.18.27")``, ``line.text()``."""

    actions: tuple[Action, ...] = ()

    @classmethod
    def parse(cls, text: str, positions: int = MOST_POSITIONS) -> Line:
        """Read a line's text, its removals positions below ``positions`` (the layout's count;
        by default the biggest layout's, 30); raises :class:`LineError` (syntax and length
        only: see :meth:`games`)."""
        if text == "":
            return cls()
        tokens = text.split(SEPARATOR, MAX_ACTIONS)
        if len(tokens) > MAX_ACTIONS:
            raise LineError(LineProblem.TOO_LONG, tokens[MAX_ACTIONS].split(SEPARATOR)[0], MAX_ACTIONS)
        actions = []
        for index, token in enumerate(tokens):
            if token == DRAW_TOKEN:
                actions.append(Action(None))
            elif _is_position(token, positions):
                actions.append(Action(int(token)))
            else:
                raise LineError(LineProblem.UNKNOWN_TOKEN, token, index, positions=positions)
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
        first action the rules refuse (the game over, a blocked card, a wrong rank, no stock),
        or at the first position beyond the code's layout (a bad token)."""
        game = Game(code)
        games = [game.copy()]
        positions = code.layout.count
        for index, action in enumerate(self.actions):
            if action.position is not None and action.position >= positions:
                raise LineError(LineProblem.UNKNOWN_TOKEN, token_of(action), index, positions=positions)
            try:
                game.play(action)
            except RefusedAction as refused:
                raise LineError(LineProblem.REFUSED, token_of(action), index, refused.refusal) from None
            games.append(game.copy())
        return tuple(games)
