"""Races (issue 24): rooms where up to eight racers play the same deal at the same moment.

A race room has a maker, a deal (its code) and a round: "Race again" deals a new deal in the
same room, to the same racers, as the next round. Each racer of a round plays an ordinary
stored game of the round's deal, made when they join (its id marks it as a race game:
:func:`is_race_game_id`). The room keeps when the round's race starts (``None``: still the
lobby) and when it was seen to finish; everything else (who is playing, who won, the
order of finish) is read from the racers' games, so a server restart loses nothing.

This module holds the values, the pure rules (the status of a race at a moment, the order
of finish through :mod:`app.store.ranking`) and the interface every store implements
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
    says it in the player's language by its kind)."""


class UnknownRace(RaceRefused):
    def __init__(self) -> None:
        super().__init__("No such race")


class RaceFull(RaceRefused):
    def __init__(self) -> None:
        super().__init__("This race is full: eight racers at most.")


class RaceUnderway(RaceRefused):
    def __init__(self) -> None:
        super().__init__("This race has started: it can no longer be joined.")


class NotTheMaker(RaceRefused):
    def __init__(self) -> None:
        super().__init__("Only the one who made this race can do that.")


class NotNow(RaceRefused):
    """Start when not in the lobby, race again before the finish, a move before the deal or
    after the finish: the message says which (:data:`NOT_NOW`)."""


NOT_NOW: Final = (
    "This race has started already.",
    "This race is not finished yet.",
    "The race has not started yet: wait for the deal.",
    "This race is over.",
)
"""The messages :class:`NotNow` carries."""


class TooManyRooms(RaceRefused):
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
        """The maker deals ``code`` as the next round, to the same racers (a new game each), in
        the lobby. :class:`NotNow` before the race is finished."""

    @abc.abstractmethod
    def settle_race(self, race_id: str, ended: float) -> None:
        """Keep that the current round finished at ``ended`` (once; later calls change nothing)."""

    @abc.abstractmethod
    def see_racer(self, race_id: str, player: str, now: float, *, back: bool = False) -> None:
        """The racer's page is connected now (they are not gone); ``back``: it has just
        opened, so a racer who left is back."""

    @abc.abstractmethod
    def leave_race(self, race_id: str, player: str, now: float) -> None:
        """The racer leaves the running race ("Leave the race"): gone from ``now``, and the
        race no longer waits for them. :class:`UnknownRace`; :class:`NotNow` when it is not
        running; nothing for someone who is not a racer."""

    @abc.abstractmethod
    def cleanup_races(self, older_than: dt.timedelta) -> int:
        """Remove rooms nothing happened in for ``older_than``; returns how many. Their games
        stay, as ordinary games."""


def refuse_leaving(race: Race, now: float) -> None:
    """:class:`NotNow` unless the race is running: a racer leaves a race under way."""
    status = race.status(now)
    if status is RaceStatus.FINISHED:
        raise NotNow("This race is over.")
    if status is not RaceStatus.RUNNING:
        raise NotNow("The race has not started yet: wait for the deal.")


def racer_name(racer: Racer) -> tuple[str | None, int]:
    """The racer's display name, and the number of "Player N" when they have none."""
    return racer.name, racer.seat + 1
