"""A race on the day's deal keeps the rule of no spoilers (app.web.presentation.daily.days.
answers_open): its finish shows par only to a player whose daily attempt has ended.

Races run on the wall clock (their countdown and time limit), so this test takes today's
deal as it is now; everything dated is read from the same clock."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from fastapi.testclient import TestClient

from app.engine import Game, GameCode
from app.engine.search.daily import daily_code
from app.store import MemoryStore
from app.store.races import RaceStatus
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.deals import winning_line
from tests.support.pages import game_id_of, play
from tests.support.races import quick_countdown

KEY = "daily-race-test-key"


quick = quick_countdown(0.2)


@pytest.fixture
def daily_app(tmp_path):  # type: ignore[no-untyped-def]
    """On the wall clock (races run on it); ``ann`` and ``bob`` (tests/web/conftest.py) play on it."""
    return create_app(Settings(secret_key=KEY, database_url="memory://", data_dir=tmp_path), store=MemoryStore())


def wait_until_running(client: TestClient, race_id: str) -> None:
    """The countdown over, by the store's own rule (a loaded machine may take longer than it)."""
    store: MemoryStore = client.app.state.store  # type: ignore[attr-defined]
    for _ in range(200):
        race = store.race(race_id)
        if race is not None and race.status(time.time()) is RaceStatus.RUNNING:
            return
        time.sleep(0.05)
    raise AssertionError(f"race {race_id} never ran")


def test_a_race_on_the_day_s_deal_is_the_attempt_and_shows_par_only_once_the_attempt_has_ended(
    ann: TestClient, bob: TestClient
) -> None:
    today = dt.datetime.now(dt.UTC).date()
    code: GameCode = daily_code(KEY.encode(), today)
    line = winning_line(Game(code))
    assert line is not None
    attempt = game_id_of(bob.get(f"/daily/{today.isoformat()}").text)  # Bob's ranked attempt, under way

    url = ann.post("/races", data={"code": code.text()}, follow_redirects=False).headers["location"]
    race_id = url.rsplit("/", 1)[1]
    refused = bob.post(f"/races/{race_id}/join", follow_redirects=False)  # his attempt is under way
    assert refused.status_code == 409
    assert ann.post(f"/races/{race_id}/start", follow_redirects=False).status_code == 303
    wait_until_running(ann, race_id)
    store: MemoryStore = ann.app.state.store  # type: ignore[attr-defined]
    race = store.race(race_id)
    assert race is not None and race.code == code.text() and [r.player for r in race.racers] == [race.maker]
    assert ann.get("/api/daily").json()["you"] is not None  # her seat is her attempt
    play(ann, race.racers[0].game_id, line)  # Ann wins the race: it is finished, and her attempt

    assert ann.get("/api/daily").json()["you"]["won"]  # (not ranked: played faster than a person)
    finished = ann.get(url).text
    assert 'id="race-finish"' in finished and 'id="race-par"' in finished  # her attempt has ended
    watching = bob.get(url).text  # Bob's attempt has not ended: no par for him
    assert 'id="race-finish"' in watching and 'id="race-par"' not in watching
    assert bob.get("/api/daily").json()["par"] is None

    play(bob, attempt, line)  # Bob's attempt ends
    par = bob.get("/api/daily").json()["par"]
    assert par is not None
    opened = bob.get(url).text
    assert 'id="race-par"' in opened and f": {par}," in opened


def test_a_race_on_another_deal_shows_par_at_its_finish(ann: TestClient) -> None:
    code = GameCode.parse("TP1-E-AAAAAAB")
    line = winning_line(Game(code))
    assert line is not None
    url = ann.post("/races", data={"code": code.text()}, follow_redirects=False).headers["location"]
    race_id = url.rsplit("/", 1)[1]
    ann.post(f"/races/{race_id}/start", follow_redirects=False)
    wait_until_running(ann, race_id)
    race = ann.app.state.store.race(race_id)  # type: ignore[attr-defined]
    assert 'id="race-par"' not in ann.get(url).text  # under way: no par
    play(ann, race.racers[0].game_id, line)
    assert 'id="race-par"' in ann.get(url).text
