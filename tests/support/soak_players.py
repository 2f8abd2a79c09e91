"""The soak's players: each in a thread, a game at a time, every acknowledged action logged.

* :class:`ApiPlayer`: the JSON API (``POST /api/games``, ``/remove``, ``/draw``, ``/undo``); each
  answer is checked field by field against the player's replica (``mismatches``).
* :class:`PagePlayer`: the game page's routes, htmx posts mostly (the move counter of each
  swapped answer checked), a plain form post (303) now and then.
* :class:`DailyPlayer`: the day's deal on its page, its ranked attempt first, then practice;
* :class:`RacerPlayer`: a racer of a race room (``/api/races``), playing its race game through
  the API at a racer's pace, then ordinary games.

An action answered 5xx, or not at all, is *pending* until a server reads the game back: stored
or not (see :mod:`tests.support.soak`).
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
import threading
import time
from typing import TYPE_CHECKING, Final

import httpx

from app.engine import DRAW, Game, GameCode, Rules
from tests.support.oracle import apply, choose, mismatches

if TYPE_CHECKING:
    from tests.support.soak import Soak

HX: Final = {"HX-Request": "true"}
PAUSE: Final = 0.2
"""How long a player waits after a failed request before it tries again (the server is down),
doubled at each failure in a row up to :data:`LONGEST_PAUSE`: a server starting again is not
buried under retries."""
LONGEST_PAUSE: Final = 2.0
NOTHING: Final = object()
"""No action pending."""

Action = int | None
"""A tableau position, ``DRAW``, or ``None`` for an undo (as ``choose`` gives them)."""


class Player:
    """One player in a thread: a game at a time, every acknowledged action logged."""

    def __init__(self, soak: Soak, index: int, seed: int) -> None:
        self.soak = soak
        self.rng = random.Random(seed * 1000 + index)
        self.client = httpx.Client(timeout=30)  # one cookie jar: the servers share 127.0.0.1
        self.game: Game | None = None
        self.game_id = ""
        self.pending: object = NOTHING
        self.failures = 0
        """Failed requests in a row."""
        self.patience = self.rng.randrange(40, 120)
        """Moves after which the player deals a new game (undos make games long)."""
        self.finishing = threading.Event()
        """Set at the end: settle what is pending, then stop."""

    def server(self) -> str:
        return self.rng.choice(self.soak.urls)

    def back_off(self) -> None:
        self.soak.stopping.wait(min(PAUSE * 2**self.failures, LONGEST_PAUSE))
        self.failures += 1

    def run(self) -> None:
        try:
            while not (self.finishing.is_set() and self.pending is NOTHING):
                if self.pending is not NOTHING:
                    self.settle()
                elif self.game is None or self.game.is_over or self.game.moves >= self.patience:
                    self.deal()
                else:
                    self.act()
        except Exception as error:  # a bug of the soak or an answer it cannot read: said
            self.soak.problem(f"{type(self).__name__} {self.game_id}: {type(error).__name__}: {error}")
        finally:
            self.client.close()

    def act(self) -> None:
        assert self.game is not None
        action = choose(self.game, self.rng)
        response = self.send(action)
        if response is None or response.status_code >= 500:
            self.pending = action  # stored or not: read back once a server answers
            self.back_off()
            return
        if not self.acknowledged(response):
            self.soak.problem(f"{self.game_id}: {response.status_code} for {action}: {response.text[:200]}")
            self.game = None  # this game's replica cannot be trusted: a new one
            return
        self.failures = 0
        apply(self.game, action)
        self.soak.acknowledged(self.game_id, action)
        self.check(response)

    def settle(self) -> None:
        """The pending action: stored or not? (The state read back is one or the other.)"""
        assert self.game is not None
        response = self.soak.request(self.client, self.server(), "GET", f"/api/games/{self.game_id}", "read back")
        if response is None or response.status_code >= 500:
            self.back_off()
            return
        self.failures = 0
        action = self.pending
        after = self.game.copy()
        apply(after, action)  # type: ignore[arg-type]
        shown = response.json()
        if not mismatches(shown, self.game_id, self.game):
            with self.soak.lock:
                self.soak.figures.not_stored_unanswered += 1
        elif not mismatches(shown, self.game_id, after):
            self.game = after
            self.soak.acknowledged(self.game_id, action, answered=False)  # type: ignore[arg-type]
        else:
            self.soak.problem(f"{self.game_id}: after {action!r} unanswered, the game is neither before nor after it: "
                              f"{mismatches(shown, self.game_id, after)[:3]}")
            self.game = None
        self.pending = NOTHING

    def send(self, action: Action) -> httpx.Response | None:
        raise NotImplementedError

    def acknowledged(self, response: httpx.Response) -> bool:
        raise NotImplementedError

    def check(self, response: httpx.Response) -> None:
        """The answer shows the game as the replica has it."""

    def deal(self) -> None:
        raise NotImplementedError

    def random_code(self) -> str:
        return GameCode.random(self.rng.choice([Rules.EASY, Rules.CLASSIC])).text()


class ApiPlayer(Player):
    def deal(self) -> None:
        code = self.random_code()
        response = self.soak.request(self.client, self.server(), "POST", "/api/games", "deal", json={"code": code})
        if response is None or response.status_code != 201:
            self.back_off()  # a game dealt but never answered is nobody's: no action in it
            return
        self.game_id, self.game = response.json()["id"], Game(GameCode.parse(code))
        self.soak.new_game(self.game_id, code)

    def send(self, action: Action) -> httpx.Response | None:
        path = f"/api/games/{self.game_id}/"
        if action is None:
            return self.soak.request(self.client, self.server(), "POST", path + "undo", "undo")
        if action == DRAW:
            return self.soak.request(self.client, self.server(), "POST", path + "draw", "draw")
        return self.soak.request(self.client, self.server(), "POST", path + "remove", "remove",
                                 json={"position": action})

    def acknowledged(self, response: httpx.Response) -> bool:
        return response.status_code == 200

    def check(self, response: httpx.Response) -> None:
        assert self.game is not None
        wrong = mismatches(response.json(), self.game_id, self.game)
        if wrong:
            self.soak.problem(f"{self.game_id}: the answer is not the replica: {wrong[:3]}")


class PagePlayer(Player):
    """Plays on the game page: htmx posts mostly, a plain form post (303) now and then."""

    htmx = True

    def deal(self) -> None:
        code = self.random_code()
        response = self.soak.request(self.client, self.server(), "POST", "/new", "deal", data={"code": code},
                                     headers=HX)
        if response is None or response.status_code != 200:
            self.back_off()
            return
        found = re.search(r'data-game-id="([^"]+)"', response.text)
        if found is None:
            self.soak.problem(f"POST /new answered without a game: {response.text[:200]}")
            return
        self.game_id, self.game = found.group(1), Game(GameCode.parse(code))
        self.soak.new_game(self.game_id, code)

    def send(self, action: Action) -> httpx.Response | None:
        self.htmx = self.rng.random() < 0.8
        headers = HX if self.htmx else {}
        path = f"/games/{self.game_id}/"
        if action is None:
            return self.soak.request(self.client, self.server(), "POST", path + "undo", "undo", headers=headers)
        if action == DRAW:
            return self.soak.request(self.client, self.server(), "POST", path + "draw", "draw", headers=headers)
        return self.soak.request(self.client, self.server(), "POST", path + "remove", "remove",
                                 data={"position": action}, headers=headers)

    def acknowledged(self, response: httpx.Response) -> bool:
        return response.status_code == (200 if self.htmx else 303)

    def check(self, response: httpx.Response) -> None:
        assert self.game is not None
        if self.htmx:
            moves = re.search(r'id="moves"[^>]*>(\d+)<', response.text)
            if moves is None or int(moves.group(1)) != self.game.moves:
                self.soak.problem(f"{self.game_id}: the page says {moves and moves.group(1)} moves, "
                                  f"the replica {self.game.moves}")


class DailyPlayer(PagePlayer):
    """Plays the day's deal on its page: first its ranked attempt (``/daily/<today>``), then,
    the attempt under way, asks a practice game of the deal (``POST /new`` with its code:
    refused, 409, while the attempt is under way; a problem if not), ends the attempt and plays
    practice games of it. At the end :meth:`Soak.verify` finds the attempt as its game's log was
    when it ended (:meth:`attempt_problems`)."""

    day = ""
    code = ""
    attempt_id = ""
    refused = 0
    """Practice games asked for while the attempt was under way, refused (409) as they must be."""
    practised = 0

    def deal(self) -> None:
        if not self.attempt_id:
            self.deal_attempt()
        else:
            self.deal_practice()

    def deal_attempt(self) -> None:
        server = self.server()
        today = self.soak.request(self.client, server, "GET", "/api/daily", "daily")
        if today is None or today.status_code != 200:
            self.back_off()
            return
        self.day, self.code = today.json()["date"], today.json()["code"]
        page = self.soak.request(self.client, server, "GET", f"/daily/{self.day}", "daily")
        found = re.search(r'data-game-id="([^"]+)"', page.text) if page is not None and page.status_code == 200 else None
        if found is None:
            self.back_off()  # (a game dealt unanswered is found again: the page shows the attempt)
            return
        self.attempt_id = self.game_id = found.group(1)
        self.game = Game(GameCode.parse(self.code))
        self.patience = self.rng.randrange(8, 20)  # a short attempt: the soak sees its practice too
        if self.game_id not in self.soak.log:
            self.soak.new_game(self.game_id, self.code)

    def deal_practice(self) -> None:
        server = self.server()
        data = {"code": self.code}
        if self.game_id == self.attempt_id and self.attempt_as_ended().status.value == "playing":
            asked = self.soak.request(self.client, server, "POST", "/new", "practice", data=data, headers=HX)
            if asked is None or asked.status_code >= 500:
                self.back_off()
                return
            if asked.status_code == 409 and 'id="attempt-choice"' in asked.text:
                self.refused += 1
            elif dt.datetime.now(dt.UTC).date().isoformat() == self.day:  # (past midnight, UTC, it is no longer the day's deal)
                self.soak.problem(f"a practice game of the day's deal while its attempt is under way: {asked.status_code}")
        response = self.soak.request(self.client, server, "POST", "/new", "practice",
                                     data={**data, "end_attempt": "true"}, headers=HX)
        found = re.search(r'data-game-id="([^"]+)"', response.text) if response is not None and response.status_code == 200 \
            else None
        if found is None:
            self.back_off()
            return
        self.game_id, self.game = found.group(1), Game(GameCode.parse(self.code))
        self.soak.new_game(self.game_id, self.code)
        self.practised += 1
        self.patience = self.rng.randrange(40, 120)

    def attempt_as_ended(self) -> Game:
        """The attempt's game as its log has it, up to its end (won or blocked) if it ended:
        an end is final, what follows it is practice."""
        game = Game(GameCode.parse(self.code))
        with self.soak.lock:
            actions = list(self.soak.log[self.attempt_id].actions)
        for action in actions:
            if game.status.value != "playing":
                break
            apply(game, action)
        return game

    def attempt_problems(self, server: str) -> list[str]:
        """The day's attempt as its game's log was when it ended (won or blocked, or ended by
        the player for a practice game); none when the day changed during the soak."""
        if not self.attempt_id:
            return ["the daily player never got its attempt"]
        with httpx.Client(timeout=30, cookies=self.client.cookies) as mine:
            answer = mine.get(f"{server}/api/daily/{self.day}")
        you = answer.json().get("you") if answer.status_code == 200 else None
        if you is None:
            return [f"no attempt on {self.day}: {answer.status_code} {answer.text[:200]}"]
        game = self.attempt_as_ended()
        if (you["score"], you["won"]) != (game.score, game.status.value == "won"):
            return [f"the attempt says {you['score']} ({'won' if you['won'] else 'not won'}), its game's log "
                    f"{game.score} ({game.status.value})"]
        return []


RACE_PACE: Final = 0.15
"""A racer's pause between two moves: the race lasts through the faults."""


class RacerPlayer(ApiPlayer):
    """A racer: its race game (an ordinary game, through the API) once the race runs, at a
    racer's pace; then, like any API player, ordinary games."""

    race_id = ""
    racing = False
    running = False

    def enter(self, race_id: str, game_id: str, code: str) -> None:
        self.race_id, self.game_id, self.game = race_id, game_id, Game(GameCode.parse(code))
        self.racing = True
        self.soak.new_game(game_id, code)

    def act(self) -> None:
        if self.racing and not self.running:  # the 3-2-1 countdown: a move now would be refused
            response = self.soak.request(self.client, self.server(), "GET", f"/api/races/{self.race_id}", "race")
            self.running = response is not None and response.status_code == 200 \
                and response.json()["status"] == "running"
            if not self.running:
                self.back_off()
                return
        super().act()
        if self.racing:
            self.soak.stopping.wait(RACE_PACE)

    def deal(self) -> None:
        self.racing = False  # the race game is over, or played long enough: ordinary games now
        super().deal()


class StreamWatcher:
    """A live stream of a race (``/races/<id>/events``) on one server, held open all along, and
    opened again whenever it ends (as the page's ``hx-sse`` does): a racer's (its cookies), or
    one held at a bound (``headers``: the address a trusted proxy forwards; ``fresh``: a new
    cookie at each opening, as a client that drops it)."""

    def __init__(self, soak: Soak, server: str, url: str, *, cookies: httpx.Cookies | None = None,
                 headers: dict[str, str] | None = None, fresh: bool = False) -> None:
        self.soak, self.server, self.url = soak, server, url
        self.cookies = httpx.Cookies(cookies) if cookies is not None else httpx.Cookies()
        self.headers, self.fresh = headers or {}, fresh
        self.connected = False
        self.events: list[float] = []
        """When each message came."""
        self.ended: list[float] = []
        """When the stream ended, or could not be opened."""

    def run(self) -> None:
        # Reads wait at most past FastAPI's keep-alive comment (every 15 s).
        with httpx.Client(timeout=httpx.Timeout(10, read=40), cookies=self.cookies) as client:
            while not self.soak.stopping.is_set():
                start = time.monotonic()
                status = None
                if self.fresh:
                    client.cookies.clear()
                try:
                    with client.stream("GET", self.url, headers=self.headers) as response:
                        status = response.status_code
                        self.connected = status == 200
                        if status == 200:
                            for line in response.iter_lines():
                                if line.startswith("id:"):
                                    self.events.append(time.monotonic())
                                if self.soak.stopping.is_set():
                                    return
                except httpx.HTTPError:
                    pass
                finally:
                    self.connected = False
                if self.soak.stopping.is_set():
                    return
                self.ended.append(time.monotonic())
                self.soak.stream_ended(self.server, start, status)
                self.soak.stopping.wait(PAUSE * 2)  # the page's hx-sse waits too before it opens it again

    def problems(self) -> list[str]:
        """Every end followed by a message (the stream came back), and a message at all."""
        found = [] if self.events else [f"the race's stream on {self.server} never sent a message"]
        last = self.events[-1] if self.events else -math.inf
        found += [f"the race's stream on {self.server} ended at {end - self.soak.started:.1f} s and never came back"
                  for end in self.ended if end > last]
        return found
