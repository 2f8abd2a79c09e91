"""Races in the store (issue 24): every backend keeps rooms, racers and their games alike."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from app.engine import DRAW, Game, GameCode, Status
from app.store.base import GameStore
from app.store.races import (
    COUNTDOWN_S,
    GONE_AFTER_S,
    MAX_OPEN_ROOMS,
    MAX_RACERS,
    TIME_LIMIT_S,
    NotNow,
    NotTheMaker,
    RaceFull,
    RacerStatus,
    RaceStatus,
    RaceUnderway,
    TooManyRooms,
    UnknownRace,
    is_race_game_id,
)
from tests.support.deals import blocked_by_drawing, won_deal
from tests.support.store import BACKENDS, Clock, StoreFactory, play_timed

pytestmark = pytest.mark.parametrize("database_url", BACKENDS, indirect=True)

MAKER = "maker-player-id-000000000001"
RIVAL = "rival-player-id-000000000002"


def test_a_room_from_lobby_to_finish(store: GameStore, clock: Clock) -> None:
    code, line = won_deal()
    race = store.create_race(code, MAKER)
    assert race.status(clock()) is RaceStatus.LOBBY and race.code == code.text()
    (first,) = race.racers
    assert first.player == MAKER and first.seat == 0 and is_race_game_id(first.game_id)
    maker_game = store.get(first.game_id)
    assert maker_game is not None and maker_game.owner == MAKER and maker_game.game.code == code
    assert store.current(MAKER) == maker_game

    rival_game = store.join_race(race.id, RIVAL, clock())
    assert store.join_race(race.id, RIVAL, clock()) == rival_game  # joining again: the same game
    assert store.race_of_game(rival_game) is not None

    with pytest.raises(NotTheMaker):
        store.start_race(race.id, RIVAL, clock())
    started = store.start_race(race.id, MAKER, clock())
    assert started.status(clock()) is RaceStatus.COUNTDOWN
    with pytest.raises(NotNow):
        store.start_race(race.id, MAKER, clock())
    with pytest.raises(RaceUnderway):
        store.join_race(race.id, "late-player-id-0000000000003", clock())
    clock.advance(COUNTDOWN_S)
    assert store.race(race.id).status(clock()) is RaceStatus.RUNNING  # type: ignore[union-attr]

    play_timed(store, clock, rival_game, line)
    running = store.race(race.id)
    assert running is not None and running.status(clock()) is RaceStatus.RUNNING
    rival = running.racer(RIVAL)
    assert rival is not None and rival.game_status is Status.WON and rival.cards_left == 0
    assert running.places(clock()) == {RIVAL: 1}
    with pytest.raises(NotNow):
        store.race_again(race.id, MAKER, code, clock())

    drawn = play_timed(store, clock, first.game_id, [DRAW]).game
    maker = store.race(race.id).racer(MAKER)  # type: ignore[union-attr]
    assert maker is not None and maker.stock_left == Game(code).stock_count - 1 == drawn.stock_count
    assert maker.score == drawn.score
    clock.advance(TIME_LIMIT_S)
    finished = store.race(race.id)
    assert finished is not None and finished.status(clock()) is RaceStatus.FINISHED
    assert finished.places(clock()) == {RIVAL: 1, MAKER: 2}
    assert finished.seconds_of(finished.racer(RIVAL)) == pytest.approx(len(line), abs=0.01)  # type: ignore[arg-type]
    store.settle_race(race.id, finished.finish_at(clock()))  # type: ignore[arg-type]
    store.settle_race(race.id, clock() + 99)  # once
    assert store.race(race.id).ended == finished.finish_at(clock())  # type: ignore[union-attr]

    with pytest.raises(NotTheMaker):
        store.race_again(race.id, RIVAL, code, clock())
    other = GameCode.parse("TP1-E-AAAAAAC")
    again = store.race_again(race.id, MAKER, other, clock())
    assert again.round == 2 and again.code == other.text() and again.status(clock()) is RaceStatus.LOBBY
    assert [r.player for r in again.racers] == [MAKER, RIVAL]
    assert all(r.game_id not in (first.game_id, rival_game) for r in again.racers)
    assert store.race_of_game(rival_game) is None  # an earlier round's game: an ordinary game now
    assert store.get(rival_game) is not None


def test_the_room_ends_when_everyone_has_won_or_is_blocked(store: GameStore, clock: Clock) -> None:
    code = blocked_by_drawing()
    race = store.create_race(code, MAKER)
    rival = store.join_race(race.id, RIVAL, clock())
    store.start_race(race.id, MAKER, clock())
    clock.advance(COUNTDOWN_S)
    play_timed(store, clock, race.racers[0].game_id, [DRAW] * Game(code).stock_count)
    assert store.race(race.id).status(clock()) is RaceStatus.RUNNING  # type: ignore[union-attr]
    play_timed(store, clock, rival, [DRAW] * Game(code).stock_count)
    done = store.race(race.id)
    assert done is not None and done.status(clock()) is RaceStatus.FINISHED
    assert [r.player for r in done.in_order(clock())] == [MAKER, RIVAL]  # equal: who ended first
    assert {r.status(clock()) for r in done.racers} == {RacerStatus.BLOCKED}


def test_a_racer_who_leaves_is_gone_and_does_not_hold_the_race_open(store: GameStore, clock: Clock) -> None:
    """"Leave the race": gone at once; the race finishes when every racer still there has won
    or is blocked (not at the time limit); opening the page again (``back``) brings them back."""
    code, line = won_deal()
    race = store.create_race(code, MAKER)
    rival = store.join_race(race.id, RIVAL, clock())
    with pytest.raises(NotNow):
        store.leave_race(race.id, RIVAL, clock())  # the lobby: nothing to leave yet
    store.start_race(race.id, MAKER, clock())
    clock.advance(COUNTDOWN_S)
    store.see_racer(race.id, RIVAL, clock(), back=True)
    play_timed(store, clock, rival, line[:3])
    store.leave_race(race.id, RIVAL, clock())
    left_at = clock()
    after = store.race(race.id)
    assert after is not None and after.racer(RIVAL).status(clock()) is RacerStatus.GONE  # type: ignore[union-attr]
    assert after.status(clock()) is RaceStatus.RUNNING  # the maker still plays
    store.see_racer(race.id, RIVAL, clock() + 1)  # their closing page's last mark: still gone
    assert store.race(race.id).racer(RIVAL).status(clock() + 1) is RacerStatus.GONE  # type: ignore[union-attr]

    play_timed(store, clock, race.racers[0].game_id, line)
    done = store.race(race.id)
    assert done is not None and done.status(clock()) is RaceStatus.FINISHED  # long before the limit
    finish = done.finish_at(clock())
    assert finish is not None and finish < race.racers[0].joined + TIME_LIMIT_S
    assert finish == done.racer(MAKER).ended_at and finish > left_at  # type: ignore[union-attr]
    assert done.places(clock()) == {MAKER: 1, RIVAL: 2}
    assert done.racer(RIVAL).status(clock()) is RacerStatus.GONE  # type: ignore[union-attr]
    with pytest.raises(UnknownRace):
        store.leave_race("nosuchrace00", RIVAL, clock())
    with pytest.raises(NotNow):
        store.leave_race(race.id, MAKER, clock())  # over


def test_race_again_does_not_bring_back_a_racer_who_left(store: GameStore, clock: Clock) -> None:
    """Issue 42: "Race again" seats the maker and the racers still there, not one who left."""
    code, line = won_deal()
    third = "third-player-id-000000000003"
    race = store.create_race(code, MAKER)
    store.join_race(race.id, RIVAL, clock())
    store.join_race(race.id, third, clock())
    store.start_race(race.id, MAKER, clock())
    clock.advance(COUNTDOWN_S)
    for player in (MAKER, RIVAL, third):
        store.see_racer(race.id, player, clock(), back=True)
    store.leave_race(race.id, RIVAL, clock())
    play_timed(store, clock, race.racers[0].game_id, line)
    clock.advance(TIME_LIMIT_S)  # the third still plays, their page connected, until the limit
    store.see_racer(race.id, third, clock())
    assert store.race(race.id).status(clock()) is RaceStatus.FINISHED  # type: ignore[union-attr]
    again = store.race_again(race.id, MAKER, GameCode.parse("TP1-E-AAAAAAC"), clock())
    assert [r.player for r in again.racers] == [MAKER, third]
    assert store.race(race.id).racer(RIVAL) is None  # type: ignore[union-attr]
    assert store.join_race(race.id, RIVAL, clock())  # they may join the new round by its link


def test_a_racer_whose_page_is_away_is_gone_after_a_while_and_can_come_back(store: GameStore, clock: Clock) -> None:
    code, line = won_deal()
    race = store.create_race(code, MAKER)
    rival = store.join_race(race.id, RIVAL, clock())
    store.start_race(race.id, MAKER, clock())
    clock.advance(COUNTDOWN_S)
    store.see_racer(race.id, RIVAL, clock(), back=True)  # the page connected
    store.see_racer(race.id, MAKER, clock(), back=True)
    store.leave_race(race.id, RIVAL, clock())
    store.see_racer(race.id, RIVAL, clock() + 1, back=True)  # they opened the race's page again
    assert store.race(race.id).racer(RIVAL).status(clock() + 1) is RacerStatus.PLAYING  # type: ignore[union-attr]
    clock.advance(1)  # the rival's page closes now (its last mark); the maker's stays
    clock.advance(GONE_AFTER_S - 1)
    store.see_racer(race.id, MAKER, clock())
    here = store.race(race.id)
    assert here is not None and here.racer(RIVAL).status(clock()) is RacerStatus.PLAYING  # within the grace
    clock.advance(3)
    store.see_racer(race.id, MAKER, clock())
    away = store.race(race.id)
    assert away is not None and away.racer(RIVAL).status(clock()) is RacerStatus.GONE
    assert away.status(clock()) is RaceStatus.RUNNING
    play_timed(store, clock, race.racers[0].game_id, line)
    assert store.race(race.id).status(clock()) is RaceStatus.FINISHED  # type: ignore[union-attr]
    assert store.get(rival) is not None  # their game stays an ordinary game


def test_a_full_room_unknown_rooms_and_rooms_per_player(store: GameStore, clock: Clock) -> None:
    race = store.create_race(GameCode.parse("TP1-C-AAAAAAB"), MAKER)
    for n in range(1, MAX_RACERS):
        store.join_race(race.id, f"racer-{n:022d}", clock())
    with pytest.raises(RaceFull):
        store.join_race(race.id, RIVAL, clock())
    assert [r.seat for r in store.race(race.id).racers] == list(range(MAX_RACERS))  # type: ignore[union-attr]
    with pytest.raises(UnknownRace):
        store.join_race("nosuchrace00", RIVAL, clock())
    with pytest.raises(UnknownRace):
        store.start_race("nosuchrace00", MAKER, clock())
    assert store.race("nosuchrace00") is None
    for _ in range(MAX_OPEN_ROOMS - 1):
        store.create_race(GameCode.parse("TP1-E-AAAAAAB"), MAKER)
    with pytest.raises(TooManyRooms):
        store.create_race(GameCode.parse("TP1-E-AAAAAAB"), MAKER)
    store.create_race(GameCode.parse("TP1-E-AAAAAAB"), RIVAL)  # another player's bound


def test_presence_and_idle_rooms(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store(clock=clock)
    race = store.create_race(GameCode.parse("TP1-E-AAAAAAB"), MAKER)
    store.join_race(race.id, RIVAL, clock())
    store.see_racer(race.id, RIVAL, clock())
    seen = store.race(race.id)
    assert seen is not None
    assert seen.racer(MAKER).status(clock()) is RacerStatus.PLAYING  # type: ignore[union-attr]  # never connected
    assert seen.racer(RIVAL).status(clock() + GONE_AFTER_S - 1) is RacerStatus.PLAYING  # type: ignore[union-attr]
    assert seen.racer(RIVAL).status(clock() + GONE_AFTER_S + 1) is RacerStatus.GONE  # type: ignore[union-attr]
    clock.advance(3600)
    kept = store.create_race(GameCode.parse("TP1-E-AAAAAAB"), RIVAL)
    assert store.cleanup_races(dt.timedelta(minutes=30)) == 1
    assert store.race(race.id) is None and store.race(kept.id) is not None
    assert store.get(seen.racers[0].game_id) is not None  # the games stay
    if hasattr(store, "url"):  # another store on the same database sees it
        assert make_store(clock=clock).race(kept.id) is not None


def test_a_version_4_database_gains_the_race_tables(database_url: str) -> None:
    if database_url.startswith("memory:"):
        pytest.skip("a schema is SQL's")
    from sqlalchemy import inspect, text

    from app.store.database.schema import SCHEMA_VERSION
    from app.store.database.sql import SqlStore

    store = SqlStore(database_url)
    stored = store.create(Game(GameCode.parse("TP1-E-AAAAAAB")), MAKER)
    with store._engine.begin() as conn:  # back to schema 4: as the release before left it
        conn.execute(text("DROP TABLE tp_racers"))
        conn.execute(text("DROP TABLE tp_races"))
        conn.execute(text("UPDATE tp_schema SET version = 4"))
    store.close()
    store = SqlStore(database_url)
    try:
        assert store.get(stored.id) == stored
        with store._engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM tp_schema")).scalar_one() == SCHEMA_VERSION >= 5
            assert inspect(conn).get_pk_constraint("tp_racers")["constrained_columns"] == ["race_id", "round", "player"]
            indexes = {i["name"]: i for i in inspect(conn).get_indexes("tp_racers")}
            assert indexes["tp_racers_game"]["unique"]
        assert store.race(store.create_race(GameCode.parse("TP1-E-AAAAAAB"), MAKER).id) is not None
    finally:
        store.close()


def test_a_version_5_database_gains_when_racers_left(database_url: str, clock: Clock) -> None:
    if database_url.startswith("memory:"):
        pytest.skip("a schema is SQL's")
    from sqlalchemy import inspect, text

    from app.store.database.sql import SqlStore

    store = SqlStore(database_url)
    race = store.create_race(GameCode.parse("TP1-E-AAAAAAB"), MAKER)
    with store._engine.begin() as conn:  # back to schema 5: as the release before left it
        conn.execute(text("ALTER TABLE tp_racers DROP COLUMN left_at"))
        conn.execute(text("UPDATE tp_schema SET version = 5"))
    store.close()
    store = SqlStore(database_url)
    try:
        with store._engine.connect() as conn:
            assert "left_at" in {c["name"] for c in inspect(conn).get_columns("tp_racers")}
        kept = store.race(race.id)
        assert kept is not None and kept.racer(MAKER).left_at is None  # type: ignore[union-attr]
        store.start_race(race.id, MAKER, time.time() - COUNTDOWN_S - 1)
        store.leave_race(race.id, MAKER, time.time())
        assert store.race(race.id).racer(MAKER).left_at is not None  # type: ignore[union-attr]
    finally:
        store.close()


def test_the_racers_of_many_races_are_seen_in_one_write(store: GameStore, clock: Clock) -> None:
    """``see_racers``: a server's batched presence marks (every racer whose stream is open
    there, one write every 15 s): each racer named is seen (playing, not gone), any other
    racer's mark is left as it was, and a race named that is gone is no error."""
    code, _ = won_deal()
    races = []
    for number in range(3):
        race = store.create_race(code, f"{MAKER}-{number}")
        store.join_race(race.id, f"{RIVAL}-{number}", clock())
        store.start_race(race.id, f"{MAKER}-{number}", clock())
        races.append(race)
    clock.advance(COUNTDOWN_S)
    for number, race in enumerate(races):
        store.see_racer(race.id, f"{MAKER}-{number}", clock(), back=True)
        store.see_racer(race.id, f"{RIVAL}-{number}", clock(), back=True)
    clock.advance(GONE_AFTER_S - 5)
    store.see_racers({race.id: [f"{MAKER}-{n}"] for n, race in enumerate(races)} | {"nosuchrace00": [MAKER]}, clock())
    clock.advance(10)  # past the rivals' grace, within the makers' renewed one
    for number, race in enumerate(races):
        seen = store.race(race.id)
        assert seen is not None
        assert seen.racer(f"{MAKER}-{number}").status(clock()) is RacerStatus.PLAYING  # type: ignore[union-attr]
        assert seen.racer(f"{RIVAL}-{number}").status(clock()) is RacerStatus.GONE  # type: ignore[union-attr]
    store.see_racers({}, clock())  # nothing to mark: nothing written
