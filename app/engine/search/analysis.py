"""A whole deal analysed at once: for every position play can reach, can it still be won,
and what is the best score still reachable.

    >>> analysis = analyse(GameCode.parse("TP1-E-AAAAAAB"))
    >>> analysis.winnable(0, 0, analysis.waste_after(0))
    True

A position is ``(removed, drawn, waste)``: the set of removed peak cards (a 28-bit mask),
the number of cards drawn and the waste card's rank. Its future depends on nothing else.
The analysis is a backward pass over the 22,932 sets of removed cards that play can
reach, from the full set (the game won) down to the empty one: a set's positions are
judged from the positions one removal further on, which are judged already. Two facts
make the tables small:

* **Fewer cards drawn is never worse.** A line from ``drawn + 1`` is followed from
  ``drawn`` by drawing one card more at its first draw (its score one higher, or the
  same if it draws). So, for each set and waste rank, the positions that can still be
  won are those drawn at most some threshold: one small number, ``win_limit``.
* **Right after a draw the waste is known from the number drawn** (the stock card just
  drawn). The best score reachable is kept for those positions only (``best_after_draw``,
  one per set and number drawn); any other position's is found from its removals (a short
  search over the runs of removals, which end in a draw or a block) and those values.

The two passes (:mod:`app.engine.search.passes`, :mod:`app.engine.search.best_pass`) each
work on all of one row of sets at once (the sets with the same number of cards removed)
with numpy, a few array operations per row, 28 rows. This module holds what a deal's
analysis answers, and the cache.

Memory: ``win_limit`` is 22,932 x 14 bytes, ``best_after_draw`` 22,932 x 24 x 2 bytes:
about 1.4 MiB a deal in all (:attr:`DealAnalysis.nbytes`).

In the variants (``docs/variants.md``) a waste of rank 0 is wild (the joker, or no waste
card yet) and takes every card; the stock may hold 24 or 25 cards. Under traditional
scoring (``T``) the score so far depends on the line, and the future on the current run as
well: ``best_after_draw`` then holds the best *gain* right after each draw (the run 0,
:mod:`app.engine.search.runs`), and a position is asked with its run and its score so far
(:meth:`DealAnalysis.verdict`'s ``run`` and ``score``; :meth:`DealAnalysis.of` reads them
from the game). Whether a position can be won is the same as in the standard game.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from app.engine.actions import Action
from app.engine.deal import GameCode, rank_of
from app.engine.game import Game
from app.engine.rules import BEST_SCORE, best_score, tableau_by_rank
from app.engine.search.best_pass import best_after_draws
from app.engine.search.passes import (
    Int8Array,
    Int16Array,
    _Sets,
    _sets,
    score_of,
    win_limits,
)
from app.engine.search.runs import best_gain, peak_bonus, run_best_after_draws

__all__ = ["ANALYSES", "AnalysisCache", "DealAnalysis", "PositionVerdict", "analyse", "score_of"]

MOST_DRAWS: Final = 25
"""The most cards a stock holds (three peaks with the joker and the empty waste)."""
WON_MIN_SCORE: Final = BEST_SCORE - MOST_DRAWS
"""Three peaks: every win scores at least this (the best score less the draws); a game not
won at most 682. On every layout a win scores at least its best score less 25, more than
any game not won (``tests/solver/test_layout_analysis.py``)."""

# -- the analysis of one deal, and what it answers ------------------------------------------


@dataclass(frozen=True, slots=True)
class PositionVerdict:
    """What the analysis says of one position.

    ``winnable``: all 28 cards can still be removed. ``best_score``: the best score a game
    can still show from here (a win's score when ``winnable``; otherwise the highest the
    score can get, which may be the score already shown). ``move``: an action towards that
    best score (on a winning line when ``winnable``), or ``None`` when no action gets there
    (the game is over, or every action only costs points).

    Under traditional scoring (``T``) ``winnable`` comes from the win table, and the best
    score is the highest any line reaches, which is not always a win's: the draws a win
    still needs may cost more (5 each) than its removals and peaks bring. ``move`` is then
    towards that best score and may give the win up (see :func:`app.engine.search.hints.hint`
    for the action a hint gives).
    """

    winnable: bool
    best_score: int
    move: Action | None


@dataclass(frozen=True, eq=False)
class DealAnalysis:
    """Every reachable position of one deal under one rule set, judged (see the module doc).

    Positions are given as ``(removed, drawn, waste)``: a mask of the removed positions,
    the number of cards drawn and the waste card's rank; :meth:`verdict` takes a
    :class:`Game`. Lookups are pure: an instance may be shared between threads.
    """

    code: GameCode
    win_limit: Int8Array
    """Rows: the reachable sets of removed cards; columns: waste rank (1-13). The most
    cards drawn from which the position can be won, ``-1`` when it cannot."""
    best_after_draw: Int16Array | None
    """Rows: the sets; columns: cards drawn. The best score reachable right after a draw
    (under traditional scoring: the best gain from there, the run 0); ``None`` in an
    analysis made without scores (``analyse(code, scores=False)``)."""
    ranks: tuple[int, ...]
    waste_after: tuple[int, ...]
    """The waste card's rank after ``d`` draws: the deal's waste card, then the stock (0: the
    joker, or at ``d = 0`` an empty waste)."""
    fits: tuple[int, ...]
    """For each waste rank (0: wild), the mask of positions whose card it takes."""

    @property
    def nbytes(self) -> int:
        """The memory the tables take (the layout they are indexed by is shared by all deals)."""
        scores = 0 if self.best_after_draw is None else self.best_after_draw.nbytes
        return int(self.win_limit.nbytes + scores)

    @property
    def _sets(self) -> _Sets:
        """The reachable sets of the deal's layout, built once per process and layout."""
        return _sets(self.code.layout)

    @property
    def _full(self) -> int:
        return self.code.layout.all_mask

    def _row(self, removed: int) -> int:
        row = self._sets.index.get(removed)
        if row is None:
            raise ValueError(f"removed mask {removed:#x} cannot arise in play")
        return row

    @property
    def stock_size(self) -> int:
        """The cards in the deal's stock: 23, or 24 or 25 in the joker and empty-waste variants."""
        return len(self.waste_after) - 1

    def _check(self, drawn: int, waste: int) -> None:
        if not 0 <= drawn <= self.stock_size or not 0 <= waste <= 13:
            raise ValueError(f"no position has {drawn} cards drawn and a waste of rank {waste}")

    def winnable(self, removed: int, drawn: int, waste: int) -> bool:
        """Whether the position can still be won."""
        self._check(drawn, waste)
        return drawn <= int(self.win_limit[self._row(removed), waste])

    def best_score(self, removed: int, drawn: int, waste: int) -> int:
        """The best score reachable from the position (itself included); under traditional
        scoring, use :meth:`verdict` with the run and the score so far."""
        self._check(drawn, waste)
        if self.traditional:
            raise ValueError("under traditional scoring the best score needs the run and the score")
        return self._best(removed, drawn, waste, {})

    def _best(self, removed: int, drawn: int, waste: int, memo: dict[int, int]) -> int:
        if self.best_after_draw is None:
            raise ValueError("this analysis was made without scores")
        # Right after a draw (or any position whose waste is the card just drawn: its
        # future is the same) the table has it. Otherwise: staying, drawing, or a removal.
        if removed == self._full:
            return best_score(self.code.layout) - drawn
        row = self._row(removed)
        if waste == self.waste_after[drawn]:
            return int(self.best_after_draw[row, drawn])
        key = removed << 4 | waste
        known = memo.get(key)
        if known is not None:
            return known
        best = score_of(removed, drawn, self.code.layout)
        if drawn < self.stock_size:
            best = max(best, int(self.best_after_draw[row, drawn + 1]))
        playable = self._sets.exposed[row] & self.fits[waste]
        while playable:
            low = playable & -playable
            playable ^= low
            p = low.bit_length() - 1
            best = max(best, self._best(removed | low, drawn, self.ranks[p], memo))
        memo[key] = best
        return best

    def winning_move(self, removed: int, drawn: int, waste: int) -> Action | None:
        """An action that keeps a win in reach (``None`` if there is no win from here)."""
        if removed == self._full or not self.winnable(removed, drawn, waste):
            return None
        sets = self._sets
        playable = sets.exposed[self._row(removed)] & self.fits[waste]
        while playable:
            p = playable.bit_length() - 1  # the bottom row first
            playable ^= 1 << p
            after = removed | 1 << p
            if after == self._full or drawn <= int(self.win_limit[sets.index[after], self.ranks[p]]):
                return Action(p)
        return Action(None)  # a winnable position with no winning removal: the draw is

    def after(self, action: Action, removed: int, drawn: int) -> tuple[int, int, int]:
        """The position ``(removed, drawn, waste)`` after ``action`` (not checked)."""
        if action.position is None:
            return removed, drawn + 1, self.waste_after[drawn + 1]
        return removed | 1 << action.position, drawn, self.ranks[action.position]

    def winning_line(self, removed: int, drawn: int, waste: int) -> list[Action] | None:
        """A line of actions from the position to a win, or ``None`` if there is no win."""
        line: list[Action] = []
        while removed != self._full:
            move = self.winning_move(removed, drawn, waste)
            if move is None:
                return None
            line.append(move)
            removed, drawn, waste = self.after(move, removed, drawn)
        return line

    def best_line(self, removed: int, drawn: int, waste: int, *, run: int = 0) -> list[Action]:
        """A line from the position to its best score (to a win, when it can be won; under
        traditional scoring, whose position needs its ``run``, the best score is not always
        a win's, see :class:`PositionVerdict`)."""
        line: list[Action] = []
        while (move := self.verdict(removed, drawn, waste, run=run, score=0).move) is not None:
            line.append(move)
            removed, drawn, waste = self.after(move, removed, drawn)
            run = 0 if move.position is None else run + 1
        return line

    def verdict(
        self, removed: int, drawn: int, waste: int, *, run: int = 0, score: int | None = None
    ) -> PositionVerdict:
        """Whether the position can be won, its best score, and a move towards that score.

        Under traditional scoring the position needs its ``run`` (removals since the last
        draw or the deal; 0 right after a draw) and its ``score`` so far; the standard game
        ignores both (its score follows from the position).
        """
        self._check(drawn, waste)
        if self.traditional:
            return self._traditional_verdict(removed, drawn, waste, run, score)
        memo: dict[int, int] = {}
        best = self._best(removed, drawn, waste, memo)
        winnable = best >= best_score(self.code.layout) - MOST_DRAWS
        move: Action | None = None
        if removed != self._full:
            assert self.best_after_draw is not None  # _best checked it
            row = self._row(removed)
            playable = self._sets.exposed[row] & self.fits[waste]
            while playable and move is None:
                p = playable.bit_length() - 1
                playable ^= 1 << p
                if self._best(removed | 1 << p, drawn, self.ranks[p], memo) == best:
                    move = Action(p)
            if (
                move is None
                and drawn < self.stock_size
                and int(self.best_after_draw[row, drawn + 1]) == best
                and best > score_of(removed, drawn, self.code.layout)
            ):
                move = Action(None)
        return PositionVerdict(winnable, best, move)

    @property
    def traditional(self) -> bool:
        """Whether the deal is played under traditional scoring (variant ``T``)."""
        return self.code.variants.traditional

    def _traditional_verdict(
        self, removed: int, drawn: int, waste: int, run: int, score: int | None
    ) -> PositionVerdict:
        if score is None:
            raise ValueError("under traditional scoring a position needs its score so far")
        table = self.best_after_draw
        if table is None:
            raise ValueError("this analysis was made without scores")
        row = self._row(removed)
        if not 0 <= run <= removed.bit_count():
            raise ValueError(f"a run of {run} removals cannot follow {removed.bit_count()} removed")
        if run == 0 and removed != self._full and waste != self.waste_after[drawn]:
            raise ValueError("right after a draw (the run 0) the waste is the card just drawn")
        winnable = self.winnable(removed, drawn, waste)
        memo: dict[int, int] = {}
        gain = best_gain(table, self.fits, self.ranks, (removed, drawn, waste, run), memo, self.code.layout)
        move: Action | None = None
        if removed != self._full:
            here = peak_bonus(removed, self.code.layout)
            playable = self._sets.exposed[row] & self.fits[waste]
            while playable and move is None:  # the bottom row first, as in the standard game
                p = playable.bit_length() - 1
                playable ^= 1 << p
                after = removed | 1 << p
                points = run + 1 + peak_bonus(after, self.code.layout) - here
                child = (after, drawn, self.ranks[p], run + 1)
                if points + best_gain(table, self.fits, self.ranks, child, memo, self.code.layout) == gain:
                    move = Action(p)
            if move is None and gain > 0 and drawn < self.stock_size:
                move = Action(None)  # no removal gets there: the draw does (stopping gains 0)
        return PositionVerdict(winnable, score + gain, move)

    def keeps_win(self, action: Action, removed: int, drawn: int) -> bool:
        """Whether the position after ``action`` can still be won (it is not checked legal)."""
        after = self.after(action, removed, drawn)
        return after[0] == self._full or self.winnable(*after)

    def of(self, game: Game) -> PositionVerdict:
        """:meth:`verdict` for the game's position (the game must be of this deal)."""
        if game.code != self.code:
            raise ValueError(f"this analysis is of {self.code.text()}, not {game.code_text()}")
        if game.is_over:
            return PositionVerdict(True, game.score, None)
        return self.verdict(
            game.removed_mask, game.drawn, rank_of(game.waste), run=game.run, score=game.score
        )

    def start(self) -> PositionVerdict:
        """The verdict on the deal as dealt (under traditional scoring its score is 0)."""
        return self.verdict(0, 0, self.waste_after[0], run=0, score=0)

    def winning_first_moves(self) -> int:
        """How many of the actions open at the deal keep a win in reach (a difficulty input)."""
        playable = self._sets.exposed[0] & self.fits[self.waste_after[0]]
        removals = sum(
            self.winnable(1 << p, 0, self.ranks[p]) for p in range(len(self.ranks)) if playable >> p & 1
        )
        return removals + self.winnable(0, 1, self.waste_after[1])


def analyse(code: GameCode, *, scores: bool = True) -> DealAnalysis:
    """Analyse the deal named by ``code`` under its rules: whether each position can be won
    (about 3 ms of CPU), and with ``scores`` its best score (about 8 ms more; under
    traditional scoring the longest-runs pass of :mod:`app.engine.search.runs`, several times
    that: ``docs/performance.md``)."""
    deal, layout = code.deal(), code.layout
    scoring = run_best_after_draws if code.variants.traditional else best_after_draws
    return DealAnalysis(
        code=code,
        win_limit=win_limits(deal, code.rules, layout),
        best_after_draw=scoring(deal, code.rules, layout) if scores else None,
        ranks=tuple(card.rank for card in deal.tableau),
        waste_after=(rank_of(deal.waste), *(card.rank for card in deal.stock)),
        fits=tableau_by_rank(code),
    )


class AnalysisCache:
    """Recent deals' analyses, the least recently used dropped past ``max_bytes`` in all.

    Thread-safe. :meth:`get` analyses a deal not kept yet (in the calling thread);
    :meth:`put` keeps one made elsewhere (the web app's worker processes).
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._kept: OrderedDict[GameCode, DealAnalysis] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def nbytes(self) -> int:
        return self._bytes

    def peek(self, code: GameCode) -> DealAnalysis | None:
        """The deal's analysis if it is kept (it becomes the most recently used)."""
        with self._lock:
            analysis = self._kept.get(code)
            if analysis is not None:
                self._kept.move_to_end(code)
            return analysis

    def get(self, code: GameCode) -> DealAnalysis:
        """The deal's analysis with scores, made now if it is not kept."""
        analysis = self.peek(code)
        if analysis is None:
            analysis = analyse(code)
            self.put(analysis)
        return analysis

    def put(self, analysis: DealAnalysis) -> None:
        if analysis.best_after_draw is None:
            raise ValueError("only analyses with scores are kept")
        with self._lock:
            old = self._kept.pop(analysis.code, None)
            if old is not None:
                self._bytes -= old.nbytes
            self._kept[analysis.code] = analysis
            self._bytes += analysis.nbytes
            while self._bytes > self.max_bytes and len(self._kept) > 1:
                _, dropped = self._kept.popitem(last=False)
                self._bytes -= dropped.nbytes


ANALYSES: Final = AnalysisCache(64 << 20)
"""The analyses :func:`app.engine.search.hints.hint` uses: 64 MiB, about 45 deals."""
