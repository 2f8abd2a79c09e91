"""A game of TriPeaks: remove, draw, undo, score and status (SPEC sections 4-7).

A game's state is its code and its *line*: the actions still in effect, in order, each of
which put one card on the waste (a removal, or a draw). Everything else follows from the line
(removed positions, cards drawn, the waste card, the score, the *run*); undo takes the last
action off it. Beside it are kept ``moves`` (every action ever made; it never goes down),
``undo_available`` (at most ``undo_limit``) and the *clock*, which the caller tells the time
(:meth:`Game.note_time`): the engine reads no clock.

Refused actions raise :class:`RefusedAction` carrying a :class:`Refusal` and leave the game as
it was; ``refusal_for_remove`` and friends ask without acting. Variants (``docs/variants.md``)
are consulted where the rules differ: which cards fit, which are face up, the score. The game
as data is :mod:`app.engine.state`; the board in words, :mod:`app.engine.words`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Final

from app.engine.actions import DRAW, Action, Refusal, RefusedAction, check_position
from app.engine.cards import Card
from app.engine.deal import Deal, GameCode, Rules
from app.engine.layout import Layout, positions_of
from app.engine.rules import longest_run, peak_bonus, run_of, score, tableau_by_rank
from app.engine.variants import Variants

UNDO_LIMIT: Final = 100


class Status(enum.Enum):
    PLAYING = "playing"
    WON = "won"
    BLOCKED = "blocked"


class Game:
    """One game of a deal: ``Game.from_code("TP1-E-AAAAAAB")``, ``remove``, ``draw``, ``undo``."""

    __slots__ = (
        "_code",
        "_deal",
        "_drawn",
        "_ended_after",
        "_exposed",
        "_full",
        "_hints",
        "_layout",
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
        self._playable_by_rank = tableau_by_rank(code)
        self._layout = code.layout
        self._full = code.layout.all_mask
        self._exposed = code.layout.exposed
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
    def layout(self) -> Layout:
        return self._layout

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
    def line_codes(self) -> tuple[int, ...]:
        """The line as a stored state writes it: positions, and ``DRAW`` for a draw."""
        return tuple(self._line)

    @property
    def line(self) -> tuple[Action, ...]:
        """The actions in effect, oldest first."""
        return tuple(Action(None if a == DRAW else a) for a in self._line)

    @property
    def run(self) -> int:
        """Removals in a row at the end of the line: since the last draw (or the deal)."""
        return run_of(self._line)

    @property
    def longest_run(self) -> int:
        """The longest run of removals without a draw in the line (the actions in effect)."""
        return longest_run(self._line)

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
    def peaks_cleared(self) -> tuple[bool, ...]:
        return self._layout.peaks_cleared(self._removed)

    @property
    def score(self) -> int:
        """The score under the game's scoring, from the line (:func:`app.engine.rules.score`)."""
        cleared, peaks = sum(self.peaks_cleared), self._layout.peak_count
        return score(self._line, cleared, peaks, traditional=self._code.variants.traditional)

    @property
    def peak_bonus(self) -> int:
        """What the peaks emptied so far have paid, under the game's scoring."""
        return peak_bonus(
            sum(self.peaks_cleared), self._layout.peak_count, traditional=self._code.variants.traditional
        )

    def card_at(self, position: int) -> Card | None:
        """The card at a position, or ``None`` once removed."""
        check_position(position, self._layout.count)
        return None if self._removed >> position & 1 else self._deal.tableau[position]

    def is_removed(self, position: int) -> bool:
        check_position(position, self._layout.count)
        return bool(self._removed >> position & 1)

    def is_exposed(self, position: int) -> bool:
        """On the board and covered by no card (and so face up)."""
        check_position(position, self._layout.count)
        return bool(self._exposed(self._removed) >> position & 1)

    def face_up_mask(self) -> int:
        """The cards shown face up: the exposed ones; with open peaks, every card still on the board."""
        if self._code.variants.open_peaks:
            return self._full & ~self._removed
        return self._exposed(self._removed)

    def is_face_up(self, position: int) -> bool:
        check_position(position, self._layout.count)
        return bool(self.face_up_mask() >> position & 1)

    def cards_left(self) -> int:
        """Cards still on the peaks."""
        return self._layout.count - self._removed.bit_count()

    # -- legal moves and status ------------------------------------------------------------

    def playable_mask(self) -> int:
        if self._removed == self._full:
            return 0
        return self._exposed(self._removed) & self._playable_by_rank[self._waste_rank]

    def playable_positions(self) -> list[int]:
        """The positions that can be removed now."""
        return positions_of(self.playable_mask())

    def can_draw(self) -> bool:
        return self._drawn < self._stock_size and self._removed != self._full

    @property
    def status(self) -> Status:
        if self._removed == self._full:
            return Status.WON
        if self._drawn == self._stock_size and not self.playable_mask():
            return Status.BLOCKED
        return Status.PLAYING

    @property
    def is_over(self) -> bool:
        """Won: no more moves or undo. (A blocked game can still be undone.)"""
        return self._removed == self._full

    def refusal_for_remove(self, position: int) -> Refusal | None:
        check_position(position, self._layout.count)
        if self._removed == self._full:
            return Refusal.GAME_OVER
        bit = 1 << position
        if self._removed & bit:
            return Refusal.NO_CARD
        if not self._exposed(self._removed) & bit:
            return Refusal.CARD_BLOCKED
        if not self._playable_by_rank[self._waste_rank] & bit:
            return Refusal.RANK_MISMATCH
        return None

    def refusal_for_draw(self) -> Refusal | None:
        if self._removed == self._full:
            return Refusal.GAME_OVER
        if self._drawn == self._stock_size:
            return Refusal.STOCK_EMPTY
        return None

    def refusal_for_undo(self) -> Refusal | None:
        if self._removed == self._full:
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

    def restore(
        self, *, moves: int, undo: int, hints: int, started: float | None, ended_after: float | None
    ) -> None:
        """Set the counters and the clock kept beside the line (for a stored game, checked by
        :func:`app.engine.state.game_from_state`)."""
        self._moves, self._undo_available, self._hints = moves, undo, hints
        self._started, self._ended_after = started, ended_after

    def replay(self, line: Iterable[int]) -> None:
        """Play a line of actions (positions, or ``DRAW``) from the current state."""
        for a in line:
            if a == DRAW:
                self.draw()
            else:
                self.remove(a)
