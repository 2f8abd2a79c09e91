"""Races in the in-process store (see :mod:`app.store.races`): mixed into :class:`MemoryStore`,
under its one lock."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from app.engine import Game, GameCode
from app.store.races import (
    COUNTDOWN_S,
    ROOM_IDLE_S,
    Race,
    Racer,
    RaceRooms,
    UnknownRace,
    new_race_game_id,
    new_race_id,
    racers_again,
    refuse_joining,
    refuse_leaving,
    refuse_making,
    refuse_racing_again,
    refuse_starting,
)


@dataclass(slots=True)
class _Seat:
    player: str
    game_id: str
    joined: float
    seen: float | None = None
    left_at: float | None = None


@dataclass(slots=True)
class _Room:
    maker: str
    code: str
    created: float
    updated: float
    round: int = 1
    starts: float | None = None
    ended: float | None = None
    seats: list[_Seat] = field(default_factory=list)


class MemoryRaces(RaceRooms):
    """The race methods of :class:`app.store.memory.MemoryStore`."""

    _lock: threading.RLock
    _clock: Callable[[], float]
    _rooms: dict[str, _Room]
    _room_of_game: dict[str, tuple[str, int]]

    def _new_game(self, game: Game, owner: str, game_id: str) -> None:
        raise NotImplementedError

    def _display(self, player: str) -> str | None:
        raise NotImplementedError

    def _game(self, game_id: str) -> Game | None:
        raise NotImplementedError

    def _view(self, race_id: str, room: _Room) -> Race:
        racers = []
        for seat, taken in enumerate(room.seats):
            game = self._game(taken.game_id)
            if game is None:
                continue
            racers.append(
                Racer(
                    player=taken.player, name=self._display(taken.player), seat=seat,
                    game_id=taken.game_id, joined=taken.joined, seen=taken.seen,
                    game_status=game.status, score=game.score, cards_left=game.cards_left(),
                    stock_left=game.stock_count, started_at=game.started_at,
                    ended_after=game.ended_after, left_at=taken.left_at, hints=game.hints,
                )
            )
        return Race(
            race_id, room.maker, room.code, room.round, room.created, room.starts, room.ended,
            room.updated, tuple(racers),
        )  # fmt: skip

    def _room(self, race_id: str) -> _Room:
        room = self._rooms.get(race_id)
        if room is None:
            raise UnknownRace()
        return room

    def _seat(self, race_id: str, room: _Room, player: str) -> str:
        game_id = new_race_game_id()
        now = self._clock()
        self._new_game(Game(GameCode.parse(room.code)), player, game_id)
        room.seats.append(_Seat(player, game_id, now))
        self._room_of_game[game_id] = (race_id, room.round)
        room.updated = now
        return game_id

    def create_race(self, code: GameCode, maker: str) -> Race:
        with self._lock:
            now = self._clock()
            mine = [r for r in self._rooms.values() if r.maker == maker and r.updated >= now - ROOM_IDLE_S]
            refuse_making(len(mine))
            race_id = new_race_id()
            room = self._rooms[race_id] = _Room(maker, code.text(), now, now)
            self._seat(race_id, room, maker)
            return self._view(race_id, room)

    def race(self, race_id: str) -> Race | None:
        with self._lock:
            room = self._rooms.get(race_id)
            return self._view(race_id, room) if room is not None else None

    def race_of_game(self, game_id: str) -> Race | None:
        with self._lock:
            found = self._room_of_game.get(game_id)
            if found is None:
                return None
            room = self._rooms.get(found[0])
            if room is None or room.round != found[1]:
                return None
            return self._view(found[0], room)

    def join_race(self, race_id: str, player: str, now: float) -> str:
        with self._lock:
            room = self._room(race_id)
            race = self._view(race_id, room)
            mine = race.racer(player)
            if mine is not None:
                return mine.game_id
            refuse_joining(race, now)
            return self._seat(race_id, room, player)

    def start_race(self, race_id: str, player: str, now: float) -> Race:
        with self._lock:
            room = self._room(race_id)
            refuse_starting(self._view(race_id, room), player)
            room.starts, room.updated = now + COUNTDOWN_S, self._clock()
            return self._view(race_id, room)

    def race_again(self, race_id: str, player: str, code: GameCode, now: float) -> Race:
        with self._lock:
            room = self._room(race_id)
            race = self._view(race_id, room)
            refuse_racing_again(race, player, now)
            before = racers_again(race, now)
            room.code, room.round, room.seats = code.text(), room.round + 1, []
            room.starts = room.ended = None
            for racer in before:
                self._seat(race_id, room, racer)
            return self._view(race_id, room)

    def settle_race(self, race_id: str, ended: float) -> None:
        with self._lock:
            room = self._rooms.get(race_id)
            if room is not None and room.ended is None:
                room.ended, room.updated = ended, self._clock()

    def see_racer(self, race_id: str, player: str, now: float, *, back: bool = False) -> None:
        with self._lock:
            room = self._rooms.get(race_id)
            if room is None:
                return
            for seat in room.seats:
                if seat.player == player:
                    seat.seen = now
                    seat.left_at = None if back else seat.left_at

    def leave_race(self, race_id: str, player: str, now: float) -> None:
        with self._lock:
            room = self._room(race_id)
            refuse_leaving(self._view(race_id, room), now)
            for seat in room.seats:
                if seat.player == player:
                    seat.left_at = now

    def cleanup_races(self, older_than: dt.timedelta) -> int:
        with self._lock:
            cutoff = self._clock() - older_than.total_seconds()
            idle = [race_id for race_id, room in self._rooms.items() if room.updated < cutoff]
            for race_id in idle:
                del self._rooms[race_id]
            self._room_of_game = {g: r for g, r in self._room_of_game.items() if r[0] in self._rooms}
            return len(idle)
