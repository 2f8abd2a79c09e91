"""The store contract: every backend (memory, SQLite, PostgreSQL) passes the same tests."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from app.engine import DRAW, Game, GameCode, RefusedAction, Rules, Status
from app.engine.state import game_from_state, state_of
from app.store.base import (
    BadDisplayName,
    Feat,
    GameStore,
    StoredGame,
    VersionConflict,
)
from tests.support.deals import won_deal
from tests.support.store import BACKENDS, Clock, play_new, play_saved, played, two_blocks, two_wins

pytestmark = pytest.mark.parametrize("database_url", BACKENDS, indirect=True)

ALICE = "alice-player-id-0000000001"
BOB = "bob-player-id-00000000000002"
CODE = GameCode.parse("TP1-E-AAAAAAB")


# -- games ------------------------------------------------------------------------------------


def test_create_and_get(store: GameStore) -> None:
    stored = store.create(Game(CODE), ALICE)
    assert stored.version == 1 and stored.owner == ALICE and len(stored.id) >= 22
    got = store.get(stored.id)
    assert got == stored
    assert store.get("no-such-game") is None
    api = store.create(Game(CODE), None)
    assert store.get(api.id) == api and api.owner is None


def test_save_is_compare_and_set(store: GameStore) -> None:
    stored = store.create(Game(CODE), ALICE)
    game = stored.game.copy()
    game.draw()
    saved = store.save(stored, game)
    assert saved.version == 2 and saved.game == game
    assert store.get(stored.id) == saved
    other = stored.game.copy()
    other.remove(other.playable_positions()[0]) if other.playable_positions() else other.draw()
    with pytest.raises(VersionConflict):
        store.save(stored, other)  # stale version: refused, nothing changed
    assert store.get(stored.id) == saved
    with pytest.raises(VersionConflict):
        store.save(StoredGame("no-such-game", None, game, 1), game)


def test_state_round_trips_exactly(store: GameStore) -> None:
    code, line = won_deal(Rules.EASY)
    stored = store.create(Game(code), ALICE)
    game = stored.game.copy()
    game.replay(line[:20])
    game.undo()
    game.undo()
    saved = store.save(stored, game)
    got = store.get(stored.id)
    assert got is not None
    assert got.game == game and state_of(got.game) == state_of(game)
    assert (got.game.moves, got.game.undo_available, got.game.score) == (
        game.moves,
        game.undo_available,
        game.score,
    )
    assert got.version == saved.version


def test_current_find_set_current(store: GameStore) -> None:
    assert store.current(ALICE) is None
    easy = store.create(Game(CODE), ALICE)
    assert store.current(ALICE) == easy
    store.create(Game(CODE), None)  # an API game is nobody's current game
    assert store.current(ALICE) == easy
    classic = store.create(Game(GameCode(Rules.CLASSIC, CODE.number)), ALICE)
    assert store.current(ALICE) == classic
    assert store.find(ALICE, CODE) == easy
    assert store.find(ALICE, GameCode(Rules.CLASSIC, CODE.number)) == classic
    assert store.find(BOB, CODE) is None
    again = store.create(Game(CODE), ALICE)
    assert store.find(ALICE, CODE) == again  # the most recent of that deal
    store.set_current(ALICE, easy.id)
    assert store.current(ALICE) == easy
    bobs = store.create(Game(CODE), BOB)
    store.set_current(ALICE, bobs.id)  # not hers: nothing happens
    store.set_current(ALICE, "no-such-game")
    assert store.current(ALICE) == easy
    assert store.current(BOB) == bobs


def test_a_second_store_on_the_same_database_sees_everything(
    store: GameStore, make_store: object
) -> None:
    stored = store.create(Game(CODE), ALICE)
    game = stored.game.copy()
    game.draw()
    store.save(stored, game)
    other = make_store()  # type: ignore[operator]
    got = other.get(stored.id)
    assert got is not None and got.game == game and got.version == 2
    assert other.current(ALICE) == got


# -- results and records ----------------------------------------------------------------------


def test_first_win_then_record_then_lower(store: GameStore) -> None:
    code, low, high = two_wins()
    first = play_new(store, ALICE, code, low)
    assert first.game.status is Status.WON
    result = store.result(first.id)
    assert result is not None and result.won and result.feats == {Feat.FIRST_WIN}
    assert result.score == first.game.score and result.cards_left == 0 and result.player == ALICE
    record = store.deal_record(code)
    assert record is not None
    assert record.wins == 1 and record.finished == 1
    assert record.first_winner is not None and record.first_winner.player == ALICE
    assert record.first_win_score == record.best_score == first.game.score
    assert record.best_holder is not None and record.best_holder.game_id == first.id

    better = play_new(store, BOB, code, high)
    assert store.result(better.id).feats == {Feat.NEW_RECORD}  # type: ignore[union-attr]
    record = store.deal_record(code)
    assert record is not None and record.wins == 2
    assert record.best_score == better.game.score and record.best_holder.player == BOB  # type: ignore[union-attr]
    assert record.first_winner.player == ALICE  # type: ignore[union-attr]

    same_again = play_new(store, ALICE, code, high)  # equal to the record: not a new one
    assert store.result(same_again.id).feats == frozenset()  # type: ignore[union-attr]
    record = store.deal_record(code)
    assert record is not None and record.best_holder.player == BOB and record.wins == 3  # type: ignore[union-attr]


def test_deals_are_code_and_rules(store: GameStore) -> None:
    code, line = won_deal(Rules.EASY)
    play_new(store, ALICE, code, line)
    assert store.deal_record(GameCode(Rules.CLASSIC, code.number)) is None
    assert store.deal_record(GameCode.parse(code.text().lower().replace("-e-", "-n-"))) is not None
    assert store.deal_record(GameCode(Rules.EASY, code.number + 1)) is None


def test_blocked_games_hold_the_best_unfinished_result(store: GameStore) -> None:
    code, more, fewer = two_blocks()
    a = play_new(store, ALICE, code, more)
    assert a.game.status is Status.BLOCKED
    result = store.result(a.id)  # recorded when it became blocked
    assert result is not None and not result.won and result.feats == {Feat.BEST_UNFINISHED}
    assert result.cards_left == a.game.cards_left()
    b = play_new(store, BOB, code, fewer)
    assert store.result(b.id).feats == {Feat.BEST_UNFINISHED}  # type: ignore[union-attr]
    record = store.deal_record(code)
    assert record is not None and record.wins == 0 and record.finished == 2
    assert record.best_cards_left == b.game.cards_left()
    assert record.best_unfinished_holder is not None and record.best_unfinished_holder.player == BOB
    assert record.best_score is None and record.first_winner is None
    c = play_new(store, ALICE, code, more)  # no better than the best: recorded, no feat
    assert store.result(c.id).feats == frozenset()  # type: ignore[union-attr]


def test_a_result_only_improves(store: GameStore) -> None:
    code, _, fewer = two_blocks()
    stored = play_new(store, ALICE, code, fewer)
    best = store.result(stored.id)
    assert best is not None
    # Undo all the way and end blocked with more cards left: the result stays the better one.
    while stored.game.undo_available:
        game = stored.game.copy()
        game.undo()
        stored = store.save(stored, game)
    assert store.result(stored.id) == best
    assert store.record_result(stored.id) is None


def test_coming_back_to_a_game_left_unfinished_and_winning_it_turns_the_result_into_a_win(
    store: GameStore,
) -> None:
    code, line = won_deal(Rules.EASY)
    stored = store.create(Game(code), ALICE)
    stored = play_saved(store, stored, line[:10])
    store.create(Game(code), ALICE)  # leaves the first game: an unfinished result
    left = store.result(stored.id)
    assert left is not None and not left.won and left.cards_left == stored.game.cards_left()
    assert store.player_stats(ALICE)[0].played == 0  # not a loss while it can be taken up again
    store.set_current(ALICE, stored.id)  # back to it, and win it
    stored = play_saved(store, stored, line[10:])
    won = store.result(stored.id)
    assert won is not None and won.won and Feat.FIRST_WIN in won.feats
    record = store.deal_record(code)
    assert record is not None and record.wins == 1 and record.finished == 1
    stats = store.player_stats(ALICE)[0]
    assert (stats.played, stats.won) == (1, 1)


def blocked_then_won() -> tuple[GameCode, tuple[int, ...], int, tuple[int, ...]]:
    """A deal, a line that blocks it (a winning line's first actions, then every stock card
    drawn), how many of those draws to undo, and the rest of the winning line."""
    for start in range(1, 400, 20):
        code, line = won_deal(Rules.EASY, start)
        for k in range(len(line) - 1, 0, -1):
            game = played(code, line[:k])
            draws = game.stock_count
            game.replay([DRAW] * draws)
            if game.status is Status.BLOCKED and draws:
                return code, (*line[:k], *[DRAW] * draws), draws, line[k:]
    raise AssertionError("no such deal found")


def test_undo_from_blocked_then_win_turns_the_result_into_a_win(store: GameStore) -> None:
    code, blocking, undos, rest = blocked_then_won()
    stored = play_new(store, ALICE, code, blocking)
    assert stored.game.status is Status.BLOCKED
    blocked = store.result(stored.id)  # recorded as the game became blocked
    assert blocked is not None and not blocked.won and blocked.cards_left == stored.game.cards_left() > 0
    for _ in range(undos):  # back to the winning line, one save per undo
        game = stored.game.copy()
        game.undo()
        stored = store.save(stored, game)
    assert stored.game.status is Status.PLAYING and store.result(stored.id) == blocked
    stored = play_saved(store, stored, rest)
    assert stored.game.status is Status.WON
    won = store.result(stored.id)
    assert won is not None and won.won and won.cards_left == 0 and Feat.FIRST_WIN in won.feats
    record = store.deal_record(code)
    assert record is not None and record.wins == 1 and record.finished == 1
    stats = store.player_stats(ALICE)[0]
    assert (stats.played, stats.won) == (1, 1)


def test_leaving_records_only_games_with_a_move(store: GameStore) -> None:
    untouched = store.create(Game(CODE), ALICE)
    store.create(Game(CODE), ALICE)
    assert store.result(untouched.id) is None
    assert store.player_stats(ALICE)[0].played == 0
    assert store.record_result(untouched.id) is None
    assert store.record_result("no-such-game") is None


def test_record_result_by_hand(store: GameStore) -> None:
    stored = play_saved(store, store.create(Game(CODE), ALICE), [DRAW, DRAW])
    result = store.record_result(stored.id)
    assert result is not None and result.moves == 2 and result.cards_left == 28
    assert result.feats == {Feat.BEST_UNFINISHED}
    assert store.record_result(stored.id) is None  # nothing better since
    assert store.result(stored.id) == result


def test_api_games_count_for_records_anonymously(store: GameStore) -> None:
    code, line = won_deal(Rules.EASY)
    stored = play_new(store, None, code, line)
    record = store.deal_record(code)
    assert record is not None and record.first_winner is not None
    assert record.first_winner.player is None and record.first_winner.name is None
    assert record.first_winner.game_id == stored.id


def test_concurrent_first_wins_make_one_first_winner(store: GameStore) -> None:
    code, line = won_deal(Rules.EASY)
    players = [f"racer-{i:02d}-player-id-xxxx" for i in range(6)]
    almost = {p: play_new(store, p, code, line[:-1]) for p in players}
    barrier = threading.Barrier(len(players))
    errors: list[BaseException] = []

    def finish(player: str) -> None:
        try:
            barrier.wait()
            play_saved(store, almost[player], line[-1:])
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=finish, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    feats = [store.result(almost[p].id).feats for p in players]  # type: ignore[union-attr]
    assert sum(Feat.FIRST_WIN in f for f in feats) == 1
    assert sum(Feat.NEW_RECORD in f for f in feats) == 0
    record = store.deal_record(code)
    assert record is not None and record.wins == len(players) and record.finished == len(players)


# -- players ----------------------------------------------------------------------------------


def test_display_names(store: GameStore) -> None:
    assert store.display_name(ALICE) is None
    assert store.set_display_name(ALICE, "  Dana  ") == "Dana"
    assert store.display_name(ALICE) == "Dana"
    assert store.set_display_name(ALICE, "Ünïcødé 名前 🂡") == "Ünïcødé 名前 🂡"
    for bad in ["", "   ", "x" * 41, "a\nb", "tab\there", "nul\x00", "bell\x07"]:
        if bad.strip():
            with pytest.raises(BadDisplayName):
                store.set_display_name(ALICE, bad)
    assert store.display_name(ALICE) == "Ünïcødé 名前 🂡"  # refused names change nothing
    assert store.set_display_name(ALICE, "") is None  # blank clears
    assert store.display_name(ALICE) is None
    assert store.set_display_name(ALICE, "x" * 40) == "x" * 40
    assert store.set_display_name(ALICE, None) is None


def test_records_show_names_as_they_are_now(store: GameStore) -> None:
    code, line = won_deal(Rules.EASY)
    play_new(store, ALICE, code, line)
    record = store.deal_record(code)
    assert record is not None and record.best_holder is not None and record.best_holder.name is None
    store.set_display_name(ALICE, "Dana")
    record = store.deal_record(code)
    assert record is not None and record.best_holder is not None
    assert record.best_holder.name == "Dana" and record.first_winner.name == "Dana"  # type: ignore[union-attr]


def test_player_stats_and_streaks(store: GameStore, clock: Clock) -> None:
    code, line = won_deal(Rules.EASY)
    classic_code, classic_line = won_deal(Rules.CLASSIC)
    fresh = store.player_stats(ALICE)
    assert [s.rules for s in fresh] == list(Rules)
    assert all(s.played == s.won == s.current_streak == s.longest_streak == 0 for s in fresh)
    assert all(s.best_score is None and s.win_rate == 0.0 for s in fresh)

    def win() -> int:
        return play_new(store, ALICE, code, line).game.score

    def lose() -> None:
        blocked_code, blocking, _, _ = blocked_then_won()
        assert play_new(store, ALICE, blocked_code, blocking).game.status is Status.BLOCKED

    def leave() -> StoredGame:
        left = play_new(store, ALICE, code, (DRAW,))
        store.create(Game(code), ALICE)  # leave it after one move
        return left

    scores = [win(), win()]
    lose()
    scores.append(win())
    left = leave()  # under way still: neither a loss nor the end of a streak
    scores.append(win())
    play_new(store, ALICE, classic_code, classic_line)
    store.create(Game(code), ALICE)  # leave the untouched one: not counted
    easy, classic = store.player_stats(ALICE)
    assert (easy.played, easy.won) == (5, 4)
    assert easy.win_rate == pytest.approx(0.8)
    assert easy.best_score == max(scores)
    assert (easy.current_streak, easy.longest_streak) == (2, 2)
    clock.advance(31 * 86400)  # idle cleanup removes the game left: now it counts, not won
    store.cleanup_idle(dt.timedelta(days=30))
    assert store.get(left.id) is None
    easy, _ = store.player_stats(ALICE)
    assert (easy.played, easy.won) == (6, 4)
    assert (easy.current_streak, easy.longest_streak) == (1, 2)
    assert (classic.played, classic.won, classic.current_streak, classic.longest_streak) == (
        1,
        1,
        1,
        1,
    )
    assert store.player_stats(BOB)[0].played == 0


# -- cleanup ----------------------------------------------------------------------------------


def test_cleanup_removes_idle_unfinished_games_and_keeps_results(
    store: GameStore, clock: Clock
) -> None:
    code, line = won_deal(Rules.EASY)
    won = play_new(store, ALICE, code, line)
    abandoned = play_saved(store, store.create(Game(CODE), BOB), [DRAW, DRAW, DRAW])
    untouched = store.create(Game(CODE), None)
    blocked_code, more, _ = two_blocks()
    blocked = play_new(store, None, blocked_code, more)
    clock.advance(31 * 86400)
    recent = play_saved(store, store.create(Game(CODE), ALICE), [DRAW])

    removed = store.cleanup_idle(dt.timedelta(days=30))
    assert removed == 3
    assert store.get(abandoned.id) is None and store.get(untouched.id) is None
    assert store.get(blocked.id) is None
    assert store.get(won.id) is not None and store.get(recent.id) is not None
    assert store.current(BOB) is None  # their current game was removed
    assert store.current(ALICE) is not None
    # The abandoned game was recorded before it went: results and records keep it.
    result = store.result(abandoned.id)
    assert result is not None and result.moves == 3 and not result.won
    assert store.player_stats(BOB)[0].played == 1  # gone: now it counts, not won
    assert store.deal_record(code).wins == 1  # type: ignore[union-attr]
    assert (
        store.deal_record(blocked_code).best_cards_left == played(blocked_code, more).cards_left()
    )  # type: ignore[union-attr]
    assert store.cleanup_idle(dt.timedelta(days=30)) == 0
    # A player keeps playing after cleanup: a new game, as for a new player.
    fresh = store.create(Game(CODE), BOB)
    assert store.current(BOB) == fresh


def test_cleanup_keeps_games_touched_recently(store: GameStore, clock: Clock) -> None:
    stored = play_saved(store, store.create(Game(CODE), ALICE), [DRAW])
    clock.advance(29 * 86400)
    stored = play_saved(store, stored, [DRAW])
    clock.advance(2 * 86400)
    assert store.cleanup_idle(dt.timedelta(days=30)) == 0
    assert store.get(stored.id) == stored


# -- update: read, change, save as one step ---------------------------------------------------


def test_update(store: GameStore) -> None:
    stored = store.create(Game(CODE), ALICE)

    def draw(game: Game) -> str:
        game.draw()
        return game.waste.text()

    out = store.update(stored.id, draw)
    assert out is not None
    saved, waste = out
    assert saved.version == 2 and saved.game.moves == 1 and waste == saved.game.waste.text()
    assert store.get(stored.id) == saved
    assert store.update("no-such-game", draw) is None

    def refused(game: Game) -> None:
        game.draw()  # changed the copy, then refused: nothing may be saved
        game.remove(0)

    with pytest.raises(RefusedAction):
        store.update(stored.id, refused)
    assert store.get(stored.id) == saved


def test_update_records_results(store: GameStore) -> None:
    code, line = won_deal(Rules.EASY)
    stored = play_saved(store, store.create(Game(code), ALICE), line[:-1])
    out = store.update(stored.id, lambda game: game.replay(line[-1:]))
    assert out is not None and out[0].game.status is Status.WON
    assert store.result(stored.id).feats == {Feat.FIRST_WIN}  # type: ignore[union-attr]


def test_racing_updates_all_land(store: GameStore) -> None:
    """Threads changing one game at once: no conflict reaches them, no action is lost."""
    stored = store.create(Game(CODE), ALICE)
    moves_seen: list[int] = []
    lock = threading.Lock()

    def player(seed: int) -> None:
        for i in range(10):

            def act(game: Game, i: int = i) -> int:
                if (seed + i) % 3 == 0 and game.undo_available:
                    game.undo()
                    return -1
                if game.can_draw():
                    game.draw()
                else:
                    game.undo()
                    return -1
                return game.moves

            out = store.update(stored.id, act)
            assert out is not None
            if out[1] > 0:
                with lock:
                    moves_seen.append(out[1])

    threads = [threading.Thread(target=player, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = store.get(stored.id)
    assert final is not None and final.version == 61
    assert sorted(moves_seen) == list(range(1, final.game.moves + 1))


def test_racing_saves_lose_nothing(store: GameStore) -> None:
    """Optimistic get/save with retries from several threads: every save is a distinct version."""
    stored = store.create(Game(CODE), ALICE)
    versions: list[int] = []
    draws: list[bool] = []
    lock = threading.Lock()

    def player() -> None:
        for _ in range(8):
            while True:
                current = store.get(stored.id)
                assert current is not None
                game = current.game.copy()
                drew = game.can_draw()
                game.draw() if drew else game.undo()
                try:
                    saved = store.save(current, game)
                except VersionConflict:
                    continue
                with lock:
                    versions.append(saved.version)
                    draws.append(drew)
                break

    threads = [threading.Thread(target=player) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = store.get(stored.id)
    assert final is not None
    assert sorted(versions) == list(range(2, 42)) and final.version == 41
    assert final.game.moves == sum(draws)  # every accepted draw is in the history, once
    game_from_state(state_of(final.game))  # a valid history
