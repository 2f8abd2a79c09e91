"""The day's order and leaderboard kept in the process (app.store.orders): own changes at
once, the other servers' after a reload in the background."""

from __future__ import annotations

import dataclasses
import time

from app.store.attempts import LEADERBOARD_SIZE, Attempt, AttemptRow, attempt_of, counted, numbered
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
    orders = DayOrders(load, lambda day, over: [], clock)
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


def row(n: int, **changes: object) -> AttemptRow:
    """The attempt of player ``n``, the ``n``-th best of its day."""
    return dataclasses.replace(ROW, player=f"p{n}", game_id=f"g{n}", board_key=1000 + n, **changes)  # type: ignore[arg-type]


class Day:
    """A day of 150 ended attempts in a pretend database, counting the leaderboard's loads."""

    def __init__(self) -> None:
        self.rows = {n: row(n) for n in range(150)}
        self.names: dict[str, str] = {}
        self.loads = 0

    def board(self, day: str, over: bool) -> list[Attempt]:
        self.loads += 1
        ordered = sorted((r for r in self.rows.values() if counted(r, over)), key=lambda r: (r.board_key, r.at))[:LEADERBOARD_SIZE]
        return numbered((r, self.names.get(r.player)) for r in ordered)

    def change(self, orders: DayOrders, n: int, **changes: object) -> None:
        old, self.rows[n] = self.rows[n], dataclasses.replace(self.rows[n], **changes)  # type: ignore[arg-type]
        orders.apply(old, self.rows[n])


def test_the_leaderboard_is_held_until_a_change_reaches_it() -> None:
    day = Day()
    orders = DayOrders(lambda d, over: [], day.board, Clock())
    view = ("2026-12-03", False)
    first = orders.board(view)
    assert [r.player for r in first[:2]] == ["p0", "p1"] and len(first) == LEADERBOARD_SIZE
    assert orders.board(view) == first and day.loads == 1  # held
    day.change(orders, 140, score=600)  # the 141st changes and stays below the board: held
    assert orders.board(view) == first and day.loads == 1
    day.change(orders, 120, board_key=10)  # the 121st climbs to the top: loaded again
    board = orders.board(view)
    assert [(r.rank, r.player) for r in board[:2]] == [(1, "p120"), (2, "p0")] and day.loads == 2
    day.change(orders, 0, board_key=5000)  # the 2nd falls off the board
    assert "p0" not in [r.player for r in orders.board(view)] and day.loads == 3
    day.names["p1"] = "Bea"
    orders.renamed("p1")  # a player on the board takes a name
    assert attempt_of(day.rows[1], "Bea", 2) in orders.board(view) and day.loads == 4
    orders.renamed("p149")  # a player not on it: held
    orders.board(view)
    assert day.loads == 4
    day.change(orders, 50, ended=False)  # on the board while the day runs only once ended
    assert "p50" not in [r.player for r in orders.board(view)] and day.loads == 5


def test_a_load_that_read_the_day_before_a_change_is_not_kept() -> None:
    day = Day()
    orders: DayOrders

    def slow_board(d: str, over: bool) -> list[Attempt]:
        read = day.board(d, over)
        if day.loads == 1:  # a change commits while the first load is on its way back
            day.change(orders, 100, board_key=1)
        return read

    orders = DayOrders(lambda d, over: [], slow_board, Clock())
    view = ("2026-12-03", True)
    assert orders.board(view)[0].player == "p0"  # what was read is answered...
    assert orders.board(view)[0].player == "p100" and day.loads == 2  # ...but not kept
