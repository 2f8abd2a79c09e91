"""Races (issue 24): rooms where up to eight racers play the same deal at the same moment.

A race room has a maker, a deal (its code) and a round: "Race again" deals a new deal in the
same room, to the same racers, as the next round. Each racer of a round plays an ordinary
stored game of the round's deal, made when they join (its id marks it as a race game:
:func:`is_race_game_id`). The room keeps when the round's race starts (``None``: still the
lobby) and when it was seen to finish; everything else (who is playing, who won, the
order of finish) is read from the racers' games, so a server restart loses nothing.

This module holds the values, the pure rules (the status of a race at a moment, the order
of finish through :mod:`app.store.ranking`, and whether a make, a join, a start, a move, a
leave or a race-again is allowed: the ``refuse_*`` functions) and the interface every store implements
(:class:`RaceRooms`); :mod:`app.store.database.race_sql` and :mod:`app.store.race_memory` keep them.
"""

from __future__ import annotations

import abc
import datetime as dt
import enum
import math
import secrets
from dataclasses import dataclass
from typing import Final

from app.engine import GameCode, Status
from app.store.attempts import AttemptUnfinished
from app.store.ranking import Entry, standings

MAX_RACERS: Final = 8
COUNTDOWN_S: Final = 3.0
"""From the maker's "Start" to the deal: the 3-2-1 countdown."""
TIME_LIMIT_S: Final = 600.0
"""A race ends ten minutes after its deal, whoever is still playing."""
GONE_AFTER_S: Final = 60.0
"""A racer whose page has not been connected for this long is gone: they left ("Leave the
race" makes them gone at once), and the race no longer waits for them. The stream marks a
connected racer as seen every 15 s, and when it closes; opening the page again brings them
back."""
MAX_OPEN_ROOMS: Final = 5
"""Rooms one player may have made that are still open (not idle): the sixth is refused."""
ROOM_IDLE_S: Final = 6 * 3600.0
"""A room nothing has happened in for this long is removed (its games stay ordinary games)."""

RACE_GAME_ID_LENGTH: Final = 24
"""A racer's game id: 144 random bits, 24 characters (an ordinary game's has 22)."""


def new_race_id() -> str:
    """A race room's id: 72 random bits, 12 URL-safe characters (it is shared by link)."""
    return secrets.token_urlsafe(9)


def new_race_game_id() -> str:
    return secrets.token_urlsafe(18)


def is_race_game_id(game_id: str) -> bool:
    """Whether a game id is a racer's game (only those need the race's status for a move)."""
    return len(game_id) == RACE_GAME_ID_LENGTH


class RaceStatus(enum.Enum):
    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    FINISHED = "finished"


class RacerStatus(enum.Enum):
    PLAYING = "playing"
    WON = "won"
    BLOCKED = "blocked"
    GONE = "gone"


class RaceRefused(ValueError):
    """A race action the room does not allow now; the message says why (in English: the web
    says it in the player's language by its kind), ``code`` names it for the JSON API."""

    code = "race_not_now"


class UnknownRace(RaceRefused):
    code = "no_such_race"

    def __init__(self) -> None:
        super().__init__("No such race")


class RaceFull(RaceRefused):
    code = "race_full"

    def __init__(self) -> None:
        super().__init__("This race is full: eight racers at most.")


class RaceUnderway(RaceRefused):
    code = "race_underway"

    def __init__(self) -> None:
        super().__init__("This race has started: it can no longer be joined.")


class NotTheMaker(RaceRefused):
    code = "not_the_maker"

    def __init__(self) -> None:
        super().__init__("Only the one who made this race can do that.")


class NotNow(RaceRefused):
    """Start when not in the lobby, race again before the finish, a move before the deal or
    after the finish: the message says which, and ``code`` where the API tells them apart."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class AttemptUnderway(RaceRefused, AttemptUnfinished):
    """A seat on the day's deal for a racer whose ranked attempt at it is under way (a race
    of it would be practice with its cards seen): nothing dealt."""

    code = "attempt_unfinished"


class TooManyRooms(RaceRefused):
    code = "too_many_races"

    def __init__(self) -> None:
        super().__init__("You have five open races already: race in one of them.")


@dataclass(frozen=True, slots=True)
class Racer:
    """One racer of a round: who, their seat (0 for the first to join) and their game."""

    player: str
    name: str | None
    """Their display name now (``None``: "Player N", N being seat + 1)."""
    seat: int
    game_id: str
    joined: float
    seen: float | None
    """When their page was last connected (their stream); ``None``: never (a client of the
    JSON API), and then never gone."""
    game_status: Status
    score: int
    cards_left: int
    stock_left: int
    started_at: float | None
    ended_after: float | None
    left_at: float | None = None
    """When they left with "Leave the race" (``None``: they did not, or came back since)."""
    hints: int = 0
    """Hints their game has used (the game's own count)."""

    @property
    def ended_at(self) -> float | None:
        """When their game was won or blocked (seconds since the epoch), else ``None``."""
        if self.started_at is None or self.ended_after is None:
            return None
        return self.started_at + self.ended_after

    def gone_at(self, now: float) -> float | None:
        """When they left, if they are gone now: "Leave the race", or their page away for
        :data:`GONE_AFTER_S` (then: that much after it was last connected); else ``None``."""
        if self.left_at is not None:
            return self.left_at
        if self.seen is not None and now - self.seen > GONE_AFTER_S:
            return self.seen + GONE_AFTER_S
        return None

    def status(self, now: float) -> RacerStatus:
        """Won or blocked (a result stands, gone or not), else gone, else playing."""
        if self.game_status is Status.WON:
            return RacerStatus.WON
        if self.game_status is Status.BLOCKED:
            return RacerStatus.BLOCKED
        if self.gone_at(now) is not None:
            return RacerStatus.GONE
        return RacerStatus.PLAYING


@dataclass(frozen=True, slots=True)
class Race:
    """A race room as stored, with the racers of its current round."""

    id: str
    maker: str
    code: str
    round: int
    created: float
    starts: float | None
    """When this round's deal is (was) dealt; ``None`` while in the lobby."""
    ended: float | None
    """When this round was seen to finish (``None``: not yet, or not yet seen)."""
    updated: float
    racers: tuple[Racer, ...]

    @property
    def game_code(self) -> GameCode:
        return GameCode.parse(self.code)

    def racer(self, player: str) -> Racer | None:
        return next((r for r in self.racers if r.player == player), None)

    def racer_of_game(self, game_id: str) -> Racer | None:
        return next((r for r in self.racers if r.game_id == game_id), None)

    def finish_at(self, now: float) -> float | None:
        """When the round finishes, as known at ``now``: once every racer has won, is blocked
        or is gone, the last of those moments; else the time limit. ``None`` in the lobby."""
        if self.ended is not None:
            return self.ended
        if self.starts is None:
            return None
        limit = self.starts + TIME_LIMIT_S
        ends = [r.ended_at if r.ended_at is not None else r.gone_at(now) for r in self.racers]
        if self.racers and all(at is not None for at in ends):
            return max(self.starts, min(limit, max(at for at in ends if at is not None)))
        return limit

    def status(self, now: float) -> RaceStatus:
        if self.starts is None:
            return RaceStatus.LOBBY
        if now < self.starts:
            return RaceStatus.COUNTDOWN
        finish = self.finish_at(now)
        if finish is not None and now >= finish:
            return RaceStatus.FINISHED
        return RaceStatus.RUNNING

    def seconds_of(self, racer: Racer) -> float | None:
        """A racer's race time: from the deal to their game's end (``None``: not ended)."""
        end = racer.ended_at
        if end is None or self.starts is None:
            return None
        return max(0.0, end - self.starts)

    def places(self, now: float) -> dict[str, int]:
        """Each racer's place by player: once the race is finished, everyone's, in the order of
        :mod:`app.store.ranking` (won first, then the score, the time, who finished first);
        while it runs, the places of those already won or blocked among themselves."""
        finished = self.status(now) is RaceStatus.FINISHED
        counted = [r for r in self.racers if finished or r.game_status is not Status.PLAYING]

        def entry(racer: Racer) -> Entry:
            end = racer.ended_at
            return Entry(
                won=racer.game_status is Status.WON,
                score=racer.score,
                seconds=self.seconds_of(racer),
                finished=end if end is not None else math.inf,
            )

        return {s.item.player: s.rank for s in standings(counted, entry) if s.rank is not None}

    def in_order(self, now: float) -> list[Racer]:
        """The racers, placed ones first in their order, then the rest by seat."""
        places = self.places(now)
        return sorted(self.racers, key=lambda r: (places.get(r.player, MAX_RACERS + 1), r.seat))


class RaceRooms(abc.ABC):
    """What every store keeps of races (see the module's text)."""

    @abc.abstractmethod
    def create_race(self, code: GameCode, maker: str) -> Race:
        """A new room in the lobby for ``code``; the maker joins it as the first racer.
        :class:`TooManyRooms` when the maker has :data:`MAX_OPEN_ROOMS` open already."""

    @abc.abstractmethod
    def race(self, race_id: str) -> Race | None:
        """The room and the racers of its current round, or ``None``."""

    @abc.abstractmethod
    def race_of_game(self, game_id: str) -> Race | None:
        """The room whose current round this game is in (``None``: none, or an earlier round)."""

    @abc.abstractmethod
    def join_race(self, race_id: str, player: str, now: float) -> str:
        """The player's game of the room's current round (made, and made their current game, on
        their first join). :class:`UnknownRace`, :class:`RaceFull`, :class:`RaceUnderway`."""

    @abc.abstractmethod
    def start_race(self, race_id: str, player: str, now: float) -> Race:
        """The maker starts the countdown: the deal is at ``now`` + :data:`COUNTDOWN_S`.
        :class:`NotTheMaker` for anyone else, :class:`NotNow` when not in the lobby."""

    @abc.abstractmethod
    def race_again(self, race_id: str, player: str, code: GameCode, now: float) -> Race:
        """The maker deals ``code`` as the next round, to the racers who have not left
        (:func:`racers_again`; a new game each), in the lobby. :class:`NotNow` before the race
        is finished."""

    @abc.abstractmethod
    def settle_race(self, race_id: str, ended: float) -> None:
        """Keep that the current round finished at ``ended`` (once; later calls change nothing)."""

    @abc.abstractmethod
    def see_racer(self, race_id: str, player: str, now: float, *, back: bool = False) -> None:
        """The racer's page is connected now (they are not gone); ``back``: it has just
        opened, so a racer who left is back."""

    def see_racers(self, seen: dict[str, list[str]], now: float) -> None:
        """Every racer in ``seen`` (race id → players) is connected now: one write for them all
        (the streams' presence marks, batched by each server every 15 s)."""
        for race_id, players in seen.items():
            for player in players:
                self.see_racer(race_id, player, now)

    @abc.abstractmethod
    def leave_race(self, race_id: str, player: str, now: float) -> None:
        """The racer leaves the running race ("Leave the race"): gone from ``now``, and the
        race no longer waits for them. :class:`UnknownRace`; :class:`NotNow` when it is not
        running; nothing for someone who is not a racer."""

    @abc.abstractmethod
    def cleanup_races(self, older_than: dt.timedelta) -> int:
        """Remove rooms nothing happened in for ``older_than``; returns how many. Their games
        stay, as ordinary games."""


# -- the race's rules: whether an action is allowed, each once ----------------------------------
# Both stores (race_memory.py, database/race_sql.py) and the routes (through
# app/web/race_changes.py) ask these; each raises the refusal, with the message that says why.


def refuse_making(open_rooms: int) -> None:
    """:class:`TooManyRooms` when the maker has :data:`MAX_OPEN_ROOMS` open rooms already."""
    if open_rooms >= MAX_OPEN_ROOMS:
        raise TooManyRooms()


def refuse_joining(race: Race, now: float) -> None:
    """A new racer joins in the lobby only (:class:`RaceUnderway`), while a seat is free
    (:class:`RaceFull`). A racer already seated is answered their game before this is asked."""
    if race.status(now) is not RaceStatus.LOBBY:
        raise RaceUnderway()
    if len(race.racers) >= MAX_RACERS:
        raise RaceFull()


def may_join(race: Race, now: float) -> bool:
    """Whether a new racer may join now (the page's "Join" button): :func:`refuse_joining`'s rule."""
    try:
        refuse_joining(race, now)
    except RaceRefused:
        return False
    return True


def refuse_starting(race: Race, player: str) -> None:
    """The maker alone starts the countdown (:class:`NotTheMaker`), once (:class:`NotNow`)."""
    if race.maker != player:
        raise NotTheMaker()
    if race.starts is not None:
        raise NotNow("This race has started already.")


def refuse_moving(race: Race, game_id: str, now: float) -> None:
    """A racer's game moves only while its race runs, and not once its racer has left it
    ("Leave the race"; opening the race's page again brings them back): :class:`NotNow`."""
    status = race.status(now)
    racer = race.racer_of_game(game_id)
    if status is RaceStatus.RUNNING and racer is not None and racer.left_at is not None:
        raise NotNow("You left this race: open its page to come back.", "race_left")
    if status is RaceStatus.RUNNING:
        return
    if status is RaceStatus.FINISHED:
        raise NotNow("This race is over.", "race_over")
    raise NotNow("The race has not started yet: wait for the deal.", "race_not_started")


def refuse_leaving(race: Race, now: float) -> None:
    """:class:`NotNow` unless the race is running: a racer leaves a race under way."""
    status = race.status(now)
    if status is RaceStatus.FINISHED:
        raise NotNow("This race is over.")
    if status is not RaceStatus.RUNNING:
        raise NotNow("The race has not started yet: wait for the deal.")


def refuse_unfinished(race: Race, now: float) -> None:
    """:class:`NotNow` until the race is finished: the next round comes after this one (the
    page asks this before it looks for the next deal)."""
    if race.status(now) is not RaceStatus.FINISHED:
        raise NotNow("This race is not finished yet.")


def racers_again(race: Race, now: float) -> list[str]:
    """Who "Race again" seats in the next round, in their seats' order: the maker, and every
    racer who has not left (a racer gone by "Leave the race", or whose page has been away for
    :data:`GONE_AFTER_S`, is not brought back; they may join the new round by its link)."""
    return [
        r.player
        for r in sorted(race.racers, key=lambda r: r.seat)
        if r.player == race.maker or r.gone_at(now) is None
    ]


def refuse_racing_again(race: Race, player: str, now: float) -> None:
    """"Race again": the maker alone (:class:`NotTheMaker`), once the race is finished."""
    if race.maker != player:
        raise NotTheMaker()
    refuse_unfinished(race, now)
