"""Races in the SQL store (SQLite and PostgreSQL): the statements and the jobs.

Mixed into :class:`app.store.database.sql.SqlStore`. Every change locks the room's row first
(``SELECT … FOR UPDATE``; on SQLite the write lock), then the player's row when a game is
made (the store's order: room → player → game), so two racers joining the last seat, or a
join and the start, take turns.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable
from typing import Any, Final, TypeVar

from sqlalchemy import Update, bindparam, delete, func, insert, select, update

from app.engine import Game, GameCode, Status
from app.engine.state import game_from_state
from app.store.database import queries as q
from app.store.database.queries import Db, run
from app.store.database.schema import games, players, racers, races
from app.store.races import (
    COUNTDOWN_S,
    ROOM_IDLE_S,
    Race,
    Racer,
    RaceRooms,
    RaceStatus,
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

T = TypeVar("T")

_ROOM_COLUMNS: Final = (
    races.c.id, races.c.maker, races.c.code, races.c.round, races.c.created, races.c.starts,
    races.c.ended, races.c.updated,
)  # fmt: skip
ROOM = select(*_ROOM_COLUMNS).where(races.c.id == bindparam("b_id"))
ROOM_TO_CHANGE = ROOM.with_for_update()
ROOM_OF_GAME = select(racers.c.race_id, racers.c.round).where(racers.c.game_id == bindparam("b_game"))
OPEN_ROOMS = (
    select(func.count())
    .select_from(races)
    .where(races.c.maker == bindparam("b_maker"), races.c.updated >= bindparam("b_since"))
)
NEW_ROOM = insert(races).values({c.name: bindparam("b_" + c.name) for c in _ROOM_COLUMNS})
RACERS = (
    select(
        racers.c.player, players.c.display_name, racers.c.seat, racers.c.game_id, racers.c.joined,
        racers.c.seen, games.c.state, racers.c.left_at,
    )
    .join(games, games.c.id == racers.c.game_id)
    .join(players, players.c.id == racers.c.player, isouter=True)
    .where(racers.c.race_id == bindparam("b_id"), racers.c.round == bindparam("b_round"))
    .order_by(racers.c.seat)
)
SEATS = select(racers.c.player, racers.c.game_id).where(
    racers.c.race_id == bindparam("b_id"), racers.c.round == bindparam("b_round")
).order_by(racers.c.seat)
NEW_RACER = insert(racers).values(
    {
        name: bindparam("b_" + name)
        for name in ("race_id", "round", "player", "seat", "game_id", "joined", "seen")
    }
)


def _moment(column: Any) -> Update:
    """The statement that keeps the moment a round moves on (its deal, its finish), once."""
    return (
        update(races)
        .where(races.c.id == bindparam("b_id"), column.is_(None))
        .values({column.name: bindparam("b_at"), "updated": bindparam("b_updated")})
    )


MOMENT: Final = {RaceStatus.COUNTDOWN: _moment(races.c.starts), RaceStatus.FINISHED: _moment(races.c.ended)}
"""The round's status it moves to → the statement that keeps when: ``starts`` (the countdown
begins, the deal is at its end) or ``ended`` (the finish, seen once)."""
AGAIN = update(races).where(races.c.id == bindparam("b_id")).values(
    code=bindparam("b_code"), round=bindparam("b_round"), starts=None, ended=None,
    updated=bindparam("b_updated"),
)  # fmt: skip
TOUCH_ROOM = update(races).where(races.c.id == bindparam("b_id")).values(updated=bindparam("b_updated"))
_RACER_NOW = update(racers).where(
    racers.c.race_id == bindparam("b_id"),
    racers.c.player == bindparam("b_player"),
    racers.c.round == select(races.c.round).where(races.c.id == bindparam("b_id")).scalar_subquery(),
)
SEE = _RACER_NOW.values(seen=bindparam("b_seen"))
BACK = _RACER_NOW.values(seen=bindparam("b_seen"), left_at=None)
LEAVE = _RACER_NOW.values(left_at=bindparam("b_left"))
IDLE_ROOMS = select(races.c.id).where(races.c.updated < bindparam("b_cutoff")).limit(q.CLEANUP_BATCH)
DELETE_ROOM = delete(races).where(races.c.id == bindparam("b_id"))
DELETE_RACERS = delete(racers).where(racers.c.race_id == bindparam("b_id"))


@functools.lru_cache(maxsize=4096)
def _counts(state: str) -> tuple[Status, int, int, int, float | None, float | None, int]:
    """What a race shows of a game, from its stored state: its status, score, cards left,
    stock left, start, length and hints used. Kept per state text: every read of a race (each move's check,
    each signal's read for the streams) shows the same states again, and reading one replays
    its line (bench/race.py: a race read went from 8 replays to 1 per move)."""
    game = game_from_state(json.loads(state))
    return (
        game.status, game.score, game.cards_left(), game.stock_count, game.started_at,
        game.ended_after, game.hints,
    )  # fmt: skip


def _racer(row: Any) -> Racer:
    player, name, seat, game_id, joined, seen, state, left_at = row
    status, score, cards_left, stock_left, started_at, ended_after, hints = _counts(state)
    return Racer(
        player=player, name=name, seat=seat, game_id=game_id, joined=joined, seen=seen,
        game_status=status, score=score, cards_left=cards_left, stock_left=stock_left,
        started_at=started_at, ended_after=ended_after, left_at=left_at, hints=hints,
    )  # fmt: skip


def race_of_rows(room: Any, found: Any) -> Race:
    """A race from its room's row (:data:`ROOM`) and its racers' rows (:data:`RACERS`)."""
    room_id, maker, code, round_, created, starts, ended, updated = room
    return Race(
        room_id, maker, code, round_, created, starts, ended, updated, tuple(_racer(r) for r in found)
    )


class SqlRaces(RaceRooms):
    """The race methods of the SQL store (see :class:`app.store.races.RaceRooms`)."""

    _clock: Callable[[], float]

    def _read(self, query: Callable[[Db], T]) -> T:
        raise NotImplementedError

    def _write(self, job: Callable[[Db], T]) -> T:
        raise NotImplementedError

    def _make_current(self, db: Db, owner: str, game_id: str, now: float) -> None:
        raise NotImplementedError

    def _bound(self, db: Db, owner: str, keep: str, now: float) -> None:
        raise NotImplementedError

    def _seat_day(self, db: Db, player: str, game_id: str, game: Game, now: float) -> None:
        raise NotImplementedError

    @staticmethod
    def _load(db: Db, race_id: str, *, lock: bool = False) -> Race | None:
        row = run(db, ROOM_TO_CHANGE if lock else ROOM, {"b_id": race_id}).fetchone()
        if row is None:
            return None
        return race_of_rows(row, run(db, RACERS, {"b_id": race_id, "b_round": row[3]}).fetchall())

    @classmethod
    def _to_change(cls, db: Db, race_id: str) -> Race:
        """The room, its row locked for the change about to be made: :class:`UnknownRace` if none."""
        race = cls._load(db, race_id, lock=True)
        if race is None:
            raise UnknownRace()
        return race

    def _seat(self, db: Db, race: Race, player: str, now: float) -> str:
        """Deal the room's current deal to ``player`` as the next seat (the room row locked)."""
        game = Game(race.game_code)
        game_id = new_race_game_id()
        seat = len(run(db, SEATS, {"b_id": race.id, "b_round": race.round}).fetchall())
        row: dict[str, Any] = {"b_id": game_id, "b_owner": player, "b_code": game.code_text()}
        row.update(q.columns(game), b_version=1, b_created=now, b_updated=now)
        self._seat_day(db, player, game_id, game, now)  # the day's deal: the player's attempt
        run(db, q.NEW_GAME, row)
        self._make_current(db, player, game_id, now)
        self._bound(db, player, game_id, now)
        run(db, NEW_RACER, {
            "b_race_id": race.id, "b_round": race.round, "b_player": player, "b_seat": seat,
            "b_game_id": game_id, "b_joined": now, "b_seen": None,
        })  # fmt: skip
        run(db, TOUCH_ROOM, {"b_id": race.id, "b_updated": now})
        return game_id

    def create_race(self, code: GameCode, maker: str) -> Race:
        race_id = new_race_id()

        def job(db: Db) -> Race:
            now = self._clock()
            (open_rooms,) = run(db, OPEN_ROOMS, {"b_maker": maker, "b_since": now - ROOM_IDLE_S}).fetchone()
            refuse_making(open_rooms)
            run(db, NEW_ROOM, {
                "b_id": race_id, "b_maker": maker, "b_code": code.text(), "b_round": 1,
                "b_created": now, "b_starts": None, "b_ended": None, "b_updated": now,
            })  # fmt: skip
            race = self._load(db, race_id, lock=True)
            assert race is not None
            self._seat(db, race, maker, now)
            made = self._load(db, race_id)
            assert made is not None
            return made

        return self._write(job)

    def race(self, race_id: str) -> Race | None:
        return self._read(lambda db: self._load(db, race_id))

    def race_of_game(self, game_id: str) -> Race | None:
        def query(db: Db) -> Race | None:
            found = run(db, ROOM_OF_GAME, {"b_game": game_id}).fetchone()
            if found is None:
                return None
            race = self._load(db, found[0])
            return race if race is not None and race.round == found[1] else None

        return self._read(query)

    def join_race(self, race_id: str, player: str, now: float) -> str:
        def job(db: Db) -> str:
            race = self._to_change(db, race_id)
            mine = race.racer(player)
            if mine is not None:
                return mine.game_id
            refuse_joining(race, now)
            return self._seat(db, race, player, self._clock())

        return self._write(job)

    def start_race(self, race_id: str, player: str, now: float) -> Race:
        def job(db: Db) -> Race:
            race = self._to_change(db, race_id)
            refuse_starting(race, player)
            moment = {"b_id": race_id, "b_at": now + COUNTDOWN_S, "b_updated": self._clock()}
            run(db, MOMENT[RaceStatus.COUNTDOWN], moment)
            started = self._load(db, race_id)
            assert started is not None
            return started

        return self._write(job)

    def race_again(self, race_id: str, player: str, code: GameCode, now: float) -> Race:
        def job(db: Db) -> Race:
            race = self._to_change(db, race_id)
            refuse_racing_again(race, player, now)
            stamp = self._clock()
            again_round = {"b_code": code.text(), "b_round": race.round + 1, "b_updated": stamp}
            run(db, AGAIN, {"b_id": race_id, **again_round})
            again = self._load(db, race_id)
            assert again is not None
            for player_again in racers_again(race, now):
                self._seat(db, again, player_again, stamp)
            dealt = self._load(db, race_id)
            assert dealt is not None
            return dealt

        return self._write(job)

    def settle_race(self, race_id: str, ended: float) -> None:
        moment = {"b_id": race_id, "b_at": ended, "b_updated": self._clock()}
        self._write(lambda db: run(db, MOMENT[RaceStatus.FINISHED], moment))

    def see_racer(self, race_id: str, player: str, now: float, *, back: bool = False) -> None:
        seen = {"b_id": race_id, "b_player": player, "b_seen": now}
        self._write(lambda db: run(db, BACK if back else SEE, seen))

    def see_racers(self, seen: dict[str, list[str]], now: float) -> None:
        def job(db: Db) -> None:
            for race_id, connected in seen.items():
                for player in connected:
                    run(db, SEE, {"b_id": race_id, "b_player": player, "b_seen": now})

        if seen:
            self._write(job)

    def leave_race(self, race_id: str, player: str, now: float) -> None:
        def job(db: Db) -> None:
            race = self._to_change(db, race_id)
            refuse_leaving(race, now)
            run(db, LEAVE, {"b_id": race_id, "b_player": player, "b_left": now})

        self._write(job)

    def cleanup_races(self, older_than: dt.timedelta) -> int:
        cutoff = {"b_cutoff": self._clock() - older_than.total_seconds()}
        removed = 0
        while True:
            ids = [row[0] for row in self._read(lambda db: run(db, IDLE_ROOMS, cutoff).fetchall())]

            def remove(db: Db, ids: list[str] = ids) -> int:
                count = 0
                for race_id in ids:
                    run(db, DELETE_RACERS, {"b_id": race_id})
                    count += run(db, DELETE_ROOM, {"b_id": race_id}).rowcount
                return count

            if ids:
                removed += self._write(remove)
            if len(ids) < q.CLEANUP_BATCH:
                return removed

