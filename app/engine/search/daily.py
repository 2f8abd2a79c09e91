"""The day's deal of the daily challenge: chosen by the solver, keyed with a secret.

A day's candidates are deal numbers drawn from HMAC-SHA256 of the installation's secret
key over ``"tripeaks-daily:<YYYY-MM-DD>:<n>"`` (``n`` = 0, 1, 2…; the first 8 bytes, big
endian, modulo the number of deals). They are walked in order, and the first that can be
won and is rated the weekday's band (:data:`WEEKDAY_BANDS`, the review's difficulty) is
the day's deal: the easiest on Monday, the hardest on Sunday. Without the key nobody can
work tomorrow's deal out tonight; with it, every server of one installation deals the
same. See ``docs/deals.md`` (with test vectors).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from functools import lru_cache
from typing import Final

from app.engine.deal import DEAL_COUNT, GameCode, Rules
from app.engine.search.analysis import analyse
from app.engine.search.review import Difficulty, playout_share, rate

WEEKDAY_BANDS: Final = (
    Difficulty.EASY,  # Monday
    Difficulty.MEDIUM,  # Tuesday
    Difficulty.MEDIUM,  # Wednesday
    Difficulty.HARD,  # Thursday
    Difficulty.HARD,  # Friday
    Difficulty.HARD,  # Saturday
    Difficulty.EXPERT,  # Sunday
)
"""The band of each weekday, Monday first."""

MAX_CANDIDATES: Final = 2000
"""A bound on the walk (every band turns up within a few dozen candidates: expert, the
rarest standard band, is about one deal in ten)."""


class NoDailyDeal(ValueError):
    """No candidate of the day's band within :data:`MAX_CANDIDATES` (never seen)."""


def band(day: dt.date) -> Difficulty:
    """The difficulty of ``day``'s deal."""
    return WEEKDAY_BANDS[day.weekday()]


def candidate(key: bytes, day: dt.date, n: int) -> GameCode:
    """The ``n``-th candidate for ``day``: standard rules (easy), no variants."""
    digest = hmac.new(key, f"tripeaks-daily:{day.isoformat()}:{n}".encode("ascii"), hashlib.sha256).digest()
    return GameCode(Rules.EASY, int.from_bytes(digest[:8], "big") % DEAL_COUNT)


def rating(code: GameCode) -> Difficulty:
    """The review's rating of a deal (the quick win pass, then the playouts)."""
    analysis = analyse(code, scores=False)
    winnable = analysis.winnable(0, 0, analysis.waste_after[0])
    return rate(winnable, playout_share(code) if winnable else 0.0)


@lru_cache(maxsize=64)
def daily_code(key: bytes, day: dt.date) -> GameCode:
    """The deal of ``day`` for the installation keyed ``key`` (kept once found)."""
    wanted = band(day)
    for n in range(MAX_CANDIDATES):
        code = candidate(key, day, n)
        if rating(code) is wanted:
            return code
    raise NoDailyDeal(f"no {wanted.value} deal among {MAX_CANDIDATES} candidates for {day}")
