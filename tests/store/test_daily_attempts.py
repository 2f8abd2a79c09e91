"""The daily challenge's attempts in the store, on every backend, at a fixed clock."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from app.engine import Game, Rules
from app.store.attempts import Attempt, streaks
from app.store.base import GameStore, StoredGame
from tests.support.attempts import begin, blocked_line, today
from tests.support.store import (
    BACKENDS,
    SQL_BACKENDS,
    Clock,
    StoreFactory,
    play_timed,
    two_wins,
)

ALL = pytest.mark.parametrize("database_url", BACKENDS, indirect=True)


def names(rows: list[Attempt]) -> list[tuple[int | None, str]]:
    return [(r.rank, r.player) for r in rows]


@ALL
def test_one_attempt_per_player_and_day(store: GameStore, clock: Clock) -> None:
    code, _, _ = two_wins(Rules.EASY)
    first, began = begin(store, clock, "ann", code)
    second, again = begin(store, clock, "ann", code)  # a second tab: practice
    assert began and not again
    mine = store.attempt(today(clock), "ann")
    assert mine is not None and mine.game_id == first.id != second.id
    assert store.attempt(today(clock), "bob") is None
    assert store.attempt(today(clock) - dt.timedelta(days=1), "ann") is None


@ALL
def test_a_game_that_has_ended_already_begins_an_attempt_that_has_ended(store: GameStore, clock: Clock) -> None:
    """(No path deals so since issue 41: every deal of the day's deal begins the attempt. Its
    actions' intervals were not seen: it is not ranked.)"""
    code, _, line = two_wins(Rules.EASY)
    stored = play_timed(store, clock, store.create(Game(code), "ann"), line, step=2.0)
    assert stored.game.status.value == "won"
    assert store.begin_attempt(today(clock), "ann", stored, late=False)
    mine = store.attempt(today(clock), "ann")
    assert mine is not None and mine.ended and mine.won and mine.score == stored.game.score
    assert mine.rank is None and not mine.plausible
    assert [a.player for a in store.leaderboard(today(clock)).rows] == ["ann"]


@ALL
def test_the_order_hints_and_ranks(store: GameStore, clock: Clock) -> None:
    code, low, high = two_wins(Rules.EASY)
    day = today(clock)
    store.set_display_name("ann", "Ann <b>")
    played = {}
    for player, line, hints in (
        ("hinted", high, [3]),
        ("low", low, []),
        ("high", high, []),
        ("slow high", high, []),
    ):
        stored, _ = begin(store, clock, player, code)
        played[player] = play_timed(store, clock, stored, line, step=2.0 if player == "slow high" else 1.0, hints_at=hints)
    blocked, _ = begin(store, clock, "ann", code)
    play_timed(store, clock, blocked, blocked_line(code))
    board = store.leaderboard(day)
    assert names(board.rows) == [(1, "high"), (2, "slow high"), (3, "low"), (4, "ann"), (5, "hinted")]
    assert board.ranked == 5 and not board.over
    assert board.rows[3].name == "Ann <b>" and board.rows[3].outcome == "blocked"
    assert board.rows[4].hints == 1 and board.rows[4].won
    assert board.rows[0].seconds == pytest.approx(len(high) - 1)
    own = store.attempt(day, "low")
    assert own is not None and own.rank == 3 and own.won and own.score == played["low"].game.score
    assert [store.attempt(day, p).rank for p in ("high", "slow high", "ann", "hinted")] == [1, 2, 4, 5]  # type: ignore[union-attr]
    assert store.leaderboard(day, limit=2).rows == board.rows[:2]


@ALL
def test_an_attempt_counts_when_it_ends_and_unfinished_ones_once_the_day_is_over(store: GameStore, clock: Clock) -> None:
    code, _, high = two_wins(Rules.EASY)
    day = today(clock)
    playing, _ = begin(store, clock, "ann", code)
    play_timed(store, clock, playing, high[:5])
    won, _ = begin(store, clock, "bob", code)
    play_timed(store, clock, won, high)
    assert names(store.leaderboard(day).rows) == [(1, "bob")]
    assert store.attempt(day, "ann").rank is None  # type: ignore[union-attr]
    score_then = store.attempt(day, "ann").score  # type: ignore[union-attr]
    clock.now = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.UTC).timestamp() - 1
    play_timed(store, clock, store.get(playing.id), high[5:7], step=0.5)  # type: ignore[arg-type]
    at_midnight = store.attempt(day, "ann")
    assert at_midnight is not None and at_midnight.score != score_then
    clock.advance(2)  # the day is over: what she plays now changes nothing
    play_timed(store, clock, store.get(playing.id), high[7:])  # type: ignore[arg-type]
    board = store.leaderboard(day)
    assert board.over and names(board.rows) == [(1, "bob"), (2, "ann")]
    assert board.rows[1].outcome == "unfinished" and board.rows[1].score == at_midnight.score


@ALL
def test_actions_faster_than_a_person_are_not_ranked(store: GameStore, clock: Clock) -> None:
    code, _, high = two_wins(Rules.EASY)
    day = today(clock)
    bot, _ = begin(store, clock, "bot", code)
    play_timed(store, clock, bot, high, step=0.05)
    person, _ = begin(store, clock, "person", code)
    play_timed(store, clock, person, blocked_line(code), step=0.4)
    board = store.leaderboard(day)
    assert names(board.rows) == [(1, "person"), (None, "bot")]
    assert board.ranked == 1 and not board.rows[1].plausible
    assert store.attempt(day, "bot").rank is None  # type: ignore[union-attr]


@ALL
def test_a_late_game_is_kept_for_the_calendar_and_never_ranked(store: GameStore, clock: Clock) -> None:
    code, _, high = two_wins(Rules.EASY)
    day = today(clock)
    late, began = begin(store, clock, "ann", code, late=True)
    assert began
    play_timed(store, clock, late, high)
    assert store.leaderboard(day).rows == [] and store.leaderboard(day).ranked == 0
    mine = store.player_days("ann")
    assert [(a.date, a.late, a.outcome, a.rank) for a in mine] == [(day, True, "won", None)]


@ALL
def test_streaks_across_a_month_end(store: GameStore, clock: Clock) -> None:
    code, _, high = two_wins(Rules.EASY)
    more = blocked_line(code)
    clock.now = dt.datetime(2026, 11, 28, 12, tzinfo=dt.UTC).timestamp()
    for line in (high, high, more, high, high):  # 28, 29, 30 November (blocked), 1 and 2 December
        stored, _ = begin(store, clock, "ann", code)
        play_timed(store, clock, stored, line)
        clock.advance(86400)
    days = store.player_days("ann")
    assert [a.day for a in days] == ["2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02"]
    on_the_3rd = streaks(days, dt.date(2026, 12, 3))  # not played yet today: yesterday's run is current
    assert (on_the_3rd.current, on_the_3rd.longest, on_the_3rd.current_won, on_the_3rd.longest_won) == (5, 5, 2, 2)
    on_the_4th = streaks(days, dt.date(2026, 12, 4))
    assert (on_the_4th.current, on_the_4th.longest) == (0, 5)


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_two_servers_beginning_at_once_give_one_attempt(make_store: StoreFactory, clock: Clock) -> None:
    code, _, _ = two_wins(Rules.EASY)
    stores = [make_store(clock=clock), make_store(clock=clock)]
    games = [s.create(Game(code), "ann") for s in stores]
    barrier = threading.Barrier(2)
    began: list[bool] = []

    def go(store: GameStore, stored: StoredGame) -> None:
        barrier.wait()
        began.append(store.begin_attempt(today(clock), "ann", stored, late=False))

    threads = [threading.Thread(target=go, args=pair) for pair in zip(stores, games, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(began) == [False, True]
    mine = stores[1].attempt(today(clock), "ann")
    assert mine is not None and mine.game_id in {g.id for g in games}
    assert len(stores[0].player_days("ann")) == 1
