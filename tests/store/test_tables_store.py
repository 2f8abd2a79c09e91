"""Tables of friends in the store (issue 39), on every backend: joins, limits, renewals,
removals, leaving, the members' daily rows by week, and identity's merge."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable

import pytest
from sqlalchemy import insert

from app.engine import DRAW, Action, Game, GameCode, Rules
from app.store.attempts import AttemptRow, attempt_of, counted, streaks
from app.store.base import GameStore
from app.store.database.schema import daily
from app.store.database.sql import SqlStore
from app.store.memory import MemoryStore
from app.store.tables import NoSuchInvite, TableFull, TooManyTables
from tests.support.store import BACKENDS, SQL_BACKENDS, Clock, StoreFactory, two_wins

ALL = pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
DAY_S = 86400.0


def snapshot(store: GameStore, table_id: str) -> tuple[object, ...]:
    table = store.table(table_id)
    members = [(m.id, m.player, m.maker) for m in store.table_members(table_id)]
    return table, members


@ALL
def test_make_join_and_members(store: GameStore) -> None:
    table = store.make_table("ann", "Friday <b>club</b>")
    assert table.maker == "ann" and table.members == 1 and len(table.invite) >= 22
    store.set_display_name("bob", "Bob")
    joined = store.join_table(table.invite, "bob")
    assert joined.id == table.id and joined.members == 2
    again = store.join_table(table.invite, "bob")  # a member already: nothing changes
    assert again.members == 2
    members = store.table_members(table.id)
    assert [(m.player, m.maker, m.name) for m in members] == [("ann", True, None), ("bob", False, "Bob")]
    assert all(m.id not in ("ann", "bob") for m in members)  # a membership's own id
    assert store.membership(table.id, "bob") == members[1]
    assert store.membership(table.id, "cat") is None
    assert [t.id for t in store.player_tables("bob")] == [table.id]
    assert store.table(table.id) == store.invited_table(table.invite)
    assert store.table(table.id).name == "Friday <b>club</b>"  # type: ignore[union-attr]


@ALL
def test_a_renewed_invite_stops_at_once(store: GameStore) -> None:
    table = store.make_table("ann", "T")
    old = table.invite
    new = store.renew_invite(table.id)
    assert new is not None and new != old
    before = snapshot(store, table.id)
    with pytest.raises(NoSuchInvite):
        store.join_table(old, "bob")
    assert snapshot(store, table.id) == before
    assert store.invited_table(old) is None
    assert store.join_table(new, "bob").members == 2
    with pytest.raises(NoSuchInvite):
        store.join_table("no-such-token", "cat")
    assert store.renew_invite("no-such-table") is None


@ALL
def test_a_removed_member_and_their_old_link(store: GameStore) -> None:
    table = store.make_table("ann", "T")
    store.join_table(table.invite, "bob")
    bob = store.membership(table.id, "bob")
    assert bob is not None
    assert not store.remove_member("other-table", bob.id)
    assert store.remove_member(table.id, bob.id)
    assert store.membership(table.id, "bob") is None
    assert store.table(table.id).members == 1  # type: ignore[union-attr]
    before = snapshot(store, table.id)
    with pytest.raises(NoSuchInvite):  # the link they had stops with the removal
        store.join_table(table.invite, "bob")
    assert snapshot(store, table.id) == before
    assert not store.remove_member(table.id, bob.id)  # gone already


@ALL
def test_the_limits(store: GameStore) -> None:
    store.max_tables_per_player = 3
    store.max_table_members = 3
    tables = [store.make_table("ann", f"T{i}") for i in range(3)]
    with pytest.raises(TooManyTables):
        store.make_table("ann", "one too many")
    assert len(store.player_tables("ann")) == 3
    other = store.make_table("bob", "Bob's")
    with pytest.raises(TooManyTables):  # ann is in 3: joining a 4th is refused too
        store.join_table(other.invite, "ann")
    assert snapshot(store, other.id)[1] == [(store.table_members(other.id)[0].id, "bob", True)]
    store.join_table(tables[0].invite, "cat")
    store.join_table(tables[0].invite, "dan")
    before = snapshot(store, tables[0].id)
    with pytest.raises(TableFull):
        store.join_table(tables[0].invite, "eve")
    assert snapshot(store, tables[0].id) == before
    assert store.player_tables("eve") == []
    # Leaving makes room again.
    assert store.leave_table(tables[0].id, "cat")
    assert store.join_table(tables[0].invite, "eve").members == 3


@ALL
def test_leaving_hands_the_table_on_and_an_empty_table_goes(store: GameStore, clock: Clock) -> None:
    table = store.make_table("ann", "T")
    clock.advance(1)
    store.join_table(table.invite, "bob")
    clock.advance(1)
    store.join_table(table.invite, "cat")
    assert store.leave_table(table.id, "ann")
    assert not store.leave_table(table.id, "ann")
    assert store.table(table.id).maker == "bob"  # type: ignore[union-attr]
    assert [m.player for m in store.table_members(table.id) if m.maker] == ["bob"]
    store.rename_table(table.id, "Renamed")
    assert store.table(table.id).name == "Renamed"  # type: ignore[union-attr]
    store.leave_table(table.id, "bob")
    store.leave_table(table.id, "cat")
    assert store.table(table.id) is None
    assert store.player_tables("cat") == []


def play_day(store: GameStore, clock: Clock, player: str, code: GameCode, line: Iterable[int]) -> None:
    day = dt.datetime.fromtimestamp(clock.now, dt.UTC).date()
    stored = store.create(Game(code), player)
    store.begin_attempt(day, player, stored, late=False)
    for position in line:
        clock.advance(1.0)

        def act(game: Game, position: int = position) -> None:
            game.play(Action(None if position == DRAW else position))
            game.note_time(clock.now)

        store.update(stored.id, act)


@ALL
def test_the_members_rows_by_week(store: GameStore, clock: Clock) -> None:
    # 2027-01-03 is a Sunday, 2027-01-04 a Monday.
    sunday = dt.datetime(2027, 1, 3, 12, tzinfo=dt.UTC).timestamp()
    clock.now = sunday
    table = store.make_table("ann", "T")
    store.join_table(table.invite, "bob")
    code, _, line = two_wins(Rules.EASY)
    play_day(store, clock, "ann", code, line[:3])
    play_day(store, clock, "out", code, line[:3])  # not a member
    clock.now = sunday + DAY_S
    play_day(store, clock, "ann", code, line[:3])
    play_day(store, clock, "bob", code, line)
    week = store.table_attempts(table.id, "2027-01-04", "2027-01-10")
    assert sorted((r.player, r.day) for r in week) == [("ann", "2027-01-04"), ("bob", "2027-01-04")]
    everything = store.table_attempts(table.id, None, "2027-01-10")
    assert [(r.player, r.day) for r in everything] == [
        ("ann", "2027-01-03"),
        ("ann", "2027-01-04"),
        ("bob", "2027-01-04"),
    ]
    bob = next(r for r in week if r.player == "bob")
    assert bob.won and bob.ended
    # A member removed: their rows leave the table's boards.
    member = store.membership(table.id, "bob")
    assert member is not None and store.remove_member(table.id, member.id)
    assert {r.player for r in store.table_attempts(table.id, None, "2027-01-10")} == {"ann"}


@ALL
def test_merged_players_keep_their_memberships(store: GameStore) -> None:
    both = store.make_table("phone", "Both")
    store.join_table(both.invite, "laptop")
    only_phone = store.make_table("phone", "Phone's")
    joined = store.make_table("zed", "Zed's")
    store.join_table(joined.invite, "phone")
    # The phone's browser becomes the laptop's player, bringing its history along.
    store.become("laptop", "device-1", "Firefox/Linux", leaving="phone", left_device=None, bring_history=True)
    assert {t.id for t in store.player_tables("laptop")} == {both.id, only_phone.id, joined.id}
    assert store.player_tables("phone") == []
    assert [m.player for m in store.table_members(both.id)] == ["laptop"]
    assert store.table(both.id).members == 1  # type: ignore[union-attr]
    assert store.table(both.id).maker == "laptop"  # type: ignore[union-attr]
    assert store.table(only_phone.id).maker == "laptop"  # type: ignore[union-attr]
    assert store.table(joined.id).maker == "zed"  # type: ignore[union-attr]
    assert store.table(joined.id).members == 2  # type: ignore[union-attr]


@ALL
def test_a_deleted_player_leaves_their_tables(store: GameStore) -> None:
    table = store.make_table("ann", "T")
    store.join_table(table.invite, "bob")
    store.delete_player("ann")
    assert store.table(table.id).maker == "bob"  # type: ignore[union-attr]
    assert [m.player for m in store.table_members(table.id)] == ["bob"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_two_stores_on_one_database_see_one_table(make_store: StoreFactory) -> None:
    first, second = make_store(), make_store()
    table = first.make_table("ann", "T")
    assert second.join_table(table.invite, "bob").members == 2
    assert [m.player for m in first.table_members(table.id)] == ["ann", "bob"]


def test_today_added_to_the_streaks_before_it_is_streaks_of_all() -> None:
    """:func:`with_today` (what the all-time board adds to a member's history kept since
    yesterday) equals :func:`streaks` of every attempt, over random histories."""
    import random

    from app.store.attempts import Attempt, streaks, with_today

    rng = random.Random(39)
    today = dt.date(2027, 1, 10)

    def attempt(day: dt.date) -> Attempt:
        ended = rng.random() < 0.8
        return Attempt(
            day=day.isoformat(), player="p", game_id=f"g{day}", code="TP1-E-AAAAAAB",
            late=rng.random() < 0.1, ended=ended, won=ended and rng.random() < 0.6, score=0,
            seconds=None, hints=0, plausible=True, gaps=0, quick=0, board_key=0, started=0.0,
            last_action=None if rng.random() < 0.05 else 1.0, at=0.0,
        )  # fmt: skip

    for _ in range(300):
        earlier = [attempt(today - dt.timedelta(days=n)) for n in range(1, 15) if rng.random() < 0.8]
        mine = attempt(today) if rng.random() < 0.8 else None
        everything = earlier + ([mine] if mine is not None else [])
        assert with_today(streaks(earlier, today), mine) == streaks(everything, today)


def put_rows(store: GameStore, rows: list[AttemptRow]) -> None:
    """Daily rows written as the store keeps them (a year of play is too slow to play)."""
    if isinstance(store, MemoryStore):
        with store._lock:
            store._daily.update({(row.day, row.player): row for row in rows})
        return
    assert isinstance(store, SqlStore)
    with store._engine.begin() as conn:
        conn.execute(insert(daily), [dataclasses.asdict(row) for row in rows])


@ALL
def test_the_members_past_is_what_their_rows_give(store: GameStore) -> None:
    """:meth:`table_past` (set-based in SQL) equals the daily's own rules over the members'
    rows: streaks, dailies won and the best, over random histories with gaps, late, unfinished
    and actionless days, and a non-member's rows left out."""
    import random

    rng = random.Random(39)
    today = dt.date(2027, 3, 1)
    table = store.make_table("p0", "T")
    for i in range(1, 8):
        store.join_table(table.invite, f"p{i}")
    rows = []
    for i in range(9):  # p8 is not a member
        for n in range(0, 40):
            if rng.random() < 0.25:
                continue
            ended = rng.random() < 0.85
            rows.append(
                AttemptRow(
                    day=(today - dt.timedelta(days=n)).isoformat(), player=f"p{i}", game_id=f"g{i}-{n}",
                    code="TP1-E-AAAAAAB", late=rng.random() < 0.1, ended=ended,
                    won=ended and rng.random() < 0.6, score=rng.randint(0, 900), seconds=10.0, hints=0,
                    plausible=True, gaps=0, quick=0, board_key=rng.randint(0, 5), started=0.0,
                    last_action=None if rng.random() < 0.05 else 1.0, at=float(rng.randint(0, 3)),
                )
            )  # fmt: skip
    put_rows(store, rows)
    found = store.table_past(table.id, today)
    for i in range(8):
        mine = [r for r in rows if r.player == f"p{i}" and r.day < today.isoformat()]
        ranked = sorted((r for r in mine if counted(r, True)), key=lambda r: (r.board_key, r.at, r.day))
        want = streaks([attempt_of(r, None) for r in mine], today)
        assert found[f"p{i}"].streaks == want
        assert found[f"p{i}"].won == sum(r.won for r in ranked)
        best = found[f"p{i}"].best
        assert best is not None and (best.board_key, best.at) == (ranked[0].board_key, ranked[0].at)
        assert bool(best.ended) == bool(ranked[0].ended) and best.code == ranked[0].code
    assert "p8" not in found
    assert max(p.streaks.longest for p in found.values()) >= 3  # runs, not single days


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_a_version_8_database_gains_tables(database_url: str) -> None:
    from sqlalchemy import inspect, text

    from app.store.database.schema import SCHEMA_VERSION
    from app.store.database.sql import SqlStore

    store = SqlStore(database_url)
    store.set_display_name("ann", "Ann")
    with store._engine.begin() as conn:  # back to schema 8: as the release before left it
        conn.execute(text("DROP TABLE tp_table_members"))
        conn.execute(text("DROP TABLE tp_tables"))
        conn.execute(text("UPDATE tp_schema SET version = 8"))
    store.close()
    store = SqlStore(database_url)
    try:
        with store._engine.connect() as conn:
            assert (
                conn.execute(text("SELECT version FROM tp_schema")).scalar_one()
                == SCHEMA_VERSION
            )
            indexes = {i["name"]: i for i in inspect(conn).get_indexes("tp_table_members")}
            assert indexes["tp_table_members_table"]["unique"]
        table = store.make_table("ann", "T")
        assert [m.name for m in store.table_members(table.id)] == ["Ann"]
    finally:
        store.close()
