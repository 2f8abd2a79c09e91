"""A player on every device, in the store (issue 38), on every backend at a fixed clock: devices
and what is signed out, single-use codes, the merge of a second browser's history, the
recovery code, passkeys, personal tokens, a player's holdings and "Delete me"; and the
schema step that adds their tables."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import inspect, text

from app.engine import DRAW, Action, Game, Rules
from app.store.attempts import streaks
from app.store.base import GameStore
from app.store.database.schema import SCHEMA_VERSION
from app.store.identity import CodeKind, Passkey
from tests.support.store import BACKENDS, SQL_BACKENDS, Clock, StoreFactory, greedy, line_of, two_wins

ALL = pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
DAY = dt.date(2027, 3, 10)


def at(day: dt.date, hour: int) -> float:
    return dt.datetime.combine(day, dt.time(hour), dt.UTC).timestamp()


def play_daily(store: GameStore, clock: Clock, player: str, day: dt.date, hour: int, *, win: bool) -> str:
    """``player``'s attempt of ``day``, begun at ``hour``, played to its end; its game id."""
    code, low, _ = two_wins(Rules.EASY)
    clock.now = at(day, hour)
    stored = store.create(Game(code), player)
    assert store.begin_attempt(day, player, stored, late=False)
    line = low if win else line_of(greedy(code, prefer_draw=True))
    for action in line:
        clock.advance(1)
        done = store.update(
            stored.id, lambda g, a=action: (g.play(Action(None if a == DRAW else a)), g.note_time(clock.now))
        )
        assert done is not None
    return stored.id


@ALL
def test_devices_are_kept_listed_and_signed_out(store: GameStore, clock: Clock) -> None:
    store.touch_device("d1", "ann", "Firefox/Android")
    clock.advance(10)
    store.touch_device("d2", "ann", "Chrome/Windows")
    store.touch_device("d3", "bob", "Safari/iOS")
    clock.advance(10)
    store.touch_device("d1", "ann", "Firefox/Android")  # seen again: first in the list
    listed = store.devices("ann")
    assert [(d.id, d.kind) for d in listed] == [("d1", "Firefox/Android"), ("d2", "Chrome/Windows")]
    assert listed[0].created == clock.now - 20 and listed[0].last_seen == clock.now
    before = clock.now
    clock.advance(5)
    assert not store.sign_out_device("ann", "d3")  # someone else's: nothing
    assert store.sign_out_device("ann", "d2")
    assert not store.sign_out_device("ann", "d2")
    assert [d.id for d in store.devices("ann")] == ["d1"]
    store.touch_device("d4", "ann", "Chrome/Linux")
    assert store.sign_out_others("ann", keep="d1") == 1
    assert [d.id for d in store.devices("ann")] == ["d1"] and [d.id for d in store.devices("bob")] == ["d3"]
    assert sorted(store.signed_out_since(before)) == ["d:d2", "d:d4"]
    store.touch_device("d2", "ann", "Chrome/Windows")  # a server that has not heard yet: no row again
    assert [d.id for d in store.devices("ann")] == ["d1"]
    assert store.signed_out_since(clock.now + 1) == []


@ALL
def test_a_code_is_used_once_before_it_expires_and_a_new_link_code_voids_the_old(
    store: GameStore, clock: Clock
) -> None:
    store.keep_code(CodeKind.LINK, "a" * 64, "ann", 600)
    assert store.redeem_code(CodeKind.PASSKEY_IN, "a" * 64) is None  # another kind: no
    assert store.redeem_code(CodeKind.LINK, "b" * 64) is None  # wrong
    assert store.redeem_code(CodeKind.LINK, "a" * 64) == ("ann",)
    assert store.redeem_code(CodeKind.LINK, "a" * 64) is None  # used
    store.keep_code(CodeKind.LINK, "c" * 64, "ann", 600)
    clock.advance(600)
    assert store.redeem_code(CodeKind.LINK, "c" * 64) is None  # expired
    store.keep_code(CodeKind.LINK, "d" * 64, "ann", 600)
    assert store.holdings("ann").live_link_codes == 1
    store.keep_code(CodeKind.LINK, "e" * 64, "ann", 600)
    assert store.holdings("ann").live_link_codes == 1
    assert store.redeem_code(CodeKind.LINK, "d" * 64) is None  # voided by the newer code
    store.keep_code(CodeKind.PASSKEY_IN, "f" * 64, None, 300)
    assert store.redeem_code(CodeKind.PASSKEY_IN, "f" * 64) == (None,)
    assert store.redeem_code(CodeKind.LINK, "e" * 64) == ("ann",)


@ALL
def test_bringing_a_history_along_moves_it_all_and_the_earlier_attempt_of_a_day_stays_ranked(
    store: GameStore, clock: Clock
) -> None:
    """ann (the player) and bob (the second browser's own player) both played DAY's daily; bob
    also played the day before and won a game. Bob's browser links to ann and brings it along."""
    yesterday = DAY - dt.timedelta(days=1)
    bob_yesterday = play_daily(store, clock, "bob", yesterday, 12, win=True)
    bob_day = play_daily(store, clock, "bob", DAY, 9, win=False)  # begun first
    ann_day = play_daily(store, clock, "ann", DAY, 11, win=True)
    store.set_display_name("ann", "Ann")
    store.set_display_name("bob", "Bobby")
    store.touch_device("bob-phone", "bob", "Firefox/Android")
    ann_played = sum(s.played for s in store.player_stats("ann"))
    bob_played = sum(s.played for s in store.player_stats("bob"))
    assert store.has_history("bob") and ann_played == bob_played - 1 == 1
    code, _, _ = two_wins(Rules.EASY)
    assert store.deal_record(code).first_winner.player == "bob"  # type: ignore[union-attr]

    days = store.become(
        "ann",
        "bob-phone-now-ann",
        "Firefox/Android",
        leaving="bob",
        left_device="bob-phone",
        bring_history=True,
    )
    assert sorted(days) == [yesterday.isoformat(), DAY.isoformat()]
    mine = store.player_days("ann")
    assert [(a.day, a.game_id) for a in mine] == [
        (yesterday.isoformat(), bob_yesterday),
        (DAY.isoformat(), bob_day),
    ]
    assert store.attempt(DAY, "ann").game_id == bob_day  # type: ignore[union-attr]
    assert store.get(ann_day).owner == "ann"  # type: ignore[union-attr]  # practice now: kept, still hers
    assert [r.player for r in store.leaderboard(DAY).rows] == ["ann"]  # one row a day, bob's gone
    assert streaks(mine, DAY).current == 2  # worked out again: two days in a row
    assert sum(s.played for s in store.player_stats("ann")) == ann_played + bob_played
    assert store.player_stats("bob")[0].played == 0 and not store.has_history("bob")
    assert store.display_name("ann") == "Ann"  # her name stays
    assert store.deal_record(code).first_winner.player == "ann"  # type: ignore[union-attr]
    assert "d:bob-phone" in store.signed_out_since(0) and [d.id for d in store.devices("ann")] == [
        "bob-phone-now-ann"
    ]


@ALL
def test_a_name_comes_along_when_the_player_has_none_and_no_leaves_everything_as_it_was(
    store: GameStore, clock: Clock
) -> None:
    play_daily(store, clock, "bob", DAY, 9, win=True)
    store.set_display_name("bob", "Bobby")
    store.touch_device("bob-phone", "bob", "Firefox/Android")
    assert (
        store.become(
            "ann", "new", "Firefox/Android", leaving="bob", left_device="bob-phone", bring_history=False
        )
        == []
    )
    assert store.player_days("ann") == [] and len(store.player_days("bob")) == 1
    assert store.display_name("bob") == "Bobby" and store.has_history("bob")
    assert store.devices("bob") == []  # the browser is no longer bob's
    store.become("ann", "new2", "Chrome/Linux", leaving="bob", left_device=None, bring_history=True)
    assert store.display_name("ann") == "Bobby"


@ALL
def test_the_recovery_code_passkeys_and_tokens(store: GameStore, clock: Clock) -> None:
    store.set_recovery("ann", "SEL111", "digest-1")
    assert store.recovery("SEL111") == ("ann", "digest-1")
    store.set_recovery("ann", "SEL222", "digest-2")
    assert store.recovery("SEL111") is None and store.recovery("SEL222") == ("ann", "digest-2")
    assert store.holdings("ann").recovery_code_made == clock.now

    key = Passkey("cred-1", "ann", b"\x01\x02key", 0, 0.0, None, "Chrome/Linux")
    store.add_passkey(key)
    assert store.passkey("cred-1") == Passkey(
        "cred-1", "ann", b"\x01\x02key", 0, clock.now, None, "Chrome/Linux"
    )
    clock.advance(3)
    store.passkey_used("cred-1", 7)
    found = store.passkey("cred-1")
    assert found is not None and found.sign_count == 7 and found.last_used == clock.now
    assert [p.id for p in store.passkeys("ann")] == ["cred-1"]
    assert not store.remove_passkey("bob", "cred-1") and store.remove_passkey("ann", "cred-1")
    assert store.passkey("cred-1") is None

    store.add_token("ann", "tok1", "h1")
    assert store.token("tok1") == ("ann", "h1") and [t.id for t in store.tokens("ann")] == ["tok1"]
    assert not store.revoke_token("bob", "tok1")
    assert store.revoke_token("ann", "tok1") and store.token("tok1") is None
    assert "t:tok1" in store.signed_out_since(0)


@ALL
def test_delete_me_leaves_only_anonymous_rows(store: GameStore, clock: Clock) -> None:
    game_id = play_daily(store, clock, "ann", DAY, 9, win=True)
    unfinished = store.create(Game(two_wins(Rules.EASY)[0]), "ann")
    store.update(unfinished.id, lambda g: g.draw())
    store.set_display_name("ann", "Ann")
    store.touch_device("ann-phone", "ann", "Firefox/Android")
    store.add_token("ann", "tok", "h")
    store.set_recovery("ann", "SELAAA", "d")
    store.add_passkey(Passkey("cred", "ann", b"k", 0, 0.0, None, "x"))
    store.keep_code(CodeKind.LINK, "a" * 64, "ann", 600)
    code, _, _ = two_wins(Rules.EASY)
    assert store.leaderboard(DAY).rows[0].name == "Ann"

    store.delete_player("ann")
    assert store.get(game_id) is None and store.get(unfinished.id) is None
    assert store.result(game_id) is not None and store.result(game_id).player is None  # type: ignore[union-attr]
    assert store.result(unfinished.id) is not None  # left unfinished: its result recorded first
    record = store.deal_record(code)
    assert record is not None and record.wins == 1 and record.first_winner.player is None  # type: ignore[union-attr]
    board = store.leaderboard(DAY).rows
    assert len(board) == 1 and board[0].name is None and board[0].player != "ann"
    assert (
        not store.has_history("ann") and store.display_name("ann") is None and store.player_days("ann") == []
    )
    assert store.devices("ann") == [] and store.tokens("ann") == [] and store.passkeys("ann") == []
    assert store.recovery("SELAAA") is None and store.redeem_code(CodeKind.LINK, "a" * 64) is None
    assert {"p:ann", "d:ann-phone", "t:tok"} <= set(store.signed_out_since(0))
    assert store.holdings("ann").games == []


@ALL
def test_holdings_name_the_games_and_no_card(store: GameStore, clock: Clock) -> None:
    code, _, _ = two_wins(Rules.EASY)
    stored = store.create(Game(code), "ann")
    store.update(stored.id, lambda g: g.draw())
    held = store.holdings("ann")
    assert [(g["id"], g["code"], g["status"], g["moves"]) for g in held.games] == [
        (stored.id, code.text(), "playing", 1)
    ]
    assert held.race_seats == [] and held.recovery_code_made is None


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_a_version_6_database_gains_the_identity_tables_and_keeps_its_games(
    make_store: StoreFactory, database_url: str
) -> None:
    store = make_store()
    stored = store.create(Game(two_wins(Rules.EASY)[0]), "p1")
    with store._engine.begin() as conn:  # type: ignore[attr-defined]  # back to schema 6
        for table in ("tp_devices", "tp_signed_out", "tp_codes", "tp_recovery", "tp_passkeys", "tp_tokens"):
            conn.execute(text(f"DROP TABLE {table}"))
        conn.execute(text("UPDATE tp_schema SET version = 6"))
    store.close()
    store = make_store()
    assert SCHEMA_VERSION >= 7 and store.get(stored.id) == stored
    with store._engine.connect() as conn:  # type: ignore[attr-defined]
        assert conn.execute(text("SELECT version FROM tp_schema")).scalar_one() == SCHEMA_VERSION
        found = inspect(conn)
        assert {i["name"] for i in found.get_indexes("tp_signed_out")} == {"tp_signed_out_at"}
        assert found.get_pk_constraint("tp_codes")["constrained_columns"] == ["digest"]
    store.touch_device("d", "p1", "x")
    assert [d.id for d in store.devices("p1")] == ["d"]
