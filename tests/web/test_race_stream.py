"""The race's event stream over real HTTP (uvicorn on SQLite): a rival's move reaches the
other racer's stream within a second; never a card in it; reconnects; the bounds."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.web.race_events import event_bytes, with_news
from app.web.race_stream import ANNOUNCE_EVERY_S
from tests.support.deals import won_deal
from tests.support.races import Stream, deal_cards, names_no_card
from tests.support.servers import LiveServer, live_server
from tests.support.store import run

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
    told = [event.at for event in stream.seen if 'id="race-news"' in event.data]
    assert told, "no announcement"
    # ...at most every few seconds (ANNOUNCE_EVERY_S; the moves came many times a second):
    # a little slack for a busy machine delaying one event more than the next.
    assert all(later - earlier > ANNOUNCE_EVERY_S - 2 for earlier, later in itertools.pairwise(told)), told

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


BEHIND_A_PROXY = {**QUIET, "TRIPEAKS_TRUST_PROXY": "true", "TRIPEAKS_FORWARDED_ALLOW_IPS": "127.0.0.1"}


def from_address(n: int) -> dict[str, str]:
    """What the trusted proxy in front says of a client: its address (TEST-NET-3, 256 of them)."""
    return {"X-Forwarded-For": f"203.0.113.{n % 256}"}


def test_streams_are_bounded_per_address_whatever_cookies_they_carry(tmp_path: Path) -> None:
    """(One address opened 2,000 streams without a cookie in 2 s: each was a new player, so
    the per-player bound never bit, and every racer after got 503.) Behind a trusted proxy the
    address is the one it forwards."""
    import asyncio

    data = tmp_path / "data"
    data.mkdir()
    with live_server(data, {**BEHIND_A_PROXY, "TRIPEAKS_RACE_STREAMS_PER_ADDRESS": "5"}) as server:
        maker = racer(server)
        race_id = maker.post("/api/races", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
        url = f"{server.url}/races/{race_id}/events"

        async def streams() -> None:
            limits = httpx.Limits(max_keepalive_connections=0)
            async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(20, read=None)) as anyone:

                async def one(headers: dict[str, str]) -> httpx.Response:
                    anyone.cookies.clear()  # no cookie: a new player each
                    return await anyone.send(anyone.build_request("GET", url, headers=headers), stream=True)

                held = [await one(from_address(1)) for _ in range(6)]
                assert [a.status_code for a in held] == [200] * 5 + [429]
                elsewhere = await one(from_address(2))
                assert elsewhere.status_code == 200  # another address has its own
                proxy = await one({})
                assert proxy.status_code == 200  # and so has the proxy's own (no header)
                await held[0].aclose()  # its page is closed: the connection goes
                deadline = time.monotonic() + 30
                while (again := await one(from_address(1))).status_code != 200:
                    assert again.status_code == 429 and time.monotonic() < deadline
                    await again.aclose()
                    await asyncio.sleep(0.2)  # the server sees the closed stream go
                for answer in [*held, elsewhere, proxy, again]:
                    await answer.aclose()

        run(streams())


def test_a_thousand_idle_streams_against_the_bounds(tmp_path: Path) -> None:
    """A thousand streams opened and left idle, from 40 addresses (behind a trusted proxy):
    the server keeps its bound (503 beyond it, 429 beyond a player's), stays up for the racers,
    and gives slots back as streams close."""
    import asyncio

    data = tmp_path / "data"
    data.mkdir()
    env = {**BEHIND_A_PROXY, "TRIPEAKS_RACE_STREAMS_PER_SERVER": "300"}
    with live_server(data, env) as server:
        maker = racer(server)
        race_id = maker.post("/api/races", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
        url = f"{server.url}/races/{race_id}/events"

        async def flood() -> tuple[dict[int, int], int]:
            limits = httpx.Limits(max_connections=1100, max_keepalive_connections=0)
            opened: list[httpx.Response] = []
            statuses: dict[int, int] = {}
            count = itertools.count()
            async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(20, read=None)) as anyone:

                async def one() -> None:
                    request = anyone.build_request("GET", url, headers=from_address(next(count) % 40))
                    answer = await anyone.send(request, stream=True)  # no cookie: a new player each
                    statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
                    if answer.status_code == 200:
                        opened.append(answer)
                    else:
                        await answer.aclose()

                await asyncio.gather(*(one() for _ in range(1000)))
                # The server still serves the racers while a thousand clients hold or ask.
                async with httpx.AsyncClient(base_url=server.url, cookies=maker.cookies) as same:
                    assert (await same.get("/healthz")).status_code == 200
                    assert (await same.get(f"/api/races/{race_id}")).status_code == 200
                    mine = [await same.send(same.build_request("GET", url), stream=True) for _ in range(5)]
                    own = [m.status_code for m in mine]
                    for m in mine:
                        await m.aclose()
                for answer in opened[:50]:
                    await answer.aclose()
                await asyncio.sleep(1)
                again = await anyone.send(anyone.build_request("GET", url, headers=from_address(41)), stream=True)
                reopened = again.status_code
                await again.aclose()
                for answer in opened[50:]:
                    await answer.aclose()
            assert own.count(503) == 5  # the server's bound is full: a racer's page waits too
            return statuses, reopened

        statuses, reopened = run(flood())
        assert statuses.get(200) == 300 and statuses.get(503) == 700, statuses
        assert reopened == 200  # closed streams gave their slots back
        assert maker.get("/healthz").status_code == 200


def test_a_server_shutting_down_ends_its_streams(tmp_path: Path) -> None:
    """SIGTERM: every open stream ends at once (the browser reconnects, elsewhere if there is
    another server), and the server exits without waiting for them."""
    data = tmp_path / "data"
    data.mkdir()
    with live_server(data, QUIET) as server:
        maker = racer(server)
        race_id = maker.post("/api/races", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
        stream = Stream(maker, f"/races/{race_id}/events").open()
        assert "race-start" in stream.next().data
        assert any(line.startswith("retry:") for line in stream.raw)  # how soon to come back
        stopping = time.monotonic()
        server.process.terminate()
        with pytest.raises(EOFError):
            stream.next(timeout=10)
        server.process.wait(timeout=10)
        assert time.monotonic() - stopping < 8  # not the keep-alive's 15 s, nor forever


def test_an_idle_stream_gets_a_keep_alive_comment_every_15_seconds(server: LiveServer) -> None:
    """Nothing changes in the room: the stream still sends a comment line within ~15 s (what
    keeps a proxy from closing it), and is not buffered (X-Accel-Buffering: no)."""
    maker = racer(server)
    race_id = maker.post("/api/races", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
    stream = Stream(maker, f"/races/{race_id}/events?view=lobby").open()
    assert stream.response_headers is not None and stream.response_headers["x-accel-buffering"] == "no"
    assert "race-start" in stream.next().data
    opened = len(stream.raw)
    time.sleep(17)
    later = stream.raw[opened:]
    assert any(line.startswith(":") for line in later), later  # a comment: the keep-alive
    assert not any(line.startswith("data:") for line in later), later  # nothing else to say
    stream.close()


def test_news_goes_into_the_kept_event_after_its_live_part_and_before_its_id() -> None:
    """The live part is kept only as its event (RaceReads.fragment); the rivals' news is put in
    between its lines and its id, so a browser's EventSource reads one event with both."""
    event = event_bytes('<h2 id="race-title">Race</h2>\n<ol id="race-strip"></ol>', "abc123")
    told = with_news(event, '<p id="race-news">Player 2 won</p>')
    assert told == (b'data: <h2 id="race-title">Race</h2>\ndata: <ol id="race-strip"></ol>\n'
                    b'data: <p id="race-news">Player 2 won</p>\nid: abc123\n\n')
    assert event.endswith(b"id: abc123\n\n")  # the kept event itself is unchanged
