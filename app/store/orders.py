"""Each recent day's ranked attempts in order, kept in this process: "12th of 340" without a count.

A rank is the number of ranked attempts before one, plus one; counted by the database it
costs a scan of up to a day's whole index (100,000 entries: tens of milliseconds). So the
SQL store keeps, per day and view (while the day runs: the ended attempts; once it is over:
all of them), the ``(board_key, at)`` pairs of its ranked attempts, sorted: a rank is a
binary search, the count ``len``.

* Loaded from the database the first time a day is asked for (one index scan).
* This process's own changes (:meth:`DayOrders.apply`, after their commit) go in at once:
  on one server every rank is exact.
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

from app.store.attempts import AttemptRow, counted

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
        self, load: Callable[[str, bool], list[Key]], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._load = load
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
        try:
            keys = self._load(*view)
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

    def apply(self, old: AttemptRow, new: AttemptRow) -> None:
        """A committed change of one attempt, into every view held of its day."""
        with self._lock:
            for (day, over), order in self._orders.items():
                if day != new.day:
                    continue
                change = (key_of(old, over), key_of(new, over))
                if change[0] == change[1]:
                    continue
                _change(order.keys, *change)
                if order.reloading:
                    order.changes.append(change)
