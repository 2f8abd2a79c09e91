"""Each recent day's ranked attempts in order, and its leaderboard, kept in this process.

A rank is the number of ranked attempts before one, plus one; counted by the database it
costs a scan of up to a day's whole index (100,000 entries: tens of milliseconds). So the
SQL store keeps, per day and view (while the day runs: the ended attempts; once it is over:
all of them), the ``(board_key, at)`` pairs of its ranked attempts, sorted: a rank is a
binary search, the count ``len``.

It keeps the view's leaderboard too (its first :data:`LEADERBOARD_SIZE` rows, with names):
read from the database it is two round trips to PostgreSQL (the pool's ping and the
query), a few milliseconds each on a loaded machine and tens at its tail; held here it is
none (docs/performance.md has the figures that pay for it).

* Loaded from the database the first time a day is asked for (one index scan; the
  leaderboard: one index range of 100 rows).
* This process's own changes (:meth:`DayOrders.apply`, after their commit) go in at once:
  on one server every rank is exact. A change that reaches the leaderboard (or a player on
  it who takes another name, :meth:`DayOrders.renamed`) drops the one held: the next
  reader loads it again.
* Reloaded in a background thread once older than :data:`ORDER_TTL_S`, so changes made by
  the other servers of an installation are in within seconds; meanwhile the order held is
  served, and the changes made while the reload ran are applied again on top of it.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from app.store.attempts import LEADERBOARD_SIZE, Attempt, AttemptRow, counted

ORDER_TTL_S: Final = 30.0
DAYS_KEPT: Final = 6
"""Views kept (today's two, yesterday's two, and a couple of past days asked for)."""

Key = tuple[int, float]
View = tuple[str, bool]
"""A day's ISO text and whether it is over."""


def key_of(row: AttemptRow, over: bool) -> Key | None:
    """Where ``row`` stands in its day's view, or ``None`` when it is not in it (not counted
    yet, late, or not ranked)."""
    if not counted(row, over) or not row.plausible:
        return None
    return (row.board_key, row.at)


@dataclass(slots=True)
class _Order:
    keys: list[Key]
    loaded: float
    reloading: bool = False
    changes: list[tuple[Key | None, Key | None]] = field(default_factory=list)
    """The changes applied while a reload runs (applied again to what it loads)."""
    board: list[Attempt] | None = None
    """The view's first :data:`LEADERBOARD_SIZE` attempts in order, numbered and named
    (``None``: to load)."""
    dropped: int = 0
    """How many times the board held was dropped: a load begun before a drop is not kept."""

    def drop_board(self) -> None:
        self.board = None
        self.dropped += 1


def _drops(order: _Order, row: AttemptRow, over: bool) -> bool:
    """Whether a change of ``row`` (as it was or as it is) drops the board held: it is on
    the board or would be; or no board is held or a reload runs (a load under way may
    have read the day before the change: it is not kept)."""
    if not counted(row, over):
        return False
    board = order.board
    if board is None or order.reloading or len(board) < LEADERBOARD_SIZE:
        return True
    last = board[-1]
    return (row.board_key, row.at) <= (last.board_key, last.at)


def _change(keys: list[Key], old: Key | None, new: Key | None) -> None:
    if old is not None:
        i = bisect.bisect_left(keys, old)
        if i < len(keys) and keys[i] == old:
            del keys[i]
    if new is not None:
        i = bisect.bisect_left(keys, new)
        if i == len(keys) or keys[i] != new:
            keys.insert(i, new)


class DayOrders:
    """The orders of a few recent day views; thread-safe."""

    def __init__(
        self,
        load: Callable[[str, bool], list[Key]],
        load_board: Callable[[str, bool], list[Attempt]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._load = load
        self._load_board = load_board
        self._clock = clock
        self._lock = threading.Lock()
        self._orders: OrderedDict[View, _Order] = OrderedDict()

    def _order(self, view: View) -> _Order:
        with self._lock:
            order = self._orders.get(view)
            if order is not None:
                self._orders.move_to_end(view)
                if not order.reloading and self._clock() - order.loaded > ORDER_TTL_S:
                    order.reloading = True
                    threading.Thread(target=self._reload, args=(view,), daemon=True).start()
                return order
        keys = self._load(*view)  # the first time: here (one index scan)
        with self._lock:
            order = self._orders.get(view)
            if order is None:
                order = self._orders[view] = _Order(keys, self._clock())
                while len(self._orders) > DAYS_KEPT:
                    self._orders.popitem(last=False)
            return order

    def _reload(self, view: View) -> None:
        with self._lock:
            order = self._orders.get(view)
            dropped = order.dropped if order is not None else 0
        try:
            keys = self._load(*view)
            board = self._load_board(*view)
        except Exception:  # the database is away: keep what is held, try again later
            with self._lock:
                order = self._orders.get(view)
                if order is not None:
                    order.reloading, order.loaded, order.changes = False, self._clock(), []
            return
        with self._lock:
            order = self._orders.get(view)
            if order is None:
                return
            for old, new in order.changes:
                _change(keys, old, new)
            order.keys, order.loaded, order.reloading, order.changes = keys, self._clock(), False, []
            if order.dropped == dropped:
                order.board = board

    def rank(self, view: View, key: Key) -> int:
        """1 + how many ranked attempts of the view come before ``key``."""
        order = self._order(view)
        with self._lock:
            return bisect.bisect_left(order.keys, key) + 1

    def ranked(self, view: View) -> int:
        """How many ranked attempts the view holds."""
        order = self._order(view)
        with self._lock:
            return len(order.keys)

    def board(self, view: View) -> list[Attempt]:
        """The view's first :data:`LEADERBOARD_SIZE` attempts in order, numbered and named."""
        order = self._order(view)
        with self._lock:
            board, dropped = order.board, order.dropped
        if board is not None:
            return board
        board = self._load_board(*view)
        with self._lock:
            if order.dropped == dropped:
                order.board = board
        return board

    def renamed(self, player: str) -> None:
        """``player`` took another display name: drop every board they are on."""
        with self._lock:
            for order in self._orders.values():
                if order.board is not None and any(row.player == player for row in order.board):
                    order.drop_board()

    def forget(self, day: str) -> None:
        """Drop both views of ``day`` (attempts moved or removed): the next reader loads them."""
        with self._lock:
            for over in (False, True):
                self._orders.pop((day, over), None)

    def apply(self, old: AttemptRow, new: AttemptRow) -> None:
        """A committed change of one attempt, into every view held of its day."""
        with self._lock:
            for (day, over), order in self._orders.items():
                if day != new.day:
                    continue
                if _drops(order, old, over) or _drops(order, new, over):
                    order.drop_board()
                change = (key_of(old, over), key_of(new, over))
                if change[0] == change[1]:
                    continue
                _change(order.keys, *change)
                if order.reloading:
                    order.changes.append(change)
