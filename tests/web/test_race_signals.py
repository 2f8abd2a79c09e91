"""The race's signals between servers (:mod:`app.web.race_signals`): a message names the races
that changed, each once; a burst of moves goes out in a few messages, not one a move; a
server wakes its streams for every race named by another server, never for its own."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import psycopg
import pytest

from app.store.database.race_async import conninfo_of
from app.store.memory import MemoryStore
from app.store.races import COUNTDOWN_S, RaceStatus
from app.web.race_signals import CHANNEL, LocalSignals, PostgresSignals, payloads
from app.web.race_stream import RaceReads
from tests.support.deals import won_deal
from tests.support.store import run


def test_a_message_names_each_race_once_and_stays_short() -> None:
    ids = [f"race{n:08d}" for n in range(1000)]
    found = payloads("abc123", ids, most=200)
    assert len(found) > 1 and all(len(p) <= 200 and p.startswith("abc123:") for p in found)
    named = [race_id for p in found for race_id in p.partition(":")[2].split(",")]
    assert named == ids
    assert payloads("abc123", []) == []


def test_a_server_wakes_its_streams_for_the_races_another_server_names() -> None:
    async def main() -> None:
        signals = LocalSignals()
        first, second, other = signals.listen("first"), signals.listen("second"), signals.listen("other")
        signals.received(f"{signals.server}:first")  # its own: woken when it was published
        assert not first.changed
        signals.received("elsewhere:first,second")
        assert first.changed and second.changed and not other.changed
        assert signals.version("first") == 1 and signals.version("other") == 0

    run(main())


@pytest.mark.postgres
def test_a_burst_of_moves_goes_out_in_a_few_notifications(pg_database: str) -> None:
    conninfo = conninfo_of(pg_database)
    assert conninfo is not None
    ids = [f"burst{n:07d}" for n in range(60)]

    async def main() -> list[str]:
        listener = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        await listener.execute(f"LISTEN {CHANNEL}")
        signals = PostgresSignals(conninfo)
        await signals.start()
        try:
            for race_id in ids:  # sixty moves at once, as from sixty requests
                await signals.publish(race_id)
            for race_id in ids[:10]:  # and the first ten rooms again
                await signals.publish(race_id)
            got: list[str] = []
            deadline = time.monotonic() + 10
            async for notice in listener.notifies(timeout=10):
                server, _, named = notice.payload.partition(":")
                if server == signals.server:  # other tests' servers may share the channel
                    got.append(named)
                if {i for n in got for i in n.split(",")} >= set(ids) or time.monotonic() > deadline:
                    break
            return got
        finally:
            await signals.close()
            await listener.close()

    got = run(main())
    named = [race_id for message in got for race_id in message.split(",")]
    assert set(named) == set(ids)
    assert len(got) < 10, got  # not one a move: what waited went out together


def test_a_moves_check_uses_the_streams_read_until_the_races_next_signal() -> None:
    """A racer's move is checked against the read this server's streams share, while no signal
    of the race came since: a racer who has just left is refused at once all the same."""
    maker, rival = "maker-player-id-000000000001", "rival-player-id-000000000002"

    async def main() -> None:
        store = MemoryStore()
        signals = LocalSignals()
        reads = RaceReads(signals)
        race = store.create_race(won_deal()[0], maker)
        theirs = store.join_race(race.id, rival, time.time())
        store.start_race(race.id, maker, time.time() - COUNTDOWN_S - 1)  # running now
        store.see_racer(race.id, rival, time.time(), back=True)
        fresh = await reads.race_of_game(store, theirs)  # not seen here yet: read afresh
        assert fresh is not None and fresh.status(time.time()) is RaceStatus.RUNNING
        stream = signals.listen(race.id)  # a stream of the race on this server
        shared = await reads.read(store, race.id, most_age=15)
        assert await reads.race_of_game(store, theirs) is shared  # no read of its own

        store.leave_race(race.id, rival, time.time())
        await signals.publish(race.id)  # as the leave route does
        after = await reads.race_of_game(store, theirs)
        assert after is not shared and after is not None
        assert after.racer(rival).left_at is not None  # type: ignore[union-attr]
        signals.stop_listening(stream)

    run(main())


def test_the_sender_goes_on_after_a_send_that_failed() -> None:
    """A send that fails in a way the transport did not foresee loses that send only: the
    sender task still sends what is published after it."""

    class Flaky(PostgresSignals):
        def __init__(self) -> None:
            super().__init__("postgresql://nowhere.invalid/none")
            self.sent: list[str] = []

        async def _listen(self, connected: Callable[[], None]) -> None:
            connected()
            await asyncio.Event().wait()

        async def _send(self, payload: str) -> None:
            if not self.sent:
                self.sent.append("failed")
                raise RuntimeError("an unforeseen failure")
            self.sent.append(payload.partition(":")[2])

    async def main() -> list[str]:
        signals = Flaky()
        await signals.start()
        try:
            await signals.publish("first")
            await asyncio.sleep(0.05)
            await signals.publish("second")
            await asyncio.sleep(0.05)
            return signals.sent
        finally:
            await signals.close()

    assert run(main()) == ["failed", "second"]


def test_a_listener_that_was_listening_reconnects_at_the_first_wait_again() -> None:
    """The waits between reconnects grow while connecting fails (0.2 s, 0.5 s, 1 s, ...), and
    start again from the shortest once listening worked: a server whose connection drops now
    and then, days apart, does not wait 5 s each time."""

    class Dropping(PostgresSignals):
        def __init__(self) -> None:
            super().__init__("postgresql://nowhere.invalid/none")
            self.listens = 0

        async def _listen(self, connected: Callable[[], None]) -> None:
            self.listens += 1
            connected()
            raise OSError("the connection was lost")

        async def _send(self, payload: str) -> None:
            pass

        async def _close_sender(self) -> None:
            pass

    async def main() -> int:
        signals = Dropping()
        await signals.start()
        try:
            await asyncio.sleep(1.5)  # 0.2 s a wait: 7 listens; growing waits: 4 in 1.7 s
            return signals.listens
        finally:
            await signals.close()

    assert run(main()) >= 6
