"""The daily challenge's page tests: a fixed key and day (never the wall clock), its deal, and
its won and blocked lines (they are played with :func:`tests.support.pages.play`)."""

from __future__ import annotations

import datetime as dt
from typing import Final

from app.engine import Game, Status
from app.engine.search.daily import daily_code
from tests.support.deals import winning_line
from tests.support.store import greedy, line_of

KEY: Final = "daily-test-key"
THURSDAY: Final = dt.date(2026, 12, 3)
CODE: Final = daily_code(KEY.encode(), THURSDAY)
MORNING: Final = dt.datetime(2026, 12, 3, 9, tzinfo=dt.UTC).timestamp()
"""The clock of the tests: 9:00 UTC on that Thursday."""


def won_line() -> list[int]:
    line = winning_line(Game(CODE))
    assert line is not None
    return line


def blocked_line() -> tuple[int, ...]:
    game = greedy(CODE, prefer_draw=True)
    assert game.status is Status.BLOCKED
    return line_of(game)
