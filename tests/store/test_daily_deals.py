"""Every deal of the day's deal begins the player's game of that day, where the store deals it
(issue 41): ``create`` (the pages, the New game window, Restart, the JSON API's games for the
cookie's player) and a race's seats, in the same transaction, on every backend. While the ranked
attempt is under way no other game of the deal is dealt to its player; ended by the player, it
counts as unfinished. An attempt with no action is on no board; every action counts."""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable
from typing import Final

import pytest

from app.engine import DRAW, Action, Game, GameCode, Rules
from app.store.attempts import AttemptUnfinished, peaks_of
from app.store.base import GameStore, StoredGame
from app.store.races import RaceRefused
from tests.support.store import BACKENDS, Clock, greedy, line_of, two_wins

pytestmark = pytest.mark.parametrize("database_url", BACKENDS, indirect=True)

ANN: Final = "ann-player-id-000000000001"
BOB: Final = "bob-player-id-000000000002"
CAL: Final = "cal-player-id-000000000003"


def today(clock: Clock) -> dt.date:
    return dt.datetime.fromtimestamp(clock.now, dt.UTC).date()


def knowing(store: GameStore, clock: Clock) -> GameCode:
    """The store told that ``two_wins``' deal is today's deal (as the app's lifespan tells it
    the installation's); that code."""
    code, _, _ = two_wins(Rules.EASY)
    store.know_days(lambda asked: today(clock) if asked == code else None)
    return code


def act(store: GameStore, clock: Clock, game_id: str, line: tuple[int, ...] | list[int], step: float = 1.0) -> StoredGame:
    done = None
    for position in line:
        clock.advance(step)

        def change(game: Game, position: int = position) -> None:
            game.play(Action(None if position == DRAW else position))
            game.note_time(clock.now)

        done = store.update(game_id, change)
        assert done is not None
    assert done is not None
    return done[0]


def by_page(store: GameStore, code: GameCode, player: str) -> str:
    return store.create(Game(code), player).id


def by_api(store: GameStore, code: GameCode, player: str) -> str:
    return store.create(Game(code), None, player=player).id  # the API's games have no owner


def by_race(store: GameStore, code: GameCode, player: str) -> str:
    return store.create_race(code, player).racers[0].game_id


def by_joining(store: GameStore, code: GameCode, player: str) -> str:
    room = store.create_race(code, "a-racer-made-it-" + secrets.token_hex(5))
    return store.join_race(room.id, player, store.now())


PATHS: Final[dict[str, Callable[[GameStore, GameCode, str], str]]] = {
    "create": by_page,
    "api": by_api,
    "race": by_race,
    "join": by_joining,
}


@pytest.mark.parametrize("path", list(PATHS))
def test_the_first_deal_of_the_day_s_deal_by_any_path_is_the_attempt(store: GameStore, clock: Clock, path: str) -> None:
    code = knowing(store, clock)
    game_id = PATHS[path](store, code, ANN)
    mine = store.attempt(today(clock), ANN)
    assert mine is not None and mine.game_id == game_id and not mine.late and not mine.ended
    # Every other path is refused while it is under way, and deals nothing
    for other, deal in PATHS.items():
        with pytest.raises(AttemptUnfinished) as refused:
            deal(store, code, ANN)
        assert refused.value.game_id == game_id, other
    if path in ("create", "race", "join"):
        assert store.find(ANN, code).id == game_id  # type: ignore[union-attr]  # no second game of it
    # Another deal, and another player, are not touched
    assert store.create(Game(GameCode(Rules.EASY, code.number + 1)), ANN) is not None
    assert store.attempt(today(clock), BOB) is None
    assert PATHS[path](store, code, BOB) != game_id


def test_a_race_join_refused_for_an_unfinished_attempt_is_a_race_refusal(store: GameStore, clock: Clock) -> None:
    code = knowing(store, clock)
    by_page(store, code, ANN)
    room = store.create_race(code, BOB)
    with pytest.raises(RaceRefused):
        store.join_race(room.id, ANN, clock())
    assert [r.player for r in store.race(room.id).racers] == [BOB]  # type: ignore[union-attr]


def test_ended_by_its_player_the_attempt_counts_as_unfinished_and_later_games_are_practice(store: GameStore, clock: Clock) -> None:
    code = knowing(store, clock)
    day = today(clock)
    _, _, high = two_wins(Rules.EASY)
    attempt = by_page(store, code, ANN)
    act(store, clock, attempt, high[:6])
    score = store.get(attempt).game.score  # type: ignore[union-attr]
    clock.advance(5)
    assert store.end_attempt(day, ANN) and not store.end_attempt(day, ANN)  # once
    practice = by_page(store, code, ANN)
    act(store, clock, practice, high)  # won, as practice
    act(store, clock, attempt, high[6:])  # the attempt's game played on: it no longer counts
    mine = store.attempt(day, ANN)
    assert mine is not None and mine.game_id == attempt and mine.ended and mine.stopped
    assert (mine.outcome, mine.score, mine.won) == ("unfinished", score, False)
    assert mine.rank == 1 and store.leaderboard(day).rows[0].player == ANN
    assert not store.end_attempt(day, BOB)  # nothing to end


def test_an_attempt_with_no_action_is_on_no_board_until_it_has_one(store: GameStore, clock: Clock) -> None:
    code = knowing(store, clock)
    day = today(clock)
    idle, tried, stopped = by_page(store, code, ANN), by_page(store, code, BOB), by_page(store, code, CAL)
    act(store, clock, tried, [DRAW, DRAW])  # two draws: 498, unfinished
    assert store.end_attempt(day, CAL)  # ended with no action
    clock.now = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.UTC).timestamp() + 1
    board = store.leaderboard(day)
    assert [(r.player, r.rank, r.score) for r in board.rows] == [(BOB, 1, 498)] and board.ranked == 1
    assert store.attempt(day, ANN).rank is None  # type: ignore[union-attr]
    assert store.attempt(day, CAL).rank is None  # type: ignore[union-attr]
    del idle, stopped


def test_a_game_played_before_it_became_the_attempt_counts_its_unseen_intervals(store: GameStore, clock: Clock) -> None:
    """(A bot played the deal fast, then made it its attempt and paused 5 s before its last move.)"""
    code, _, high = two_wins(Rules.EASY)
    day = today(clock)
    stored = store.create(Game(code), ANN)
    act(store, clock, stored.id, high[:-1], step=0.01)
    assert store.begin_attempt(day, ANN, store.get(stored.id), late=False)  # type: ignore[arg-type]
    clock.advance(5)
    act(store, clock, stored.id, high[-1:], step=0.0)
    mine = store.attempt(day, ANN)
    assert mine is not None and mine.won and not mine.plausible and mine.rank is None


def test_the_attempt_keeps_its_own_peaks(store: GameStore, clock: Clock) -> None:
    code = knowing(store, clock)
    day = today(clock)
    blocked = greedy(code, prefer_draw=True)
    attempt = by_page(store, code, ANN)
    act(store, clock, attempt, line_of(blocked))
    undone = store.update(attempt, lambda g: [g.undo() for _ in range(blocked.moves)])
    assert undone is not None and undone[0].game.status.value == "playing"
    _, _, high = two_wins(Rules.EASY)
    won = act(store, clock, attempt, high)  # won as practice, after its end
    mine = store.attempt(day, ANN)
    assert mine is not None and mine.outcome == "blocked"
    assert mine.peaks == peaks_of(blocked) != peaks_of(won.game)


def test_a_past_day_s_deal_begins_a_late_game_and_no_refusal(store: GameStore, clock: Clock) -> None:
    code, _, _ = two_wins(Rules.EASY)
    yesterday = today(clock) - dt.timedelta(days=1)
    store.know_days(lambda asked: yesterday if asked == code else None)
    first = by_page(store, code, ANN)
    second = by_api(store, code, ANN)  # practice of a late game: allowed
    mine = store.attempt(yesterday, ANN)
    assert mine is not None and mine.late and mine.game_id == first != second
