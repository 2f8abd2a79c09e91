"""Race streams at scale (issue 40, round 2): what every watcher sees is made once a change,
not once a stream; the presence marks of many racers are one write; a stream that ends gives
back what it held; the bound follows the open-file limit."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from starlette.requests import Request

from app.i18n import get_locale, use_locale
from app.store import MemoryStore
from app.store.races import COUNTDOWN_S, GONE_AFTER_S, RacerStatus
from app.web.main import create_app
from app.web.race_events import Presence
from app.web.race_stream import FILES_SPARE, bound_by_open_files
from app.web.routes.race_live import race_stream
from app.web.settings import Settings
from tests.support.deals import won_deal
from tests.support.servers import live_server
from tests.support.store import run

QUIET = {"TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_ACCESS_LOG": "false"}


def spectator_stream(app: Any, race_id: str, number: int, language: str) -> AsyncGenerator[bytes, None]:
    """The stream a spectator's page opens, as the route makes it (its request as the
    middlewares leave it: a player of its own, a language)."""
    scope = {
        "type": "http", "app": app, "method": "GET", "scheme": "http", "root_path": "",
        "path": f"/races/{race_id}/events", "query_string": b"view=watch", "server": ("test", 80),
        "headers": [(b"host", b"test")], "path_params": {"race_id": race_id},
        "state": {"player": f"spectator-{number:04d}", "locale": get_locale(language)},
    }  # fmt: skip
    request = Request(scope)
    state = app.state
    listener = state.race_signals.listen(race_id)
    give_back = state.race_streams.take(f"spectator-{number:04d}", f"10.0.{number // 200}.{number % 200}")
    return race_stream(request, state.store, state.pages, listener, race_id, f"spectator-{number:04d}",
                       "watch", "", give_back)  # fmt: skip


def test_spectators_of_one_race_share_one_rendering_a_change(tmp_path: Path) -> None:
    """200 spectators of one race (two languages): each change is rendered and encoded once per
    language, and the very same bytes go to every spectator of that language, never a render
    per stream (2,000 spectators took 1.9 s at the median to see a move when each rendered its
    own); a move reaches them all, in their language."""
    store = MemoryStore()
    code, line = won_deal()
    settings = Settings(secret_key="test-secret-" + "x" * 20, database_url="memory://", data_dir=tmp_path,
                        rate_limits=False)  # fmt: skip
    with TestClient(create_app(settings, store=store)) as client:
        maker = client.post("/api/races", json={"code": code.text()}).json()
        race_id = maker["id"]
        game_id = client.post(f"/api/races/{race_id}/join").json()["game_id"]
        store.start_race(race_id, store.race(race_id).maker, time.time() - COUNTDOWN_S)  # type: ignore[union-attr]
        app = client.app

        async def watch() -> tuple[list[bytes], list[bytes], int]:
            streams = [(spectator_stream(app, race_id, n, "en" if n % 2 else "uk"), n % 2) for n in range(200)]

            async def next_of(stream: AsyncGenerator[bytes, None], english: int) -> bytes:
                with use_locale(get_locale("en" if english else "uk")):
                    return await stream.__anext__()

            for stream, english in streams:
                assert (await next_of(stream, english)).startswith(b": race")
            first = [await next_of(s, e) for s, e in streams]
            signals = app.state.race_signals
            await asyncio.to_thread(client.post, f"/api/games/{game_id}/remove", json={"position": line[0]})
            await signals.publish(race_id)
            after = [await next_of(s, e) for s, e in streams]
            open_now = app.state.race_streams.open
            for stream, _ in streams:
                await stream.aclose()
            return first, after, open_now - app.state.race_streams.open

        first, after, given_back = client.portal.call(watch)  # type: ignore[union-attr]
    for events in (first, after):
        assert len({id(event) for event in events}) == 2  # one object per language, shared
        english, ukrainian = events[1], events[0]
        assert all(e is english for e in events[1::2]) and all(e is ukrainian for e in events[::2])
        assert english != ukrainian and english.startswith(b"data: ") and b"\nid: " in english
    assert first[1] != after[1]  # the move changed what they see
    assert given_back == 200  # each stream closed gave its slot back


def test_presence_marks_every_connected_racer_in_one_write() -> None:
    """The server's presence marks: every racer with a stream open here is seen in one write
    per round (not one write a stream: at 10,000 streams those fell a minute behind and every
    racer counted as gone), so a racer whose page stays open is never gone; one whose page
    closed is gone after the grace."""
    store = MemoryStore()
    code, _ = won_deal()
    presence = Presence(store, every=15.0)
    started = time.time() - COUNTDOWN_S - GONE_AFTER_S - 5
    races = []
    for number in range(20):
        race = store.create_race(code, f"maker-{number:02d}")
        store.join_race(race.id, f"rival-{number:02d}", started)
        store.start_race(race.id, f"maker-{number:02d}", started)
        store.see_racers({race.id: [f"maker-{number:02d}", f"rival-{number:02d}"]}, started + COUNTDOWN_S)
        presence.here(race.id, f"maker-{number:02d}")
        presence.here(race.id, f"rival-{number:02d}")
        presence.here(race.id, f"rival-{number:02d}")  # a second tab
        races.append(race.id)
    for race_id in races:
        presence.gone(race_id, f"rival-{race_id[-2:]}")  # one tab of each rival closes: still here
    presence.gone(races[0], "rival-00")
    presence.gone(races[0], "rival-00")  # its last: not marked any more
    run(presence.mark())
    assert presence.writes == 1
    now = time.time()
    for number, race_id in enumerate(races):
        seen = store.race(race_id)
        assert seen is not None
        assert seen.racer(f"maker-{number:02d}").status(now) is RacerStatus.PLAYING  # type: ignore[union-attr]
        rival = seen.racer(f"rival-{number:02d}").status(now)  # type: ignore[union-attr]
        assert rival is (RacerStatus.GONE if number == 0 else RacerStatus.PLAYING)
    assert races[0] in presence.connected() and presence.connected()[races[0]] == ["maker-00"]


def open_raw(port: int, path: str, cookie: str) -> tuple[socket.socket, bytes]:
    """A stream on a socket of its own: the answer's head and its first bytes."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\nCookie: tp_player={cookie}\r\n\r\n".encode())
    got = b""
    while b"\r\n\r\n" not in got or (got.startswith(b"HTTP/1.1 200") and b"race-start" not in got):
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    return sock, got


def test_a_stream_whose_client_goes_gives_back_its_slot(tmp_path: Path) -> None:
    """Over real HTTP: a player at their bound (3 streams) closes them; the server notices each
    client gone at once (not at the next keep-alive, 7 to 15 s later) and gives the slots back."""
    data = tmp_path / "data"
    data.mkdir()
    with live_server(data, {**QUIET, "TRIPEAKS_RACE_STREAMS_PER_PLAYER": "3"}) as server:
        port = int(server.url.rsplit(":", 1)[1])
        with httpx.Client(base_url=server.url, timeout=10) as client:
            race_id = client.post("/api/races", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
            cookie = client.cookies["tp_player"]
        path = f"/races/{race_id}/events?view=lobby"
        for _ in range(3):
            held = [open_raw(port, path, cookie) for _ in range(3)]
            assert all(got.startswith(b"HTTP/1.1 200") and b"race-start" in got for _, got in held)
            beyond, refused = open_raw(port, path, cookie)
            assert refused.startswith(b"HTTP/1.1 429"), refused[:200]  # at the bound
            beyond.close()
            for sock, _ in held:
                sock.close()
            deadline = time.monotonic() + 3
            while True:
                probe, answer = open_raw(port, path, cookie)
                probe.close()
                if answer.startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert answer.startswith(b"HTTP/1.1 200"), "the closed streams' slots were not given back"
            time.sleep(0.2)  # the probe's own slot, back too


def test_the_bound_on_streams_follows_the_open_file_limit() -> None:
    """Each stream is an open file: a bound above what the limit allows is lowered to it (a clear
    503 past it, rather than a server that cannot accept a connection to say so)."""
    assert bound_by_open_files(10_000, 65_536) == 10_000
    assert bound_by_open_files(10_000, 1024) == 1024 - FILES_SPARE
    assert bound_by_open_files(300, 1024) == 300
    assert bound_by_open_files(10_000, 100) == 1
    assert bound_by_open_files(5) == 5  # this process's own limit, raised to its hard one
