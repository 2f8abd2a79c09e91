"""Race reads on PostgreSQL's event loop (:mod:`app.store.database.race_async`): the same race
as the store's own reads, at every step of a room's life; a kept connection that was lost is
replaced within the read (the database restarted); no database at all is "unavailable"."""

from __future__ import annotations

import psycopg
import pytest

from app.engine import GameCode, Rules
from app.store.base import GameStore, StoreUnavailable
from app.store.database.race_async import PostgresRaceReader, conninfo_of
from app.store.races import COUNTDOWN_S
from tests.support.deals import won_deal
from tests.support.store import Clock, play_timed, run

pytestmark = pytest.mark.parametrize(
    "database_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)

MAKER = "maker-player-id-000000000001"
RIVAL = "rival-player-id-000000000002"


@pytest.fixture
def conninfo(database_url: str) -> str:
    """The test's PostgreSQL database as libpq takes it."""
    found = conninfo_of(database_url)
    assert found is not None
    return found


def test_the_loops_reads_are_the_stores_reads(store: GameStore, conninfo: str, clock: Clock) -> None:
    code, line = won_deal()

    async def same(reader: PostgresRaceReader, race_id: str, games: list[str]) -> None:
        assert await reader.race(race_id) == store.race(race_id)
        for game_id in games:
            assert await reader.race_of_game(game_id) == store.race_of_game(game_id)

    async def main() -> None:
        reader = PostgresRaceReader(conninfo, connections=2)
        try:
            race = store.create_race(code, MAKER)
            mine = race.racers[0].game_id
            await same(reader, race.id, [mine])  # the lobby, one racer
            theirs = store.join_race(race.id, RIVAL, clock())
            store.start_race(race.id, MAKER, clock())
            await same(reader, race.id, [mine, theirs])  # the countdown
            clock.advance(COUNTDOWN_S)
            for action in line[:5]:
                play_timed(store, clock, theirs, [action])
                await same(reader, race.id, [mine, theirs])  # the rival's cards, score, stock
            store.see_racer(race.id, RIVAL, clock(), back=True)
            store.leave_race(race.id, RIVAL, clock())
            after = await reader.race(race.id)
            assert after is not None and after.racer(RIVAL).left_at is not None  # type: ignore[union-attr]
            for action in line:
                play_timed(store, clock, mine, [action])
            await same(reader, race.id, [mine, theirs])  # the finish
            again = store.race_again(race.id, MAKER, GameCode(Rules.EASY, 7), clock())
            assert again.round == 2
            assert await reader.race_of_game(mine) is None  # last round's game: no race now
            await same(reader, race.id, [mine, again.racers[0].game_id])
            assert await reader.race("nosuchrace00") is None
            assert await reader.race_of_game("nosuchgame00") is None
        finally:
            await reader.close()

    run(main())


def test_a_lost_connection_is_replaced_within_the_read_and_no_server_is_unavailable(
    store: GameStore, conninfo: str, clock: Clock
) -> None:
    race = store.create_race(won_deal()[0], MAKER)

    async def main() -> None:
        named = conninfo + ("&" if "?" in conninfo else "?") + "application_name=tripeaks-race-reads"
        reader = PostgresRaceReader(named, connections=1)
        try:
            assert await reader.race(race.id) == store.race(race.id)
            with psycopg.connect(conninfo, autocommit=True) as admin:
                ended = admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE application_name = 'tripeaks-race-reads'"
                ).fetchall()
            assert ended == [(True,)]
            assert await reader.race(race.id) == store.race(race.id)  # made again, on a new one
            with psycopg.connect(conninfo, autocommit=True) as admin:
                again = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'tripeaks-race-reads'"
                ).fetchone()
            assert again == (1,)
        finally:
            await reader.close()
        nowhere = PostgresRaceReader("postgresql://postgres@127.0.0.1:1/test?connect_timeout=2")
        with pytest.raises(StoreUnavailable):
            await nowhere.race(race.id)  # no server: a clear "unavailable", no retry loop

    run(main())
