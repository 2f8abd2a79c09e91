"""The order of a day's attempts (and of any table of finishers): who ranks above whom.

Pure rules, no database: the daily leaderboard (:mod:`app.store.database.daily_sql`) and a race's
finish table use the same ones.

1. an attempt that looks played by a person ranks; one whose actions came faster than a
   person can play (:func:`plausible`) is listed after all of them as "not ranked";
2. no hints before hints (an attempt that used a hint ranks after every one that used none);
3. won before not won;
4. the higher score;
5. the shorter time (the game clock; no time ranks after any time);
6. who finished first.

:func:`board_key` is rules 1 to 5 as one integer, for a database index; :func:`order_key`
adds rule 6; :func:`standings` numbers a list by them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

T = TypeVar("T")

QUICK_GAP_S: Final = 0.150
"""An interval between two actions shorter than this is quicker than a person plays."""
QUICKEST_WIN_S: Final = 5.0
"""A whole win (28 removals and the draws between) in less than this is not a person's."""

_SCORE_BITS: Final = 20
_TIME_BITS: Final = 32
_SCORE_OFFSET: Final = 1 << (_SCORE_BITS - 1)
_NO_TIME: Final = (1 << _TIME_BITS) - 1


@dataclass(frozen=True, slots=True)
class Entry:
    """What the order looks at in one attempt."""

    won: bool
    score: int
    seconds: float | None
    """The game clock at its end (``None``: no clock)."""
    finished: float
    """When it finished (seconds since the epoch): the earlier ranks first on a tie."""
    hints: int = 0
    plausible: bool = True


def plausible(*, won: bool, seconds: float | None, gaps: int, quick: int) -> bool:
    """Whether an attempt looks played by a person: not a whole win in under
    :data:`QUICKEST_WIN_S`, and a median interval between actions of at least
    :data:`QUICK_GAP_S` (``quick`` of its ``gaps`` intervals were shorter: more than
    half of them is a median under it)."""
    if won and seconds is not None and seconds < QUICKEST_WIN_S:
        return False
    return not (gaps > 0 and 2 * quick > gaps)


def board_key(entry: Entry) -> int:
    """Rules 1 to 5 as one non-negative integer under 2**55: the smaller ranks first."""
    score = min(max(entry.score + _SCORE_OFFSET, 0), (1 << _SCORE_BITS) - 1)
    seconds = entry.seconds
    millis = _NO_TIME if seconds is None else min(max(round(seconds * 1000), 0), _NO_TIME - 1)
    key = int(not entry.plausible)
    key = key << 1 | (entry.hints > 0)
    key = key << 1 | (not entry.won)
    key = key << _SCORE_BITS | ((1 << _SCORE_BITS) - 1 - score)
    return key << _TIME_BITS | millis


def order_key(entry: Entry) -> tuple[int, float]:
    """The whole order (rules 1 to 6): sort by it, the first ranks first."""
    return board_key(entry), entry.finished


@dataclass(frozen=True, slots=True)
class Standing(Generic[T]):
    rank: int | None
    """1 for the first; ``None`` for an attempt that is not ranked (not :func:`plausible`)."""
    item: T


def standings(items: Iterable[T], entry_of: Callable[[T], Entry]) -> list[Standing[T]]:
    """``items`` in order, numbered: the ranked ones 1, 2, 3…, then the rest, unnumbered."""
    ordered = sorted(items, key=lambda item: order_key(entry_of(item)))
    out: list[Standing[T]] = []
    rank = 0
    for item in ordered:
        if entry_of(item).plausible:
            rank += 1
            out.append(Standing(rank, item))
        else:
            out.append(Standing(None, item))
    return out

