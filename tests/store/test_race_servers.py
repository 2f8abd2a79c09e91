"""A race across two servers on one PostgreSQL (issue 24): racers on different servers see
each other through LISTEN/NOTIFY; one server killed (SIGKILL) mid-race and started again loses
nothing, and its stream comes back. The same through Redis pub/sub where it is configured."""

from __future__ import annotations

import os
import re
import secrets
import time
from pathlib import Path

import httpx
import pytest

from app.web.race_signals import REDIS_CHANNEL
from tests.support.deals import won_deal
from tests.support.races import Stream
from tests.support.servers import start_server

pytestmark = pytest.mark.postgres

QUIET = {"TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_ACCESS_LOG": "false"}


def move(client: httpx.Client, game_id: str, action: int) -> dict[str, object]:
    if action < 0:
        answer = client.post(f"/api/games/{game_id}/draw")
    else:
        answer = client.post(f"/api/games/{game_id}/remove", json={"position": action})
    assert answer.status_code == 200, answer.text
    state: dict[str, object] = answer.json()
    return state


def strip_shows(state: dict[str, object]) -> re.Pattern[str]:
    cards_left = sum(1 for slot in state["tableau"] if not slot["removed"])  # type: ignore[attr-defined]
    return re.compile(rf'racer-cards">{cards_left}</b>.*?racer-score">{state["score"]}</b>', re.S)


def test_racers_on_two_servers_and_a_server_killed_mid_race(pg_database: str, tmp_path: Path) -> None:
    code, line = won_deal()
    env = {**QUIET, "TRIPEAKS_DATABASE_URL": pg_database}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = start_server(tmp_path / "a", env)
    second = start_server(tmp_path / "b", env)
    try:
        maker = httpx.Client(base_url=first.url, timeout=10)
        rival = httpx.Client(base_url=second.url, timeout=10)
        race_id = maker.post("/api/races", json={"code": code.text()}).json()["id"]
        mine = maker.post(f"/api/races/{race_id}/join").json()["game_id"]
        theirs = rival.post(f"/api/races/{race_id}/join").json()["game_id"]
        on_second = Stream(rival, f"/races/{race_id}/events?view=board-1").open()
        on_first = Stream(maker, f"/races/{race_id}/events?view=board-1").open()
        assert "Player 2" in on_second.next().data and "Player 2" in on_first.next().data
        assert maker.post(f"/api/races/{race_id}/start").status_code == 200
        on_second.until("race-countdown")  # the start, made on the first server, seen on the second
        time.sleep(3.1)

        delays = []
        for action in line[:6]:
            state = move(maker, mine, action)
            answered = time.monotonic()
            delays.append(on_second.until(strip_shows(state)).at - answered)
        state = move(rival, theirs, line[0])
        on_first.until(strip_shows(state))  # and the other way round
        assert max(delays) < 1.0, delays

        first.kill()  # mid-race: no shutdown at all
        with pytest.raises((EOFError, httpx.HTTPError)):
            for _ in range(50):
                on_first.next(timeout=5)
        first = start_server(tmp_path / "a", env, port=int(first.url.rsplit(":", 1)[1]))
        kept = maker.get(f"/api/games/{mine}").json()
        assert kept["moves"] == 6  # nothing lost
        race = maker.get(f"/api/races/{race_id}").json()
        assert race["status"] == "running" and len(race["racers"]) == 2

        back = Stream(maker, f"/races/{race_id}/events?view=board-1").open()  # the stream comes back
        assert "race-strip" in back.next().data
        for action in line[6:10]:
            state = move(maker, mine, action)
            on_second.until(strip_shows(state))  # the restarted server's moves reach the other
        state = move(rival, theirs, line[1])
        back.until(strip_shows(state))  # and its LISTEN is back
        for stream in (on_first, on_second, back):
            stream.close()
    finally:
        first.stop()
        second.stop()


REDIS_URL = os.environ.get("TRIPEAKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
REQUIRE_REDIS = os.environ.get("TRIPEAKS_REQUIRE_REDIS") == "1"


@pytest.fixture
def redis_url() -> str:
    """A Redis database of its own for the servers' signals (its number names the servers'
    connections: pub/sub channels are shared by every database); skip without Redis, unless
    TRIPEAKS_REQUIRE_REDIS=1 (.ci/run), where it fails."""
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except Exception as error:
        reason = f"Redis is not reachable at {REDIS_URL} ({type(error).__name__}: {error}); set TRIPEAKS_TEST_REDIS_URL"
        if REQUIRE_REDIS:
            pytest.fail(reason + " (TRIPEAKS_REQUIRE_REDIS=1: this test must run)")
        pytest.skip(reason)
    return REDIS_URL.rsplit("/", 1)[0] + f"/{secrets.randbelow(15) + 1}"


def test_racers_on_two_servers_sharing_redis(pg_database: str, redis_url: str, tmp_path: Path) -> None:
    """TRIPEAKS_RACE_SIGNALS_URL: the servers tell each other through Redis pub/sub (the
    signal is seen on Redis's channel, and carries the race's id only); racers on each see the
    other's moves; when Redis drops the servers' subscriptions, they subscribe again and the
    moves still arrive."""
    import redis

    code, line = won_deal()
    env = {**QUIET, "TRIPEAKS_DATABASE_URL": pg_database, "TRIPEAKS_RACE_SIGNALS_URL": redis_url}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = start_server(tmp_path / "a", env)
    second = start_server(tmp_path / "b", env)
    watcher = redis.Redis.from_url(redis_url).pubsub()
    watcher.subscribe(REDIS_CHANNEL)
    try:
        maker = httpx.Client(base_url=first.url, timeout=10)
        rival = httpx.Client(base_url=second.url, timeout=10)
        race_id = maker.post("/api/races", json={"code": code.text()}).json()["id"]
        mine = maker.post(f"/api/races/{race_id}/join").json()["game_id"]
        theirs = rival.post(f"/api/races/{race_id}/join").json()["game_id"]
        on_second = Stream(rival, f"/races/{race_id}/events?view=board-1").open()
        on_first = Stream(maker, f"/races/{race_id}/events?view=board-1").open()
        assert "Player 2" in on_second.next().data and "Player 2" in on_first.next().data
        assert maker.post(f"/api/races/{race_id}/start").status_code == 200
        on_second.until("race-countdown")  # the start, made on the first server, seen on the second
        signals = []
        deadline = time.monotonic() + 10
        while not any(race_id in s for s in signals) and time.monotonic() < deadline:
            message = watcher.get_message(timeout=1)
            if message and message["type"] == "message":
                signals.append(message["data"].decode())
        # "<server>:<race id>,<race id>…": nothing but the ids of the races that changed
        assert any(race_id in s.partition(":")[2].split(",") for s in signals), signals
        time.sleep(3.1)

        for action in line[:4]:
            state = move(maker, mine, action)
            on_second.until(strip_shows(state))
        state = move(rival, theirs, line[0])
        on_first.until(strip_shows(state))

        # Redis drops both servers' subscriptions (their connections to this database).
        admin = redis.Redis.from_url(REDIS_URL)
        database = int(redis_url.rsplit("/", 1)[1])
        dropped = 0
        for client in admin.client_list():
            if int(client.get("db", -1)) == database and int(client.get("sub", 0)) > 0 and client["id"]:
                dropped += admin.client_kill_filter(_id=client["id"])
        assert dropped >= 2, admin.client_list()  # both servers' (and the watcher's)
        time.sleep(2)  # they subscribe again within a second or two
        for action in line[4:8]:
            state = move(maker, mine, action)
            on_second.until(strip_shows(state))
        state = move(rival, theirs, line[1])
        on_first.until(strip_shows(state))
        for stream in (on_first, on_second):
            stream.close()
    finally:
        watcher.close()
        first.stop()
        second.stop()
