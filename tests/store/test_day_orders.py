"""The day's order kept in the process (app.store.orders): own changes at once, the other
servers' after a reload in the background."""

from __future__ import annotations

import dataclasses
import time

from app.store.attempts import AttemptRow
from app.store.orders import ORDER_TTL_S, DayOrders, Key

ROW = AttemptRow(
    day="2026-12-03", player="p", game_id="g", code="TP1-E-AAAAAAB", late=False, ended=True, won=True,
    score=700, seconds=60.0, hints=0, plausible=True, gaps=40, quick=0, board_key=1000, started=0.0,
    last_action=10.0, at=10.0,
)  # fmt: skip


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_own_changes_go_in_at_once_and_others_after_a_reload() -> None:
    database: list[Key] = [(500, 1.0), (2000, 2.0)]
    loads: list[str] = []

    def load(day: str, over: bool) -> list[Key]:
        loads.append(day)
        return sorted(database)

    clock = Clock()
    orders = DayOrders(load, clock)
    view = ("2026-12-03", False)
    assert orders.ranked(view) == 2 and orders.rank(view, (1000, 10.0)) == 2
    unended = dataclasses.replace(ROW, ended=False)
    orders.apply(unended, ROW)  # this process's attempt ended: in at once
    database.append((1000, 10.0))
    assert orders.ranked(view) == 3 and orders.rank(view, (1000, 10.0)) == 2
    orders.apply(ROW, dataclasses.replace(ROW, plausible=False, board_key=1 << 54))  # not ranked: out
    assert orders.ranked(view) == 2
    database.remove((1000, 10.0))
    database.append((100, 3.0))  # another server's attempt
    assert orders.rank(view, (1000, 10.0)) == 2 and len(loads) == 1  # not yet seen
    clock.now = ORDER_TTL_S + 1
    orders.ranked(view)  # starts the reload in the background, answers what it holds
    deadline = time.monotonic() + 5
    while orders.rank(view, (1000, 10.0)) != 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert orders.rank(view, (1000, 10.0)) == 3 and orders.ranked(view) == 3 and len(loads) == 2
    assert orders.ranked(("2026-12-04", False)) == 3  # another day: loaded on its own
