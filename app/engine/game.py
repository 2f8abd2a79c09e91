"""A game of TriPeaks: remove, draw, undo, score and status (SPEC sections 4-7).

The state of a game is its code and its *line*: the actions still in effect,
in order, each of which put one card on the waste (a removal from the peaks,
or a draw from the stock). Everything else follows from the line: which
positions are removed, how many cards were drawn, the waste card, the score.
Undo takes the last action off the line. Two counters are kept beside it:
``moves`` (every removal and draw ever made; it never goes down) and
``undo_available`` (how many of the latest actions may still be undone, at most
``undo_limit``).

Two things are shown beside the score but never change it: the *run* (removals in a
row since the last draw, and the longest run of the line), derived from the line, so
undo restores them exactly; and the *clock* (when the first action was made and, once the
game has ended, how long it took). The engine reads no clock: the caller passes the time
in (:meth:`Game.note_time`), and a game that is never told the time has no clock.

Refused actions raise :class:`RefusedAction` carrying a :class:`Refusal` and
leave the game exactly as it was; ``refusal_for_remove`` and friends ask
without acting.

Variants (``docs/variants.md``) are consulted at the few places the rules differ: which
cards fit (the joker is wild, an empty waste takes any exposed card), which cards are face
up (open peaks), and the score (traditional scoring). The deal itself comes from the code.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from app.engine.cards import Card
from app.engine.deal import CodeError, Deal, GameCode, Rules
from app.engine.layout import (
    ALL_POSITIONS_MASK,
    POSITION_COUNT,
    ROW_NAMES,
    ROWS,
    exposed_mask,
    peaks_cleared,
    positions_of,
)
from app.engine.rules import peak_bonus, playable_by_rank, standard_score, traditional_score
from app.engine.variants import Variants

UNDO_LIMIT: Final = 100
DRAW: Final = -1
"""How a draw is written in a line of actions (removals are written as their position)."""


class Refusal(enum.Enum):
    """Why an action was refused. The value is the API's ``error`` word."""

    RANK_MISMATCH = "rank_mismatch"
    CARD_BLOCKED = "card_blocked"
    NO_CARD = "no_card"
    STOCK_EMPTY = "stock_empty"
    NOTHING_TO_UNDO = "nothing_to_undo"
    GAME_OVER = "game_over"

    @property
    def message(self) -> str:
        """The English message for the player."""
        return REFUSAL_MESSAGES[self]


REFUSAL_MESSAGES: Final = {
    Refusal.RANK_MISMATCH: "Rank must be one higher or lower",
    Refusal.CARD_BLOCKED: "This card is blocked",
    Refusal.NO_CARD: "That card has already been removed",
    Refusal.STOCK_EMPTY: "The stock is empty",
    Refusal.NOTHING_TO_UNDO: "Nothing to undo",
    Refusal.GAME_OVER: "The game is over",
}


class Status(enum.Enum):
    PLAYING = "playing"
    WON = "won"
    BLOCKED = "blocked"


class RefusedAction(ValueError):
    """An action the rules do not allow now; the game did not change."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


class StateError(ValueError):
    """A stored game state that does not describe a game that can arise by play."""


class PositionError(ValueError):
    """A position number that is not on the board (0 to 27)."""


@dataclass(frozen=True, slots=True)
class Action:
    """One action of a line: ``Action.parse("draw")``, ``Action.parse("17")``, ``action.text()``."""

    position: int | None
    """The position removed, or ``None`` for a draw."""

    @property
    def is_draw(self) -> bool:
        return self.position is None

    def text(self) -> str:
        return "draw" if self.position is None else str(self.position)

    def __repr__(self) -> str:
        return f"Action.parse({self.text()!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        if text == "draw":
            return cls(None)
        if text.isdigit() and text.isascii() and int(text) < POSITION_COUNT:
            return cls(int(text))
        raise ValueError(f"{text[:20]!r} is not an action: expected 'draw' or a position 0 to 27")


@lru_cache(maxsize=4096)
def _playable_by_rank(code: GameCode) -> tuple[int, ...]:
    """The deal's tableau by rank (:func:`app.engine.rules.playable_by_rank`), kept per code."""
    return playable_by_rank([card.rank for card in code.deal().tableau], code.rules)


class Game:
    """One game of a deal: ``Game.from_code("TP1-E-AAAAAAB")``, ``remove``, ``draw``, ``undo``."""

    __slots__ = (
        "_code",
        "_deal",
        "_drawn",
        "_ended_after",
        "_hints",
        "_line",
        "_moves",
        "_playable_by_rank",
        "_removed",
        "_started",
        "_stock_size",
        "_undo_available",
        "_waste",
        "undo_limit",
    )

    def __init__(self, code: GameCode, *, undo_limit: int = UNDO_LIMIT) -> None:
        self._code = code
        self._deal = code.deal()
        self.undo_limit = undo_limit
        self._line: list[int] = []
        self._removed = 0
        self._drawn = 0
        self._moves = 0
        self._hints = 0
        self._undo_available = 0
        self._waste: Card | None = self._deal.waste
        self._stock_size = self._deal.stock_size
        self._playable_by_rank = _playable_by_rank(code)
        self._started: float | None = None
        self._ended_after: float | None = None

    @classmethod
    def from_code(cls, text: str) -> Game:
        """A new game of the deal a code names; raises :class:`CodeError` for a bad code."""
        return cls(GameCode.parse(text))

    # -- what the game is ------------------------------------------------------------------

    @property
    def code(self) -> GameCode:
        return self._code

    def code_text(self) -> str:
        return self._code.text()

    @property
    def rules(self) -> Rules:
        return self._code.rules

    @property
    def variants(self) -> Variants:
        return self._code.variants

    @property
    def deal(self) -> Deal:
        return self._deal

    @property
    def waste(self) -> Card | None:
        """The top waste card; ``None`` only in the empty-waste variant before the first action."""
        return self._waste

    @property
    def stock_count(self) -> int:
        return self._stock_size - self._drawn

    @property
    def removed_mask(self) -> int:
        return self._removed

    @property
    def drawn(self) -> int:
        return self._drawn

    @property
    def moves(self) -> int:
        """Removals and draws made, undone ones included: it never goes down."""
        return self._moves

    @property
    def undo_available(self) -> int:
        return self._undo_available

    @property
    def hints(self) -> int:
        """How many hints the player asked for in this game (shown with the result)."""
        return self._hints

    def count_hint(self) -> None:
        """Note that a hint was given. It changes nothing on the board."""
        self._hints += 1

    @property
    def line(self) -> tuple[Action, ...]:
        """The actions in effect, oldest first."""
        return tuple(Action(None if a == DRAW else a) for a in self._line)

    @property
    def run(self) -> int:
        """Removals in a row at the end of the line: since the last draw (or the deal)."""
        line, n = self._line, len(self._line)
        i = n
        while i and line[i - 1] != DRAW:
            i -= 1
        return n - i

    @property
    def longest_run(self) -> int:
        """The longest run of removals without a draw in the line (the actions in effect)."""
        longest = current = 0
        for a in self._line:
            current = 0 if a == DRAW else current + 1
            if current > longest:
                longest = current
        return longest

    # -- the clock: the caller passes the time in ------------------------------------------

    @property
    def started_at(self) -> float | None:
        """When the first action was made (seconds since the epoch), as told by :meth:`note_time`."""
        return self._started

    @property
    def ended_after(self) -> float | None:
        """Once the game is won or blocked: the seconds from its first action to its end."""
        return self._ended_after

    def elapsed(self, now: float) -> float | None:
        """Seconds on the clock at ``now``: stopped once the game has ended; ``None`` before
        the first action (or when the game was never told the time)."""
        if self._ended_after is not None:
            return self._ended_after
        if self._started is None:
            return None
        return max(0.0, now - self._started)

    def note_time(self, now: float) -> None:
        """Tell the game the time, right after an action: the first starts the clock, an end
        (won or blocked) stops it. Undo restarts a stopped (blocked) clock by itself."""
        if self._started is None:
            if not self._moves:
                return  # nothing played yet: the clock starts with the first action
            self._started = float(now)
        if self._ended_after is None and self.status is not Status.PLAYING:
            self._ended_after = max(0.0, round(float(now) - self._started, 3))

    @property
    def peaks_cleared(self) -> tuple[bool, bool, bool]:
        return peaks_cleared(self._removed)

    @property
    def score(self) -> int:
        """The standard score (:mod:`app.engine.rules`); never below 0.

        Undo restores the exact previous score. The line never holds more than 53
        actions (28 removals and at most 25 draws), so the floor at 0 is never reached and
        this closed form equals the score counted move by move.

        Under traditional scoring it starts at 0 and may go below. Both are worked out
        from the line, so undo restores them exactly, run included.
        """
        cleared = sum(self.peaks_cleared)
        if not self._code.variants.traditional:
            return max(0, standard_score(len(self._line), cleared))
        return traditional_score((a == DRAW for a in self._line), cleared)

    @property
    def peak_bonus(self) -> int:
        """What the peaks emptied so far have paid, under the game's scoring."""
        return peak_bonus(sum(self.peaks_cleared), traditional=self._code.variants.traditional)

    def card_at(self, position: int) -> Card | None:
        """The card at a position, or ``None`` once removed."""
        _check_position(position)
        return None if self._removed >> position & 1 else self._deal.tableau[position]

    def is_removed(self, position: int) -> bool:
        _check_position(position)
        return bool(self._removed >> position & 1)

    def is_exposed(self, position: int) -> bool:
        """On the board and covered by no card (and so face up)."""
        _check_position(position)
        return bool(exposed_mask(self._removed) >> position & 1)

    def face_up_mask(self) -> int:
        """The cards shown face up: the exposed ones; with open peaks, every card still on the board."""
        if self._code.variants.open_peaks:
            return ALL_POSITIONS_MASK & ~self._removed
        return exposed_mask(self._removed)

    def is_face_up(self, position: int) -> bool:
        _check_position(position)
        return bool(self.face_up_mask() >> position & 1)

    def cards_left(self) -> int:
        """Cards still on the peaks."""
        return POSITION_COUNT - self._removed.bit_count()

    # -- legal moves and status ------------------------------------------------------------

    def playable_mask(self) -> int:
        if self._removed == ALL_POSITIONS_MASK:
            return 0
        return exposed_mask(self._removed) & self._playable_by_rank[self._waste_rank]

    def playable_positions(self) -> list[int]:
        """The positions that can be removed now."""
        return positions_of(self.playable_mask())

    def can_draw(self) -> bool:
        return self._drawn < self._stock_size and self._removed != ALL_POSITIONS_MASK

    @property
    def status(self) -> Status:
        if self._removed == ALL_POSITIONS_MASK:
            return Status.WON
        if self._drawn == self._stock_size and not self.playable_mask():
            return Status.BLOCKED
        return Status.PLAYING

    @property
    def is_over(self) -> bool:
        """Won: no more moves or undo. (A blocked game can still be undone.)"""
        return self._removed == ALL_POSITIONS_MASK

    def refusal_for_remove(self, position: int) -> Refusal | None:
        _check_position(position)
        if self._removed == ALL_POSITIONS_MASK:
            return Refusal.GAME_OVER
        bit = 1 << position
        if self._removed & bit:
            return Refusal.NO_CARD
        if not exposed_mask(self._removed) & bit:
            return Refusal.CARD_BLOCKED
        if not self._playable_by_rank[self._waste_rank] & bit:
            return Refusal.RANK_MISMATCH
        return None

    def refusal_for_draw(self) -> Refusal | None:
        if self._removed == ALL_POSITIONS_MASK:
            return Refusal.GAME_OVER
        if self._drawn == self._stock_size:
            return Refusal.STOCK_EMPTY
        return None

    def refusal_for_undo(self) -> Refusal | None:
        if self._removed == ALL_POSITIONS_MASK:
            return Refusal.GAME_OVER
        if not self._undo_available:
            return Refusal.NOTHING_TO_UNDO
        return None

    # -- actions ---------------------------------------------------------------------------

    def remove(self, position: int) -> None:
        """Move the exposed card at ``position`` onto the waste."""
        refusal = self.refusal_for_remove(position)
        if refusal is not None:
            raise RefusedAction(refusal)
        self._removed |= 1 << position
        self._waste = self._deal.tableau[position]
        self._line.append(position)
        self._acted()

    def draw(self) -> None:
        """Turn the top stock card onto the waste."""
        refusal = self.refusal_for_draw()
        if refusal is not None:
            raise RefusedAction(refusal)
        self._waste = self._deal.stock[self._drawn]
        self._drawn += 1
        self._line.append(DRAW)
        self._acted()

    def undo(self) -> Action:
        """Take back the latest action; returns it."""
        refusal = self.refusal_for_undo()
        if refusal is not None:
            raise RefusedAction(refusal)
        last = self._line.pop()
        if last == DRAW:
            self._drawn -= 1
        else:
            self._removed &= ~(1 << last)
        self._waste = self._card_of(self._line[-1]) if self._line else self._deal.waste
        self._undo_available -= 1
        self._ended_after = None  # an undone end (blocked) plays on: the clock runs again
        return Action(None if last == DRAW else last)

    def play(self, action: Action) -> None:
        if action.position is None:
            self.draw()
        else:
            self.remove(action.position)

    @property
    def _waste_rank(self) -> int:
        """The waste card's rank; 0 (every card fits) for the joker or an empty waste."""
        return 0 if self._waste is None else self._waste.rank

    def _acted(self) -> None:
        self._moves += 1
        if self._undo_available < self.undo_limit:
            self._undo_available += 1

    def _card_of(self, action: int) -> Card:
        """The card an action in effect put on the waste (a draw: the latest drawn)."""
        return self._deal.stock[self._drawn - 1] if action == DRAW else self._deal.tableau[action]

    # -- copies, equality, serialisation ---------------------------------------------------

    def copy(self) -> Game:
        other = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(other, name, getattr(self, name))
        other._line = list(self._line)
        return other

    def _key(self) -> tuple[object, ...]:
        """What equal games share: the same play. The clock says only when it was played, and
        is not compared (two games played alike are equal whenever they were played)."""
        return (
            self._code, tuple(self._line), self._moves, self._undo_available, self.undo_limit, self._hints
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"<Game {self._code.text()} moves={self._moves} score={self.score} {self.status.value}>"

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-able data; :meth:`from_dict` gives back an identical game."""
        state: dict[str, Any] = {
            "code": self._code.text(),
            "line": [a for a in self._line],
            "moves": self._moves,
            "undo": self._undo_available,
        }
        if self._hints:
            state["hints"] = self._hints
        if self._started is not None:
            state["started"] = self._started
        if self._ended_after is not None:
            state["ended_after"] = self._ended_after
        return state

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_dict`; raises :class:`StateError` for anything inconsistent."""
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
        game = cls(code)
        try:
            game.replay(DRAW if a == DRAW else _position(a) for a in line)
        except (RefusedAction, PositionError) as error:
            raise StateError(f"not a stored game: its line is not playable ({error})") from None
        # Every action in effect can be undone (up to the limit): the counter follows the line.
        if not len(line) <= moves or undo != min(len(line), UNDO_LIMIT):
            raise StateError("not a stored game: its counters do not fit its line")
        game._moves, game._undo_available, game._hints = moves, undo, hints
        # The clock (older states have none): a start, and an end only once the game has ended.
        if not all(_is_time(t) for t in (started, ended_after)):
            raise StateError("not a stored game: 'started' and 'ended_after' must be seconds")
        if ended_after is not None and (started is None or game.status is Status.PLAYING):
            raise StateError("not a stored game: only an ended game's clock has stopped")
        game._started = None if started is None else float(started)
        game._ended_after = None if ended_after is None else float(ended_after)
        return game

    def replay(self, line: Iterable[int]) -> None:
        """Play a line of actions (positions, or ``DRAW``) from the current state."""
        for a in line:
            if a == DRAW:
                self.draw()
            else:
                self.remove(a)

    # -- the board in words ----------------------------------------------------------------

    def describe(self) -> str:
        """The board in words (SPEC section 9), in English."""
        return describe_board(self, card_words=Card.words)

    def deal_dict(self) -> dict[str, Any]:
        """The full deal, every card shown (for ``tripeaks deal --json``)."""
        return {
            "code": self._code.text(),
            "rules": self.rules.word,
            "deal_number": self._code.number,
            "tableau": [c.text() for c in self._deal.tableau],
            "waste": None if self._deal.waste is None else self._deal.waste.text(),
            "stock": [c.text() for c in self._deal.stock],
            **({"variants": self._code.variants.words} if self._code.variants else {}),
        }


def _check_position(position: int) -> None:
    if type(position) is not int or not 0 <= position < POSITION_COUNT:
        raise PositionError(f"position {position!r} is not on the board (0 to 27)")


def _is_time(value: object) -> bool:
    """``None``, or a finite, non-negative number of seconds (JSON's int or float)."""
    if value is None:
        return True
    if type(value) is int or type(value) is float:
        return 0 <= value < 1e12  # (NaN and infinity are not)
    return False


def _position(value: int) -> int:
    _check_position(value)
    return value


def describe_board(
    game: Game,
    *,
    card_words: Any,
    hidden: str = "hidden card",
    row_names: tuple[str, ...] = ROW_NAMES,
    stock_words: Any = None,
    waste_word: str = "waste",
    empty: str = "empty",
    show_all: bool = False,
) -> str:
    """The board in words: ``Stock: 23 cards; waste: ace of clubs. Peak tops: hidden card, ...``.

    Removed cards are left out, and so is a row with no card left. ``card_words``
    names a card, ``stock_words`` says the stock (``"Stock: 23 cards"``);
    translations pass their own. ``show_all`` names face-down cards too. ``empty`` says the
    waste before its first card (the empty-waste variant).
    """
    count = game.stock_count
    stock = (
        stock_words(count)
        if stock_words is not None
        else f"Stock: {count} card{'' if count == 1 else 's'}"
    )
    parts = []
    removed, tableau = game.removed_mask, game.deal.tableau
    shown = ALL_POSITIONS_MASK if show_all else game.face_up_mask()
    for name, row in zip(row_names, ROWS, strict=True):
        words = [
            card_words(tableau[p]) if shown >> p & 1 else hidden
            for p in row
            if not removed >> p & 1
        ]
        if words:
            parts.append(f"{name}: {', '.join(words)}")
    board = "; ".join(parts)
    board = board[:1].upper() + board[1:]
    waste = empty if game.waste is None else card_words(game.waste)
    return f"{stock}; {waste_word}: {waste}." + (f" {board}" if board else "")

