"""The race's event stream over real HTTP (uvicorn on SQLite): a rival's move reaches the
other racer's stream within a second; never a card in it; reconnects; the bounds."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.races import Stream, deal_cards, names_no_card
from tests.servers import LiveServer, live_server
from tests.support import won_deal

QUIET = {"TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_ACCESS_LOG": "false"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    data = tmp_path / "data"
    data.mkdir()
    with live_server(data, {**QUIET, "TRIPEAKS_RACE_STREAMS_PER_PLAYER": "3"}) as running:
        yield running


def racer(server: LiveServer) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=10)
    client.get("/healthz")
    return client


def play(client: httpx.Client, game_id: str, action: int) -> httpx.Response:
    if action < 0:
        return client.post(f"/api/games/{game_id}/draw")
    return client.post(f"/api/games/{game_id}/remove", json={"position": action})


def test_a_rivals_move_reaches_the_stream_and_no_card_ever_does(server: LiveServer) -> None:
    code, line = won_deal()
    maker, rival = racer(server), racer(server)
    race = maker.post("/api/races", json={"code": code.text()}).json()
    race_id = race["id"]
    mine = maker.post(f"/api/races/{race_id}/join").json()["game_id"]
    theirs = rival.post(f"/api/races/{race_id}/join").json()["game_id"]

    stream = Stream(rival, f"/races/{race_id}/events?view=lobby").open()
    assert stream.status == 200 and stream.response_headers is not None
    assert stream.response_headers["content-type"].startswith("text/event-stream")
    assert stream.response_headers["x-accel-buffering"] == "no"
    first = stream.next()
    assert "Player 1" in first.data and "Player 2" in first.data and first.id

    assert maker.post(f"/api/races/{race_id}/start").status_code == 200
    counted = [stream.until(re.compile(r'id="race-countdown"[^>]*>\d')).data for _ in range(1)]
    dealt = stream.until("race-reload")  # the lobby page is told to load the board
    assert f"/races/{race_id}/page" in dealt.data and "race-strip" in dealt.data

    delays = []
    for action in line[:12]:
        moved = play(maker, mine, action)
        assert moved.status_code == 200, moved.text
        left = moved.json()["tableau"]
        cards_left = sum(1 for slot in left if not slot["removed"])
        answered = time.monotonic()
        event = stream.until(re.compile(rf'racer-cards">{cards_left}</b>.*?racer-score">{moved.json()["score"]}<', re.S))
        delays.append(event.at - answered)
    assert max(delays) < 1.0, delays

    for action in line:
        assert play(rival, theirs, action).status_code == 200
    won = stream.until("racer-won")
    assert "1." in won.data
    stream.close()

    everything = "\n".join(stream.raw) + "".join(counted)
    assert names_no_card(everything, race_id, deal_cards(code.text())) == []
    assert "race-news" in everything  # the rivals' progress, announced politely

    # A reconnect with the last id gets nothing until something changes; one without, everything.
    again = Stream(rival, f"/races/{race_id}/events?view=board-1", headers={"Last-Event-ID": won.id or ""}).open()
    fresh = Stream(maker, f"/races/{race_id}/events?view=board-1").open()
    assert "race-strip" in fresh.next().data
    play(maker, mine, -1)
    assert "race-strip" in again.next().data
    again.close()
    fresh.close()


def test_bounds_and_hostile_ids(server: LiveServer) -> None:
    maker = racer(server)
    race_id = maker.post("/api/races", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
    for bad in ("nosuchrace00", "short", "x" * 3000, "bad%00race000", "%F0%9F%83%8Fabcdefghij"):
        assert maker.get(f"/races/{bad}/events").status_code == 404
        assert maker.get(f"/race/{bad}").status_code == 404
    streams = [Stream(maker, f"/races/{race_id}/events").open() for _ in range(3)]
    assert all(s.status == 200 for s in streams)
    fourth = Stream(maker, f"/races/{race_id}/events").open()
    assert fourth.status == 429
    for s in streams:
        s.close()
    assert maker.get("/healthz").status_code == 200
