"""An in-process store: for tests and for ``TRIPEAKS_DATABASE_URL=memory://``.

Everything is lost when the process ends. It keeps the same results, records and
statistics as the SQL store, with one lock around everything.
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from app.engine import Game, GameCode, Status
from app.engine.state import game_from_state, state_of
from app.store.answers import ANSWER_LIFETIME_S, MemoryAnswers
from app.store.attempts import (
    LEADERBOARD_SIZE,
    Attempt,
    AttemptRow,
    AttemptUnfinished,
    Leaderboard,
    attempt_of,
    counted,
    day_text,
    new_row,
    numbered,
    progressed,
    stopped,
)
from app.store.base import (
    DEFAULT_MAX_GAMES_PER_PLAYER,
    DealRecord,
    GameResult,
    GameStore,
    PlayerStats,
    StoredGame,
    VersionConflict,
    clean_display_name,
    new_game_id,
    owns,
)
from app.store.deal_records import DealRow, to_record
from app.store.identity_memory import MemoryIdentities
from app.store.paces import Mark, mark_of
from app.store.race_memory import MemoryRaces
from app.store.races import AttemptUnderway
from app.store.results import kind_letters, recorded, stats_by_kind
from app.store.tables_memory import MemoryTables

T = TypeVar("T")


@dataclass(slots=True)
class _Row:
    owner: str | None
    state: dict[str, object]
    version: int
    seq: int
    updated: float
    status: Status


@dataclass(slots=True)
class _Player:
    name: str | None = None
    current: str | None = None


@dataclass(slots=True)
class _Result:
    result: GameResult
    seq: int


class MemoryStore(MemoryRaces, MemoryTables, MemoryIdentities, MemoryAnswers, GameStore):
    local_reads = True  # nothing here waits on I/O: an event loop may call it directly

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        max_games_per_player: int = DEFAULT_MAX_GAMES_PER_PLAYER,
    ) -> None:
        self.max_games_per_player = max_games_per_player
        self._lock = threading.RLock()
        self._clock = clock
        self._seq = itertools.count(1)
        self._games: dict[str, _Row] = {}
        self._players: dict[str, _Player] = {}
        self._results: dict[str, _Result] = {}
        self._deals: dict[str, DealRow] = {}
        self._daily: dict[tuple[str, str], AttemptRow] = {}
        self._daily_games: dict[str, tuple[str, str]] = {}
        self._paces: dict[str, list[Mark]] = {}
        self._rooms = {}
        self._room_of_game = {}
        self._identity_tables()
        self._table_tables()
        self._answer_tables()

    # -- games ----------------------------------------------------------------------------

    def create(self, game: Game, owner: str | None, *, player: str | None = None) -> StoredGame:
        game_id = new_game_id()
        who = owner or player
        dealt = self.dealt_day(game.code) if who is not None else None
        with self._lock:
            if who is not None and dealt is not None:
                self._deal_day(dealt, who, game_id, game)
            self._games[game_id] = _Row(owner, state_of(game), 1, next(self._seq), self._clock(), game.status)
            if owner is not None:
                self._make_current(owner, game_id)
                self._bound(owner, game_id)
        return StoredGame(game_id, owner, game.copy(), 1)

    def _new_game(self, game: Game, owner: str, game_id: str) -> None:
        """A racer's game (the lock held): as :meth:`create`, with the id the race chose."""
        dealt = self.dealt_day(game.code)
        if dealt is not None:
            try:
                self._deal_day(dealt, owner, game_id, game)
            except AttemptUnfinished as refused:
                raise AttemptUnderway(refused.day, refused.game_id) from None
        self._games[game_id] = _Row(owner, state_of(game), 1, next(self._seq), self._clock(), game.status)
        self._make_current(owner, game_id)
        self._bound(owner, game_id)

    def _deal_day(self, dealt: tuple[dt.date, bool], player: str, game_id: str, game: Game) -> None:
        """A game of a day's deal about to be kept (the lock held): the player's game of that
        day if they have none; refused while their ranked attempt at it is under way."""
        day, late = dealt
        key = (day_text(day), player)
        row = self._daily.get(key)
        if row is None:
            self._daily[key] = new_row(day, player, game_id, game, late=late, now=self._clock())
            self._daily_games[game_id] = key
        elif not row.late and not row.ended and row.game_id in self._games:
            raise AttemptUnfinished(day, row.game_id)

    def _game(self, game_id: str) -> Game | None:
        row = self._games.get(game_id)
        return game_from_state(row.state) if row is not None else None

    def _display(self, player: str) -> str | None:
        found = self._players.get(player)
        return found.name if found is not None else None

    def _bound(self, owner: str, keep: str) -> None:
        """Remove the owner's oldest games beyond the bound (not won first), results recorded."""
        if self.max_games_per_player <= 0:
            return
        mine = [
            (row.status is Status.WON, row.seq, game_id)
            for game_id, row in self._games.items()
            if row.owner == owner and game_id != keep
        ]
        excess = len(mine) + 1 - self.max_games_per_player
        for _, _, game_id in sorted(mine)[: max(0, excess)]:
            self._record_by_id(game_id)
            del self._games[game_id]

    def get(self, game_id: str) -> StoredGame | None:
        with self._lock:
            row = self._games.get(game_id)
            if row is None:
                return None
            owner, state, version = row.owner, row.state, row.version
        return StoredGame(game_id, owner, game_from_state(state), version)

    def save(self, stored: StoredGame, game: Game) -> StoredGame:
        with self._lock:
            row = self._games.get(stored.id)
            if row is None or row.version != stored.version:
                raise VersionConflict(stored.id)
            row.state, row.version, row.updated = state_of(game), stored.version + 1, self._clock()
            row.status = game.status
            self._progress(stored.id, game)
            if row.status is not Status.PLAYING:
                self._record(stored.id, row, game)
        return StoredGame(stored.id, stored.owner, game.copy(), stored.version + 1)

    def update(
        self, game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        with self._lock:  # reentrant: get and save take it again
            stored = self.get(game_id)
            if stored is None or not owns(stored, owned_by):
                return None
            game = stored.game.copy()
            value = change(game)
            return self.save(stored, game), value

    async def aupdate(
        self, game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        return self.update(game_id, change, owned_by=owned_by)

    def current(self, owner: str) -> StoredGame | None:
        with self._lock:
            player = self._players.get(owner)
            game_id = player.current if player is not None else None
        return self.get(game_id) if game_id is not None else None

    def find(self, owner: str, code: GameCode) -> StoredGame | None:
        text = code.text()
        with self._lock:
            found = [
                game_id
                for game_id, row in self._games.items()
                if row.owner == owner and row.state["code"] == text
            ]
        return self.get(found[-1]) if found else None

    def set_current(self, owner: str, game_id: str) -> None:
        with self._lock:
            row = self._games.get(game_id)
            if row is not None and row.owner == owner:
                self._make_current(owner, game_id)

    def _make_current(self, owner: str, game_id: str) -> None:
        player = self._players.setdefault(owner, _Player())
        previous, player.current = player.current, game_id
        if previous is not None and previous != game_id:
            self._record_by_id(previous)

    # -- results and records --------------------------------------------------------------

    def record_result(self, game_id: str) -> GameResult | None:
        with self._lock:
            return self._record_by_id(game_id)

    def _record_by_id(self, game_id: str) -> GameResult | None:
        row = self._games.get(game_id)
        if row is None:
            return None
        return self._record(game_id, row, game_from_state(row.state))

    def _record(self, game_id: str, row: _Row, game: Game) -> GameResult | None:
        previous = self._results.get(game_id)
        result = recorded(
            game_id, row.owner, game, previous.result if previous else None,
            lambda code: self._deals.setdefault(code, DealRow(code)), self._clock(),
        )  # fmt: skip
        if result is not None:
            self._results[game_id] = _Result(result, row.seq)
        return result

    def _in_play(self, game_id: str) -> bool:
        """Whether the game is kept and still under way: one left unfinished counts in the
        statistics only once it cannot be taken up again (docs/store.md)."""
        row = self._games.get(game_id)
        return row is not None and row.status is Status.PLAYING

    def result(self, game_id: str) -> GameResult | None:
        with self._lock:
            found = self._results.get(game_id)
        return found.result if found is not None else None

    def recent_results(self, player: str, limit: int) -> list[GameResult]:
        with self._lock:
            mine = [r for r in self._results.values() if r.result.player == player]
        mine.sort(key=lambda r: (r.result.at, r.seq), reverse=True)
        return [r.result for r in mine[:limit]]

    def deal_record(self, code: GameCode) -> DealRecord | None:
        with self._lock:
            row = self._deals.get(code.text())
            return to_record(row, self._name_of) if row is not None else None

    def _name_of(self, player: str | None) -> str | None:
        found = self._players.get(player) if player is not None else None
        return found.name if found is not None else None

    def player_stats(self, player: str) -> list[PlayerStats]:
        with self._lock:
            mine = sorted(
                (
                    r
                    for game_id, r in self._results.items()
                    if r.result.player == player and not self._in_play(game_id)
                ),
                key=lambda r: r.seq,
            )
        return stats_by_kind(
            (
                kind_letters(GameCode.parse(r.result.code)),
                r.result.won,
                r.result.score,
                r.result.longest_run,
                r.result.seconds,
            )
            for r in mine
        )

    # -- players --------------------------------------------------------------------------

    def display_name(self, player: str) -> str | None:
        with self._lock:
            return self._name_of(player)

    def set_display_name(self, player: str, name: str | None) -> str | None:
        cleaned = clean_display_name(name) if name is not None and name.strip() else None
        with self._lock:
            self._players.setdefault(player, _Player()).name = cleaned
        return cleaned

    # -- the daily challenge --------------------------------------------------------------

    def now(self) -> float:
        return self._clock()

    def begin_attempt(self, day: dt.date, player: str, stored: StoredGame, *, late: bool) -> bool:
        key = (day_text(day), player)
        with self._lock:
            if key in self._daily:
                return False
            self._daily[key] = new_row(day, player, stored.id, stored.game, late=late, now=self._clock())
            self._daily_games[stored.id] = key
            return True

    def end_attempt(self, day: dt.date, player: str) -> bool:
        with self._lock:
            key = (day_text(day), player)
            row = self._daily.get(key)
            ended = stopped(row, self._clock()) if row is not None else None
            if ended is not None:
                self._daily[key] = ended
            return ended is not None

    def _progress(self, game_id: str, game: Game) -> None:
        key = self._daily_games.get(game_id)
        if key is not None:
            old, now = self._daily[key], self._clock()
            changed = progressed(old, game, now)
            if changed is not None:
                self._daily[key] = changed
                mark = mark_of(old, changed, game, now)
                if mark is not None:
                    self._paces.setdefault(game_id, []).append(mark)

    def _ordered(self, day: dt.date, over: bool) -> list[AttemptRow]:
        text = day_text(day)
        rows = [r for (d, _), r in self._daily.items() if d == text and counted(r, over)]
        return sorted(rows, key=lambda r: (r.board_key, r.at))

    def attempt(self, day: dt.date, player: str) -> Attempt | None:
        over = self.day_over(day)
        with self._lock:
            row = self._daily.get((day_text(day), player))
            if row is None:
                return None
            rank = None
            if counted(row, over) and row.plausible:
                rank = 1 + sum(
                    1
                    for r in self._ordered(day, over)
                    if r.plausible and (r.board_key, r.at) < (row.board_key, row.at)
                )
            return attempt_of(row, self._name_of(player), rank)

    def leaderboard(self, day: dt.date, limit: int = LEADERBOARD_SIZE) -> Leaderboard:
        over = self.day_over(day)
        with self._lock:
            ordered = self._ordered(day, over)
            rows = numbered((row, self._name_of(row.player)) for row in ordered[:limit])
            return Leaderboard(day, rows, sum(1 for r in ordered if r.plausible), over)

    def player_days(self, player: str) -> list[Attempt]:
        with self._lock:
            mine = [r for (_, p), r in self._daily.items() if p == player]
        return [attempt_of(r, None) for r in sorted(mine, key=lambda r: r.day)]

    def pace(self, game_id: str) -> list[Mark]:
        with self._lock:
            return list(self._paces.get(game_id, ()))

    # -- cleanup --------------------------------------------------------------------------

    def cleanup_idle(self, older_than: dt.timedelta) -> int:
        self.forget_answers(self._clock() - ANSWER_LIFETIME_S)
        with self._lock:
            cutoff = self._clock() - older_than.total_seconds()
            idle = [
                game_id
                for game_id, row in self._games.items()
                if row.updated < cutoff and row.status is not Status.WON
            ]
            for game_id in idle:
                self._record_by_id(game_id)
                row = self._games.pop(game_id)
                player = self._players.get(row.owner) if row.owner is not None else None
                if player is not None and player.current == game_id:
                    player.current = None
            owners = {row.owner for row in self._games.values()}
            result_players = {r.result.player for r in self._results.values()}
            for player_id, player in list(self._players.items()):
                if (
                    player.name is None
                    and player.current is None
                    and player_id not in owners
                    and player_id not in result_players
                ):
                    del self._players[player_id]
        return len(idle)
