"""A race on the day's deal keeps the rule of no spoilers (app.web.presentation.daily.days.
answers_open): its finish shows par only to a player whose daily attempt has ended.

Races run on the wall clock (their countdown and time limit), so this test takes today's
deal as it is now; everything dated is read from the same clock."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.engine import DRAW, Game, GameCode
from app.engine.search.daily import daily_code
from app.store import MemoryStore
from app.store.races import RaceStatus
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.deals import winning_line
from tests.support.pages import HX, game_id_of

KEY = "daily-race-test-key"


@pytest.fixture(autouse=True)
def quick_countdown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.store.race_memory.COUNTDOWN_S", 0.2)


@pytest.fixture
def app(tmp_path):  # type: ignore[no-untyped-def]
    return create_app(Settings(secret_key=KEY, database_url="memory://", data_dir=tmp_path), store=MemoryStore())


@pytest.fixture
def ann(app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app) as client:
        yield client


@pytest.fixture
def bob(app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app) as client:
        yield client


def wait_until_running(client: TestClient, race_id: str) -> None:
    """The countdown over, by the store's own rule (a loaded machine may take longer than it)."""
    store: MemoryStore = client.app.state.store  # type: ignore[attr-defined]
    for _ in range(200):
        race = store.race(race_id)
        if race is not None and race.status(time.time()) is RaceStatus.RUNNING:
            return
        time.sleep(0.05)
    raise AssertionError(f"race {race_id} never ran")


def play(client: TestClient, game_id: str, line: list[int]) -> None:
    for position in line:
        path = "draw" if position == DRAW else "remove"
        body = {} if position == DRAW else {"position": position}
        assert client.post(f"/games/{game_id}/{path}", data=body, headers=HX).status_code == 200


def test_a_race_on_the_day_s_deal_shows_par_only_once_the_attempt_has_ended(ann: TestClient, bob: TestClient) -> None:
    today = dt.datetime.now(dt.UTC).date()
    code: GameCode = daily_code(KEY.encode(), today)
    line = winning_line(Game(code))
    assert line is not None
    attempt = game_id_of(ann.get(f"/daily/{today.isoformat()}").text)  # Ann's ranked attempt, under way

    url = ann.post("/races", data={"code": code.text()}, follow_redirects=False).headers["location"]
    race_id = url.rsplit("/", 1)[1]
    assert ann.post(f"/races/{race_id}/start", follow_redirects=False).status_code == 303
    wait_until_running(ann, race_id)
    store: MemoryStore = ann.app.state.store  # type: ignore[attr-defined]
    race = store.race(race_id)
    assert race is not None and race.code == code.text()
    play(ann, race.racers[0].game_id, line)  # Ann wins the race: it is finished

    finished = ann.get(url).text
    assert 'id="race-finish"' in finished
    assert 'id="race-par"' not in finished  # her daily attempt has not ended: no par
    watching = bob.get(url).text  # Bob has no attempt today: no par for him either
    assert 'id="race-finish"' in watching and 'id="race-par"' not in watching
    assert ann.get("/api/daily").json()["par"] is None

    play(ann, attempt, line)  # Ann's attempt ends
    par = ann.get("/api/daily").json()["par"]
    assert par is not None
    opened = ann.get(url).text
    assert 'id="race-par"' in opened and f": {par}," in opened
    assert 'id="race-par"' not in bob.get(url).text  # still hidden from Bob


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
