"""A race through real proxies (issue 40): Caddy and nginx, run on this machine from the
repository's own configurations (deploy/Caddyfile, deploy/nginx.conf), each in front of the same
two game servers on one PostgreSQL, with HTTPS and HTTP/2 to a real browser.

* Many tabs: two racers and, for each proxy, one browser holding seven of the race's pages open
  at once (more than the six connections a browser keeps to one site over HTTP/1.1). Every
  response comes over HTTP/2, every page loads, and every move reaches every page.
* The streams come back: after ``caddy reload`` and ``nginx -s reload``, and after a server is
  stopped with SIGTERM, every page's stream reconnects within a few seconds (to the other
  server) and no page misses a move.
* A reconnecting stream with ``Last-Event-ID`` gets the current state at once when it changed
  meanwhile, and nothing until the next change when it did not, through each proxy.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from app.engine import DRAW, Game
from tests.support.deals import won_deal
from tests.support.proxies import Proxy, start_caddy, start_nginx
from tests.support.races import Stream
from tests.support.servers import TRIPEAKS_SERVE, LiveServer, start_server
from tests.support.store import fresh_schema

pytestmark = [pytest.mark.postgres, pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(600)]

SERVER_ENV = {
    "TRIPEAKS_TRUST_PROXY": "true",  # the scheme (Secure cookies) and address the proxy saw
    "TRIPEAKS_FORWARDED_ALLOW_IPS": "127.0.0.1",
    "TRIPEAKS_RATE_LIMITS": "false",  # every tab comes from 127.0.0.1; the limits are tested elsewhere
    "TRIPEAKS_RACE_STREAMS_PER_PLAYER": "8",  # one browser of one player holds seven race pages
}
SERVE = TRIPEAKS_SERVE
"""``tripeaks serve``, as a self-hoster runs it (its log has a line for each stream that ended)."""
FAN_TABS = 7
"""Race pages one browser holds open through one proxy: more than HTTP/1.1's six connections."""
BACK_WITHIN_S = 10.0
"""A stream cut by a reload or a stopping server is back within this long (nginx lets its old
worker go on for 5 s, then the page waits its 2 s ``retry``)."""


@dataclass
class Servers:
    """Two game servers on one PostgreSQL schema; one stopped by a test is started again."""

    folder: Path
    env: dict[str, str]
    running: list[LiveServer] = field(default_factory=list)

    def upstreams(self) -> list[str]:
        return [server.url.removeprefix("http://") for server in self.running]

    def start(self, index: int, port: int | None = None) -> LiveServer:
        folder = self.folder / f"server-{index}"
        folder.mkdir(exist_ok=True)
        return start_server(folder, self.env, port=port, command=SERVE)

    def ensure_running(self) -> None:
        for index, server in enumerate(self.running):
            if server.process.poll() is not None:
                self.running[index] = self.start(index, int(server.url.rsplit(":", 1)[1]))


@pytest.fixture(scope="module")
def servers(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    with fresh_schema(postgres_url) as database:
        made = Servers(tmp_path_factory.mktemp("proxied"), {**SERVER_ENV, "TRIPEAKS_DATABASE_URL": database})
        try:
            made.running = [made.start(0), made.start(1)]
            yield made
        finally:
            for server in made.running:
                server.stop()


@pytest.fixture(scope="module")
def proxies(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Proxy]]:
    folder = tmp_path_factory.mktemp("proxies")
    started: dict[str, Proxy] = {}
    try:
        started["caddy"] = start_caddy(folder / "caddy", servers.upstreams())
        started["nginx"] = start_nginx(folder / "nginx", servers.upstreams())
        yield started
    finally:
        for proxy in started.values():
            proxy.stop()


@pytest.fixture
def running(servers: Servers, proxies: dict[str, Proxy]) -> Servers:
    """Both servers up (a test before may have stopped one) and both proxies."""
    servers.ensure_running()
    for proxy in proxies.values():
        assert proxy.process.poll() is None, proxy.output()
    return servers


# -- the race in the browser -------------------------------------------------------------------


@dataclass
class Tab:
    """A page and what its network did, as Chromium's DevTools protocol saw it."""

    page: Page
    proxy: str
    protocols: list[tuple[str, str]] = field(default_factory=list)
    """(URL, protocol) of every response."""
    streams: list[float] = field(default_factory=list)
    """When each of its race streams answered (a reconnect adds one)."""
    holding: dict[str, str] = field(default_factory=dict)
    """Its race streams answered and not yet ended: DevTools' request id, and the document's
    (a page left for another ends its streams without DevTools saying so)."""
    document: str = ""
    """The loader id of the page's current document."""

    def streams_held(self) -> int:
        return sum(1 for document in self.holding.values() if document == self.document)
    tries: list[tuple[float, str]] = field(default_factory=list)
    """When each of its asks for a race stream was sent, answered, ended or failed (said when a
    stream is late)."""

    def history(self, since: float) -> str:
        return f"{self.proxy}: " + ", ".join(f"{at - since:+.1f} s {how}" for at, how in self.tries if at > since - 20)


@dataclass
class Racer:
    tab: Tab
    name: str
    game: Game
    line: tuple[int, ...]
    done: int = 0


@dataclass
class Race:
    url: str
    racers: list[Racer]
    tabs: list[Tab]
    contexts: list[BrowserContext]

    def move(self, racer: Racer, within: float = 10.0) -> float:
        """The racer's next move, made on their page by a click; returns how long it took to
        show on every page (their rival's, and every fan's: counts only), at most ``within``."""
        action = racer.line[racer.done]
        page = racer.tab.page
        aim = "#stock" if action == DRAW else f'#table [data-position="{action}"]'
        page.click(aim)
        racer.done += 1
        racer.game.replay([action])
        made_it = page.locator("#moves").filter(has_text=re.compile(f"^{racer.done}$"))
        for _ in range(3):  # a server stopping: its proxy may answer 502 (the page says so), as a player would
            expect(made_it.or_(page.locator("#offline-note:not([hidden])")).first).to_be_visible()
            if made_it.is_visible():
                break
            expect(page.locator("#offline-note")).to_have_text(page.locator("#offline-note").get_attribute("data-server") or "")
            expect(page.locator("#table")).to_be_visible()  # the board stays: nothing of the proxy's is swapped in
            page.wait_for_timeout(500)
            page.click(aim)
        expect(page.locator("#moves")).to_have_text(str(racer.done))
        made = time.monotonic()
        for tab in self.tabs:
            row = tab.page.locator("#race-strip .racer", has=tab.page.locator(".racer-name", has_text=racer.name))
            left = max(0.5, within - (time.monotonic() - made))
            try:
                expect(row.locator(".racer-cards")).to_have_text(str(racer.game.cards_left()), timeout=left * 1000)
                expect(row.locator(".racer-score")).to_have_text(str(racer.game.score), timeout=2000)
                expect(row.locator(".racer-stock")).to_have_text(str(racer.game.stock_count), timeout=2000)
            except AssertionError as missed:
                raise AssertionError(f"{racer.name}'s move {racer.done} not seen on a {tab.proxy} page") from missed
        return time.monotonic() - made

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def watched(context: BrowserContext, proxy: str) -> Tab:
    """A new page whose responses are recorded (before it loads anything)."""
    page = context.new_page()
    tab = Tab(page, proxy)
    session = context.new_cdp_session(page)
    session.send("Network.enable")

    asked: set[str] = set()
    documents: dict[str, str] = {}

    def sent(event: dict[str, Any]) -> None:
        if event.get("type") == "Document":
            tab.document = event["loaderId"]
        if "/events" in event["request"]["url"]:
            documents[event["requestId"]] = event["loaderId"]
            asked.add(event["requestId"])
            tab.tries.append((time.monotonic(), f"asked {event['requestId']}"))

    def seen(event: dict[str, Any]) -> None:
        response = event["response"]
        tab.protocols.append((response["url"], response.get("protocol", "")))
        if event["requestId"] in asked:
            tab.tries.append((time.monotonic(), f"{response['status']} {event['requestId']}"))
            if response["status"] == 200:
                tab.streams.append(time.monotonic())
                tab.holding[event["requestId"]] = documents[event["requestId"]]

    def ended(event: dict[str, Any]) -> None:
        if event["requestId"] in asked:
            tab.tries.append((time.monotonic(), f"{event.get('errorText', 'ended')} {event['requestId']}"))
            tab.holding.pop(event["requestId"], None)

    session.on("Network.requestWillBeSent", sent)
    session.on("Network.responseReceived", seen)
    session.on("Network.loadingFinished", ended)
    session.on("Network.loadingFailed", ended)
    return tab


def new_context(browser: Browser, proxy: Proxy) -> BrowserContext:
    # Caddy's local CA (and nginx's self-signed certificate) are not in the browser's store.
    context = browser.new_context(base_url=proxy.url, ignore_https_errors=True, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(20_000)
    return context


def open_race(browser: Browser, proxies: dict[str, Proxy]) -> Race:
    """Player 1 through Caddy, Player 2 through nginx; then, through each proxy, one browser
    opens seven pages of the race. All of them stay open."""
    code, line = won_deal()
    contexts: list[BrowserContext] = []
    tabs: list[Tab] = []
    racers: list[Racer] = []
    url = ""
    for seat, name in enumerate(("caddy", "nginx"), start=1):
        context = new_context(browser, proxies[name])
        contexts.append(context)
        tab = watched(context, name)
        tab.page.goto("/how-to-play")  # read: the offer to read it stays away
        if seat == 1:
            made = tab.page.request.post("/races", form={"code": code.text()}, max_redirects=0)
            assert made.status == 303, made.status
            url = made.headers["location"]
        tab.page.goto(url)
        if seat > 1:
            tab.page.click("#race-join")
        tabs.append(tab)
        racers.append(Racer(tab, f"Player {seat}", Game(code), line))
    expect(racers[0].tab.page.locator("#race-lobby-list li")).to_have_count(2)
    racers[0].tab.page.click("#race-start")
    for racer in racers:
        expect(racer.tab.page.locator("#table")).to_be_visible(timeout=15_000)
    for name, proxy in proxies.items():
        context = new_context(browser, proxy)
        contexts.append(context)
        first = watched(context, name)
        first.page.goto("/how-to-play")
        first.page.goto(url)
        tabs.append(first)
        for _ in range(FAN_TABS - 1):  # each loads while the earlier ones hold their streams
            tab = watched(context, name)
            tab.page.goto(url, timeout=15_000)
            tabs.append(tab)
    for tab in tabs:
        expect(tab.page.locator("#race-strip .racer")).to_have_count(2)
    tabs[0].page.wait_for_timeout(500)  # (a second stream, set up late, would be open by now)
    doubled = [tab.history(0) for tab in tabs if tab.streams_held() != 1]
    assert not doubled, f"a page holds one race stream: {doubled}"
    return Race(url, racers, tabs, contexts)


def back(race: Race, since: float, which: Callable[[Tab], bool], within: float = BACK_WITHIN_S) -> list[float]:
    """Waits until the stream of every page ``which`` picks has answered again after ``since``
    (a reconnect); returns how long each took."""
    deadline = since + within
    while True:
        race.tabs[0].page.wait_for_timeout(100)  # lets Playwright deliver the pages' network events
        late = [tab for tab in race.tabs if which(tab) and not any(at > since for at in tab.streams)]
        if not late:
            return [min(at for at in tab.streams if at > since) - since for tab in race.tabs if which(tab)]
        assert time.monotonic() < deadline, f"{len(late)} {late[0].proxy} pages' streams not back in {within} s"


def reconnected(race: Race, since: float) -> int:
    """How many pages' streams answered again after ``since``."""
    race.tabs[0].page.wait_for_timeout(100)
    return sum(1 for tab in race.tabs if any(at > since for at in tab.streams))


def ended_streams(server: LiveServer) -> int:
    """Streams a stopping server ended (its log says how many; a stream's own line is written
    when it opens, its body then running outside the middlewares)."""
    said = re.findall(r"race streams: the server is stopping, (\d+) streams end", server.log.read_text(errors="replace"))
    return sum(int(count) for count in said)


def test_a_race_in_sixteen_tabs_over_http2_through_caddy_and_nginx(browser: Browser, proxies: dict[str, Proxy],
                                                                   running: Servers) -> None:  # fmt: skip
    race = open_race(browser, proxies)
    try:
        delays = [race.move(racer) for _ in range(3) for racer in race.racers]
        assert max(delays) < 5, delays
        # A page loaded now, beside the sixteen streams (seven of them its own browser's): no stall.
        fan = race.tabs[-1].page
        began = time.monotonic()
        fan.reload()
        expect(fan.locator("#race-strip .racer")).to_have_count(2)
        assert time.monotonic() - began < 10
        race.move(race.racers[0])
        for tab in race.tabs:
            protocols = {protocol for _, protocol in tab.protocols}
            assert protocols == {"h2"}, (tab.proxy, [p for p in tab.protocols if p[1] != "h2"][:5])
            assert any("/events" in url for url, _ in tab.protocols)
    finally:
        race.close()


def test_streams_come_back_after_proxy_reloads_and_a_server_stopping(browser: Browser, proxies: dict[str, Proxy],
                                                                      running: Servers) -> None:  # fmt: skip
    race = open_race(browser, proxies)
    try:
        first, second = race.racers
        race.move(first)
        for proxy in proxies.values():
            reloaded = time.monotonic()
            proxy.reload()
            race.move(first, within=BACK_WITHIN_S)  # made while the streams are cut or coming back
            race.move(second, within=BACK_WITHIN_S)
            took = back(race, reloaded, lambda tab, name=proxy.name: tab.proxy == name)  # type: ignore[misc]
            print(f"{proxy.name} reload: its {len(took)} pages' streams back within {max(took):.1f} s")
            assert reconnected(race, reloaded) == len(took)  # the other proxy's pages kept theirs
            race.move(first)

        stopped = running.running[0]
        before = ended_streams(stopped)
        stopping = time.monotonic()
        stopped.process.terminate()  # SIGTERM: the server ends its streams before it stops
        race.move(second, within=BACK_WITHIN_S)
        race.move(first, within=BACK_WITHIN_S)
        stopped.process.wait(timeout=15)
        cut = ended_streams(stopped) - before
        assert cut > 0, "no stream was on the stopped server"
        deadline = stopping + BACK_WITHIN_S
        while reconnected(race, stopping) < cut:
            late = "; ".join(tab.history(stopping) for tab in race.tabs if not any(at > stopping for at in tab.streams))
            assert time.monotonic() < deadline, f"{reconnected(race, stopping)} of {cut} cut streams back; {late}"
        took = [min(at for at in tab.streams if at > stopping) - stopping for tab in race.tabs
                if any(at > stopping for at in tab.streams)]  # fmt: skip
        print(f"SIGTERM: {cut} streams cut, back (on the other server) within {max(took):.1f} s")
        assert len(took) == cut
        for _ in range(2):
            race.move(first)
            race.move(second)
    finally:
        race.close()


# -- Last-Event-ID, over plain HTTP through each proxy -------------------------------------------


def strip_shows(state: dict[str, Any]) -> re.Pattern[str]:
    cards_left = sum(1 for slot in state["tableau"] if not slot["removed"])
    return re.compile(rf'racer-cards">{cards_left}</b>.*?racer-score">{state["score"]}</b>', re.S)


def test_a_move_no_server_answers_leaves_the_board_and_says_so(browser: Browser, proxies: dict[str, Proxy],
                                                                running: Servers) -> None:  # fmt: skip
    """Both servers stopped: each proxy answers a draw with its own error (502), which the page
    does not swap in. The board stays as it was, the page says the server did not answer (in the
    page's language), and once a server is back the same tap plays."""
    code, _ = won_deal()
    pages = []
    for name, proxy in proxies.items():
        context = new_context(browser, proxy)
        page = context.new_page()
        page.goto("/how-to-play")  # read: the offer to read it stays away
        page.goto(f"/g/{code.text()}")
        expect(page.locator("#stock-count")).to_have_text("23")
        pages.append((name, page, context))
    for server in running.running:
        server.stop()
    try:
        for name, page, _ in pages:
            answers: list[int] = []
            page.on("response", lambda response, seen=answers: seen.append(response.status) if "/draw" in response.url else None)
            page.click("#stock")
            note = page.locator("#offline-note")
            expect(note).to_be_visible(timeout=15_000)  # Caddy tries the servers for 5 s first
            expect(note).to_have_text(note.get_attribute("data-server") or "")
            assert answers and answers[-1] >= 500, (name, answers)
            expect(page.locator("#stock-count")).to_have_text("23")  # the board as it was, nothing swapped in
            expect(page.locator("#table")).not_to_contain_text("Bad Gateway")
    finally:
        running.ensure_running()
    for name, page, context in pages:  # as the player does: tap again until it plays
        deadline = time.monotonic() + BACK_WITHIN_S + 10  # (Caddy keeps a failed server out for 10 s)
        while True:
            with page.expect_response(lambda response: "/draw" in response.url, timeout=15_000) as answer:
                page.click("#stock")
            if answer.value.status == 200:
                break
            assert time.monotonic() < deadline, f"{name}: the draw still answered {answer.value.status}"
            page.wait_for_timeout(1000)
        expect(page.locator("#stock-count")).to_have_text("22")
        expect(page.locator("#offline-note")).to_be_hidden()
        context.close()


@pytest.mark.parametrize("name", ["caddy", "nginx"])
def test_a_reconnect_with_last_event_id_gets_the_current_state_at_once(name: str, proxies: dict[str, Proxy],
                                                                      running: Servers) -> None:  # fmt: skip
    code, line = won_deal()
    client: Callable[[], httpx.Client] = lambda: httpx.Client(base_url=proxies[name].url, verify=False, timeout=10)  # noqa: E731
    maker, rival = client(), client()
    race_id = maker.post("/api/races", json={"code": code.text()}).json()["id"]
    mine = maker.post(f"/api/races/{race_id}/join").json()["game_id"]
    rival.post(f"/api/races/{race_id}/join")
    assert maker.post(f"/api/races/{race_id}/start").status_code == 200
    url = f"/races/{race_id}/events?view=board-1"
    stream = Stream(rival, url).open()
    assert stream.response_headers is not None
    assert stream.response_headers["content-type"].startswith("text/event-stream")
    assert "content-encoding" not in stream.response_headers  # never compressed
    seen = stream.until("race-strip", timeout=15)
    stream.close()

    def move(action: int) -> dict[str, Any]:
        path = f"/api/games/{mine}/draw" if action == DRAW else f"/api/games/{mine}/remove"
        answer = maker.post(path, json=None if action == DRAW else {"position": action})
        assert answer.status_code == 200, answer.text
        state: dict[str, Any] = answer.json()
        return state

    state = first_state = move(line[0])  # while the rival's page was away
    began = time.monotonic()
    again = Stream(rival, url, headers={"Last-Event-ID": seen.id or ""}).open()
    current = again.next(timeout=10)
    assert strip_shows(state).search(current.data), "the reconnect did not get the current state"
    assert current.at - began < 3  # at once, not at the next change
    assert current.id != seen.id
    again.close()

    # Nothing changed since its last event: what it gets before the next change is that same
    # state (with the rivals' news, maybe), never an older one; then the change.
    quiet = Stream(rival, url, headers={"Last-Event-ID": current.id or ""}).open()
    state = move(line[1])
    while True:
        event = quiet.next(timeout=10)
        if event.id == current.id:
            assert strip_shows(first_state).search(event.data)
            continue
        assert strip_shows(state).search(event.data)
        break
    quiet.close()
    maker.close()
    rival.close()


# -- idle connections between the proxy and the game ------------------------------------------


def server_closed_first(ports: set[int]) -> set[tuple[int, int]]:
    """The TCP connections in TIME_WAIT whose own end is one of ``ports`` (a game server's):
    those the server closed first (the side that closes first waits; /proc/net/tcp, IPv4)."""
    found = set()
    for row in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = row.split()
        local, remote, state = fields[1], fields[2], fields[3]
        port = int(local.rsplit(":", 1)[1], 16)
        if state == "06" and port in ports:
            found.add((port, int(remote.rsplit(":", 1)[1], 16)))
    return found


def test_a_proxys_idle_connections_to_the_game_are_never_closed_by_the_game(proxies: dict[str, Proxy],
                                                                           running: Servers) -> None:  # fmt: skip
    """A proxy keeps idle connections to the game for its next requests (nginx 60 s, Caddy 2 min
    unless told). The game kept them 5 s (uvicorn's own), so a move sent as one was closing was
    lost: a 502, which neither proxy sends again for a POST. Now ``tripeaks serve`` keeps them
    75 s and both files close theirs at 60 s: after a quiet 7 s, no game server has closed one."""
    ports = {int(server.url.rsplit(":", 1)[1]) for server in running.running}
    before = server_closed_first(ports)
    for proxy in proxies.values():
        with httpx.Client(base_url=proxy.url, verify=False, timeout=10) as client:
            for _ in range(4):
                assert client.get("/healthz").status_code == 200
                assert client.get("/how-to-play").status_code == 200
    time.sleep(7)  # past uvicorn's 5 s; Caddy's health checks (every 5 s) go on meanwhile
    assert server_closed_first(ports) - before == set()


# -- the Caddyfile as compose.yaml gives it ---------------------------------------------------


def test_the_caddyfile_read_as_compose_gives_it_keeps_the_stream_out_of_encode(tmp_path: Path) -> None:
    """``caddy adapt`` on deploy/Caddyfile with compose.yaml's environment: the two servers, the
    stream's route flushed at once and never encoded, the rest compressed, HTTP/2 on, and the
    local CA never put in this machine's trust store."""
    import json
    import subprocess

    import yaml

    from tests.support.proxies import CADDYFILE, program

    compose = yaml.safe_load((CADDYFILE.parents[1] / "compose.yaml").read_text(encoding="utf-8"))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **compose["services"]["caddy"]["environment"]}
    env["TRIPEAKS_SITE"] = "localhost"
    done = subprocess.run([program("caddy"), "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
                          env=env, capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    config = json.loads(done.stdout)
    server = next(iter(config["apps"]["http"]["servers"].values()))
    assert "h2" in server["protocols"]
    routes = server["routes"][0]["handle"][0]["routes"]
    handlers = [r for r in routes if r.get("group")]
    stream = next(r for r in handlers if "path_regexp" in json.dumps(r.get("match", [])))
    rest = next(r for r in handlers if r is not stream)

    def used(route: dict[str, Any]) -> list[dict[str, Any]]:
        return [h for sub in route["handle"][0]["routes"] for h in sub["handle"]]

    assert [h["handler"] for h in used(stream)] == ["reverse_proxy"]  # no encode before it
    assert used(stream)[0]["flush_interval"] == -1
    assert [u["dial"] for u in used(stream)[0]["upstreams"]] == ["tripeaks-a:8000", "tripeaks-b:8000"]
    assert [h["handler"] for h in used(rest)] == ["encode", "reverse_proxy"]
    assert config["apps"]["pki"]["certificate_authorities"]["local"]["install_trust"] is False
