"""The chaos soak: one driver for ``tests/chaos`` and ``bench/chaos.py``.

Players play through the JSON API and through the htmx page routes, each in a thread of its
own, and log every action a server acknowledged (200, or the 303 of a plain form post). Meanwhile
the controller (the test, or the bench script) brings faults: a server SIGKILLed and restarted,
the data directory's disk filled and freed, the database server stopped and started. Each fault
opens an *outage* (which server, from when until ``/readyz`` is 200 again); a monitor polls
``/healthz`` and ``/readyz`` of every server all along.

An action whose answer never came (the server died under it) or was a 5xx is *pending*: once a
server answers again, the player reads its game and finds the action either stored or not (the
state is the one before or the one after it; anything else is a lost or doubled action). At the
end :meth:`Soak.verify` reads every game the players touched and compares it with a fresh
``Game`` that replayed the log (``mismatches`` of ``tests/store/test_servers.py``: every field
worked out as a client would, never by the server's serializer), and classifies every answer:

* no 5xx and no dropped connection outside the outages of that server;
* inside an outage of the store (disk, database): 5xx only as 503 with ``Retry-After``;
* ``/healthz`` 200 throughout, except while that server was dead;
* ``/readyz`` 503 in each outage of the store, 200 again within seconds of its end, and 503
  nowhere else;
* with racers: the race room shows each racer's game as its log says, and the race's live
  stream, held open on every server, ends only in an outage and always comes back;
* with a player of the day's deal (:class:`DailyPlayer`): its ranked attempt is as its game's
  log was when it ended, and a practice game asked for while it was under way was refused;
* with streams held at their bounds (:mod:`tests.support.soak_streams`): each bound kept (one
  more stream refused), the held streams ending only in outages; a move's answer time is
  reported meanwhile.

Servers are ``tests/support/servers.py``'s; the disk and the private PostgreSQL cluster are
``tests/support/faults.py``'s, as the fault tests' are.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import httpx

from app.engine import Game, GameCode
from tests.support import servers
from tests.support.faults import PrivatePostgres, fill
from tests.support.oracle import apply, mismatches
from tests.support.soak_players import (
    Action,
    ApiPlayer,
    DailyPlayer,
    PagePlayer,
    Player,
    RacerPlayer,
    StreamWatcher,
)
from tests.support.soak_streams import ENV as HELD_STREAMS_ENV
from tests.support.soak_streams import HeldStreams

MOVES: Final = ("remove", "draw", "undo")
READY_WITHIN: Final = 60.0
"""The longest wait for a server to say it is ready again (a loaded machine; measured, and
reported, it takes a second or two)."""


@dataclass
class Outage:
    kind: str
    """``kill``, ``disk`` or ``database``."""
    server: str | None
    """The server it hits (its URL), or ``None``: every server."""
    start: float
    end: float = math.inf
    """When ``/readyz`` said 200 again on the servers it hit."""
    fault_over: float = math.inf
    """When the fault itself ended (the server restarted, the disk freed, the database up)."""
    not_ready_seen: bool = False

    def covers(self, server: str, start: float, end: float) -> bool:
        return (self.server is None or self.server == server) and start <= self.end and end >= self.start

    @property
    def ready_after(self) -> float:
        """Seconds from the end of the fault to ``/readyz`` 200."""
        return self.end - self.fault_over


@dataclass(frozen=True)
class Answer:
    """An answer worth classifying: a 5xx, a dropped connection, a probe."""

    what: str
    server: str
    start: float
    end: float
    status: int | None
    """``None``: no answer (the connection failed)."""
    retry_after: bool = False


@dataclass
class Logged:
    code: str
    actions: list[Action] = field(default_factory=list)


@dataclass
class Figures:
    seconds: float = 0.0
    kills: int = 0
    disk_fulls: int = 0
    database_outages: int = 0
    acknowledged: int = 0
    stored_unanswered: int = 0
    """Actions whose answer never came (a kill) that the store had made durable."""
    not_stored_unanswered: int = 0
    """Actions answered 503, or whose answer never came, that the store did not keep."""
    games: int = 0
    lost: int = 0
    answers: Counter[str] = field(default_factory=Counter)
    five_xx_inside: int = 0
    five_xx_outside: int = 0
    ready_after: list[float] = field(default_factory=list)
    stream_messages: int = 0
    stream_ends: int = 0
    move_times: list[float] = field(default_factory=list)
    """How long each acknowledged move's answer took (s)."""
    held_refused: int = 0
    """Streams asked beyond a held bound and refused (429)."""
    daily_attempts: int = 0
    daily_refused: int = 0
    daily_practised: int = 0

    def lines(self) -> list[str]:
        slowest = max(self.ready_after, default=0.0)
        return [
            f"ran {self.seconds:.0f} s: {self.kills} SIGKILLs, {self.disk_fulls} full disks, "
            f"{self.database_outages} database outages",
            f"{self.acknowledged} acknowledged actions in {self.games} games; "
            f"{self.stored_unanswered} more stored whose answer a kill cut off, "
            f"{self.not_stored_unanswered} refused (503) or cut off and not stored; lost: {self.lost}",
            f"5xx: {self.five_xx_inside} inside outages (all 503 with Retry-After), "
            f"{self.five_xx_outside} outside",
            f"/readyz 200 again at most {slowest:.1f} s after a fault ended",
            "answers: " + ", ".join(f"{k} {v}" for k, v in sorted(self.answers.items())),
            *([f"race streams: {self.stream_messages} messages; ended {self.stream_ends} times "
               "(outages), each time back"] if self.stream_messages else []),
            *([f"streams held at their bounds: {self.held_refused} asked beyond them, refused (429)"]
              if self.held_refused else []),
            *([f"daily: {self.daily_attempts} attempts as their games' logs; {self.daily_refused} practice games "
               f"asked for while one was under way, refused; {self.daily_practised} practised after"]
              if self.daily_attempts else []),
            *([f"a move's answer: p50 {1000 * percentile(self.move_times, 0.5):.0f} ms, "
               f"p95 {1000 * percentile(self.move_times, 0.95):.0f} ms ({len(self.move_times)} moves)"]
              if self.move_times else []),
        ]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


class Soak:
    """Servers on one store, players, a monitor, and the faults."""

    def __init__(
        self,
        data_dir: Path,
        env: Mapping[str, str],
        *,
        server_count: int = 1,
        api_players: int = 3,
        page_players: int = 3,
        racers: int = 0,
        daily_players: int = 0,
        held_streams: bool = False,
        seed: int = 0,
        say: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.data_dir = data_dir
        self.env = {"TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_IDLE_DAYS": "0",
                    **(HELD_STREAMS_ENV if held_streams else {}), **env}
        self.say = say
        self.servers = [servers.start_server(data_dir, self.env) for _ in range(server_count)]
        self.urls = [s.url for s in self.servers]
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.outages: list[Outage] = []
        self.answers: list[Answer] = []
        self.problems: list[str] = []
        self.log: dict[str, Logged] = {}
        self.figures = Figures()
        self.started = time.monotonic()
        self.races: dict[str, list[str]] = {}
        """Each race room's racers' games."""
        self.players: list[Player] = [ApiPlayer(self, i, seed) for i in range(api_players)]
        self.players += [PagePlayer(self, api_players + i, seed) for i in range(page_players)]
        self.players += [DailyPlayer(self, len(self.players) + i, seed) for i in range(daily_players)]
        self.watchers: list[StreamWatcher] = []
        if racers:
            racing = self.race([RacerPlayer(self, len(self.players) + i, seed) for i in range(racers)])
            self.players += racing
            self.watchers = [
                StreamWatcher(self, url, f"{url}/races/{racing[0].race_id}/events", cookies=racing[i % racers].client.cookies)
                for i, url in enumerate(self.urls)
            ]
        self.threads = [threading.Thread(target=p.run, daemon=True) for p in self.players]
        self.threads.append(threading.Thread(target=self.monitor, daemon=True))
        self.streams = [threading.Thread(target=w.run, daemon=True) for w in self.watchers]
        self.held = [HeldStreams(self, i) for i in range(server_count)] if held_streams else []
        for held in self.held:
            self.streams += held.threads()
        for thread in [*self.threads, *self.streams]:
            thread.start()

    def race(self, racers: list[RacerPlayer]) -> list[RacerPlayer]:
        """A race room for ``racers``: made by the first, joined by each (on the servers in turn),
        started; they play once its countdown is over."""
        maker = racers[0]
        code = maker.random_code()
        made = maker.client.post(f"{self.urls[0]}/api/races", json={"code": code})
        assert made.status_code == 201, made.text
        race_id = made.json()["id"]
        for index, racer in enumerate(racers):
            joined = racer.client.post(f"{self.urls[index % len(self.urls)]}/api/races/{race_id}/join")
            assert joined.status_code == 200, joined.text
            racer.enter(race_id, joined.json()["game_id"], code)
        started = maker.client.post(f"{self.urls[-1]}/api/races/{race_id}/start")
        assert started.status_code == 200, started.text
        self.races[race_id] = [racer.game_id for racer in racers]
        return racers

    # -- bookkeeping (any thread) ---------------------------------------------------------------

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)

    def request(self, client: httpx.Client, server: str, method: str, path: str, what: str,
                **options: Any) -> httpx.Response | None:
        """Send one request; remember a 5xx or a dropped connection, to be classified."""
        start = time.monotonic()
        try:
            response = client.request(method, server + path, **options)
        except httpx.TransportError:
            with self.lock:
                self.figures.answers["no answer"] += 1
                self.answers.append(Answer(what, server, start, time.monotonic(), None))
            return None
        end = time.monotonic()
        with self.lock:
            self.figures.answers[str(response.status_code)] += 1
            if what in MOVES and response.status_code in (200, 303):
                self.figures.move_times.append(end - start)
            if response.status_code >= 500:
                retry = int(response.headers.get("retry-after", "0") or 0) > 0
                self.answers.append(Answer(what, server, start, end, response.status_code, retry))
        return response

    def stream_ended(self, server: str, start: float, status: int | None) -> None:
        """A race's stream ended, or could not be opened (``status``: its answer, if any)."""
        with self.lock:
            self.figures.answers["stream ended"] += 1
            self.answers.append(Answer("stream", server, start, time.monotonic(), status))

    def acknowledged(self, game_id: str, action: Action, *, answered: bool = True) -> None:
        with self.lock:
            self.log[game_id].actions.append(action)
            if answered:
                self.figures.acknowledged += 1
            else:
                self.figures.stored_unanswered += 1

    def new_game(self, game_id: str, code: str) -> None:
        with self.lock:
            self.log[game_id] = Logged(code)

    def outage_of(self, server: str, start: float, end: float) -> Outage | None:
        with self.lock:
            return next((o for o in self.outages if o.covers(server, start, end)), None)

    # -- the monitor ------------------------------------------------------------------------------

    def monitor(self) -> None:
        """``/healthz`` and ``/readyz`` of every server, all along."""
        with httpx.Client(timeout=10) as client:
            while not self.stopping.is_set():
                for server in list(self.urls):
                    for path in ("/healthz", "/readyz"):
                        start = time.monotonic()
                        try:
                            status: int | None = client.get(server + path).status_code
                        except httpx.TransportError:
                            status = None
                        answer = Answer(path, server, start, time.monotonic(), status)
                        with self.lock:
                            self.answers.append(answer)
                            if path == "/readyz" and status == 503:
                                for outage in self.outages:
                                    if outage.covers(server, start, answer.end) and outage.kind != "kill":
                                        outage.not_ready_seen = True
                self.stopping.wait(0.25)  # a monitor's polling interval

    # -- faults (the controller's thread) ---------------------------------------------------------

    def play(self, seconds: float) -> None:
        """Let the players play (the controller waits)."""
        self.stopping.wait(seconds)

    def play_for(self, actions: int, most_s: float = 120.0) -> None:
        """Let the players play until they made ``actions`` more acknowledged actions (a test
        asks for work done, not time spent, whatever the machine's load)."""
        goal = self.figures.acknowledged + actions
        deadline = time.monotonic() + most_s
        while self.figures.acknowledged < goal:
            if time.monotonic() > deadline:
                self.problem(f"the players made fewer than {actions} actions in {most_s:.0f} s")
                return
            self.stopping.wait(0.05)  # polls the players' count

    def race_running(self, most_s: float = 60.0) -> None:
        """Wait until every racer saw its race run (the 3-2-1 countdown is over)."""
        racers = [p for p in self.players if isinstance(p, RacerPlayer)]
        deadline = time.monotonic() + most_s
        while not all(r.running for r in racers):
            if time.monotonic() > deadline:
                self.problem(f"the race did not run within {most_s:.0f} s")
                return
            self.stopping.wait(0.05)  # polls the racers' flags

    def open(self, kind: str, server: str | None = None) -> Outage:
        outage = Outage(kind, server, time.monotonic())
        with self.lock:
            self.outages.append(outage)
        return outage

    def close(self, outage: Outage) -> None:
        """The fault is over: wait for ``/readyz`` 200 on the servers it hit, then end the outage."""
        outage.fault_over = time.monotonic()
        hit = [outage.server] if outage.server else list(self.urls)
        with httpx.Client(timeout=10) as client:
            for server in hit:
                deadline = time.monotonic() + READY_WITHIN
                while not ready(client, server):
                    if time.monotonic() > deadline:
                        self.problem(f"{server}: /readyz not 200 within {READY_WITHIN:.0f} s of a {outage.kind}")
                        break
                    time.sleep(0.1)  # the readiness probe's answer is kept a second
        outage.end = time.monotonic()
        with self.lock:
            self.figures.ready_after.append(outage.ready_after)
        self.say(f"{outage.kind}: ready again {outage.ready_after:.1f} s after the fault ended")

    def wait_not_ready(self, outage: Outage) -> None:
        """Hold the fault until every server's ``/readyz`` has said 503 (as the monitor saw it)."""
        deadline = time.monotonic() + READY_WITHIN
        with httpx.Client(timeout=10) as client:
            for server in [outage.server] if outage.server else list(self.urls):
                while (answer := status_of(client, server + "/readyz")) != 503:
                    if time.monotonic() > deadline:
                        self.problem(f"{server}: /readyz never said 503 in a {outage.kind} ({answer})")
                        return
                    time.sleep(0.1)  # the last probe's answer is kept a second

    def kill(self, index: int = 0) -> None:
        """SIGKILL server ``index`` while the players play, and start it again on its port."""
        server = self.servers[index]
        outage = self.open("kill", server.url)
        server.kill()
        port = int(server.url.rsplit(":", 1)[1])
        self.servers[index] = servers.start_server(self.data_dir, self.env, port=port, timeout=READY_WITHIN * 2)
        with self.lock:
            self.figures.kills += 1
        self.close(outage)

    def hold_fault(self, kind: str, begin: Callable[[], Callable[[], object]], hold: float) -> None:
        """Bring a fault on every server (``begin`` returns what ends it), hold it until each
        ``/readyz`` said 503 and ``hold`` seconds more, end it, and wait for ``/readyz`` 200."""
        outage = self.open(kind)
        end = begin()
        try:
            self.wait_not_ready(outage)
            self.play(hold)
        finally:
            end()
        self.close(outage)

    def fill_disk(self, disk: Path, hold: float = 1.0) -> None:
        """Fill the data directory's disk to the last byte, then free it."""
        self.hold_fault("disk", lambda: fill(disk).unlink, hold)
        with self.lock:
            self.figures.disk_fulls += 1

    def stop_database(self, database: PrivatePostgres, hold: float = 1.0) -> None:
        """Stop the database server, then start it again."""

        def stop() -> Callable[[], None]:
            database.stop()
            return database.start

        self.hold_fault("database", stop, hold)
        with self.lock:
            self.figures.database_outages += 1

    # -- the end ------------------------------------------------------------------------------------

    def finish(self) -> Figures:
        """Stop the players (each settles what it has pending) and the monitor."""
        for player in self.players:
            player.finishing.set()
        for thread in self.threads[:-1]:
            thread.join(timeout=READY_WITHIN)
            if thread.is_alive():
                self.problem("a player did not settle its last action")
        self.stopping.set()
        self.threads[-1].join(timeout=READY_WITHIN)
        self.figures.seconds = time.monotonic() - self.started
        return self.figures

    def verify(self) -> list[str]:
        """Every game as its log says, every answer where it may be; what is wrong, if anything."""
        problems = list(self.problems)
        games: dict[str, Game] = {}
        with httpx.Client(timeout=30) as client:
            for game_id, logged in sorted(self.log.items()):
                replayed = games[game_id] = Game(GameCode.parse(logged.code))
                for action in logged.actions:
                    apply(replayed, action)
                response = client.get(f"{self.urls[0]}/api/games/{game_id}")
                wrong = mismatches(response.json(), game_id, replayed) if response.status_code == 200 \
                    else [f"{response.status_code}"]
                if wrong:
                    self.figures.lost += 1
                    problems.append(f"game {game_id} ({logged.code}) is not its log replayed: {wrong[:3]}")
            for race_id, game_ids in self.races.items():
                problems += race_problems(client.get(f"{self.urls[-1]}/api/races/{race_id}"),
                                          [games[g] for g in game_ids])
        self.figures.games = len(self.log)
        problems += self.classify()
        for watcher in self.watchers:
            problems += watcher.problems()
            self.figures.stream_messages += len(watcher.events)
            self.figures.stream_ends += len(watcher.ended)
        for held in self.held:
            problems += held.verify()
            self.figures.held_refused += sum(held.refused.values())
        for player in self.players:
            if isinstance(player, DailyPlayer):
                problems += player.attempt_problems(self.urls[0])
                self.figures.daily_attempts += 1
                self.figures.daily_refused += player.refused
                self.figures.daily_practised += player.practised
        for outage in self.outages:
            if outage.kind != "kill" and not outage.not_ready_seen:
                problems.append(f"/readyz never said 503 during a {outage.kind} outage")
        return problems

    def classify(self) -> list[str]:
        problems = []
        for answer in self.answers:
            outage = self.outage_of(answer.server, answer.start, answer.end)
            where = f"{answer.what} on {answer.server} at {answer.start - self.started:.1f} s"
            if answer.what == "/healthz":
                if answer.status != 200 and (outage is None or outage.kind != "kill"):
                    problems.append(f"{where}: /healthz {answer.status}")
            elif answer.what == "/readyz":
                if answer.status != 200 and outage is None:
                    problems.append(f"{where}: /readyz {answer.status} outside an outage")
            elif answer.what == "stream":
                if outage is None:
                    problems.append(f"{where}: the race's stream ended ({answer.status or 'no answer'}) outside an outage")
                elif answer.status not in (None, 200, 503) and outage.kind != "kill":
                    problems.append(f"{where}: the race's stream answered {answer.status} in a {outage.kind} outage")
            elif outage is None:
                self.figures.five_xx_outside += answer.status is not None
                problems.append(f"{where}: {answer.status or 'no answer'} outside an outage")
            elif answer.status is not None:
                self.figures.five_xx_inside += 1
                if outage.kind != "kill" and not (answer.status == 503 and answer.retry_after):
                    problems.append(f"{where}: {answer.status} in a {outage.kind} outage (503 with Retry-After wanted)")
        return problems

    def close_servers(self) -> None:
        for server in self.servers:
            server.stop()


def race_problems(response: httpx.Response, games: list[Game]) -> list[str]:
    """The race room as its racers' games say: every racer there, with the counts of their game."""
    if response.status_code != 200:
        return [f"the race answers {response.status_code}: {response.text[:200]}"]
    room = response.json()
    shown = sorted((r["cards_left"], r["score"], r["stock_left"]) for r in room["racers"])
    played = sorted((g.cards_left(), g.score, g.stock_count) for g in games)
    if room["status"] not in ("running", "finished") or shown != played:
        return [f"the race {room['id']} ({room['status']}) shows {shown}, its racers' games are {played}"]
    return []


def status_of(client: httpx.Client, url: str) -> int | None:
    try:
        return client.get(url).status_code
    except httpx.TransportError:
        return None


def ready(client: httpx.Client, server: str) -> bool:
    return status_of(client, server + "/readyz") == 200
