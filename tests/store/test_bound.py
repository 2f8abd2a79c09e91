"""A player keeps a bounded number of games: the oldest go (not won first), results recorded first."""

from __future__ import annotations

import pytest

from app.engine import DRAW, Game, GameCode, Rules
from tests.support.deals import won_deal
from tests.support.store import BACKENDS, Clock, StoreFactory, play_saved

pytestmark = pytest.mark.parametrize("database_url", BACKENDS, indirect=True)

ALICE = "alice-player-id-0000000001"
BOB = "bob-player-id-00000000000002"
CODE = GameCode.parse("TP1-E-AAAAAAB")


def test_the_oldest_unfinished_games_go_first_and_their_results_stay(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store(clock=clock, max_games_per_player=4)
    code, line = won_deal(Rules.EASY)
    won = play_saved(store, store.create(Game(code), ALICE), line)
    played = play_saved(store, store.create(Game(CODE), ALICE), [DRAW, DRAW])
    untouched = store.create(Game(CODE), ALICE)
    bobs = store.create(Game(CODE), BOB)  # another player's games do not count
    api = [store.create(Game(CODE), None) for _ in range(5)]  # nor games made without an owner
    fourth = store.create(Game(GameCode(Rules.CLASSIC, 7)), ALICE)
    for kept in (won, played, untouched, bobs, fourth, *api):
        assert store.get(kept.id) is not None  # at the bound: nothing removed

    fifth = store.create(Game(GameCode(Rules.CLASSIC, 8)), ALICE)
    assert store.get(played.id) is None  # the oldest game not won
    assert store.get(won.id) is not None and store.get(untouched.id) is not None
    assert store.current(ALICE) == fifth
    # Its result was recorded before it went: statistics and the deal's record keep it.
    result = store.result(played.id)
    assert result is not None and result.moves == 2 and not result.won
    easy = store.player_stats(ALICE)[0]
    assert easy.played == 2 and easy.won == 1

    sixth = store.create(Game(GameCode(Rules.CLASSIC, 9)), ALICE)
    assert store.get(untouched.id) is None  # no move: no result, simply gone
    assert store.result(untouched.id) is None
    for kept in (won, fourth, fifth, sixth, bobs, *api):
        assert store.get(kept.id) is not None


def test_won_games_go_last_and_keep_their_results(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store(clock=clock, max_games_per_player=2)
    code, line = won_deal(Rules.EASY)
    first = play_saved(store, store.create(Game(code), ALICE), line)
    second = play_saved(store, store.create(Game(code), ALICE), line)
    newest = store.create(Game(CODE), ALICE)
    assert store.get(first.id) is None
    assert store.get(second.id) is not None and store.get(newest.id) is not None
    assert store.result(first.id) is not None and store.result(first.id).won  # type: ignore[union-attr]
    assert store.player_stats(ALICE)[0].won == 2
    assert store.deal_record(code).wins == 2  # type: ignore[union-attr]


def test_no_bound_when_zero(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store(clock=clock, max_games_per_player=0)
    made = [store.create(Game(CODE), ALICE) for _ in range(12)]
    assert all(store.get(stored.id) is not None for stored in made)
