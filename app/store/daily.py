"""The daily challenge in SQL: a day's attempts, written in the caller's transaction, read on their own.

* :func:`begin`: ``INSERT … ON CONFLICT DO NOTHING`` on (``day``, ``player``): of two tabs
  or two servers beginning a player's game of a day at once, exactly one becomes the
  attempt, the other is practice.
* :func:`progress`: in the transaction of every save (the game's row locked), the attempt
  of that game, if it is one, follows it (:func:`app.store.attempts.progressed`).
* :func:`leaderboard`, :func:`attempt`: index ranges of ``tp_daily_board`` (the first 100
  in order; a rank is a count of the rows before it).

The rules are :mod:`app.store.attempts` and :mod:`app.store.ranking`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

from sqlalchemy import bindparam, false, func, select, true, tuple_, update

from app.engine import Game
from app.store.attempts import (
    FIELDS,
    LEADERBOARD_SIZE,
    UNRANKED_KEY,
    Attempt,
    AttemptRow,
    Leaderboard,
    attempt_of,
    counted,
    day_text,
    progressed,
)
from app.store.queries import Db, insert_ignore, run
from app.store.schema import daily, players

_COLUMNS: Final = tuple(daily.c[name] for name in FIELDS)
_INSERT: Final = insert_ignore(daily, **{name: bindparam("b_" + name) for name in FIELDS})
BEGIN = {  # RETURNING: psycopg's rowcount of an INSERT … ON CONFLICT is not to be relied on
    dialect: statement.returning(daily.c.game_id) for dialect, statement in _INSERT.items()
}
BY_GAME = select(*_COLUMNS).where(daily.c.game_id == bindparam("b_game_id"))
_CHANGING: Final = tuple(
    n for n in FIELDS if n not in ("day", "player", "game_id", "code", "late", "started")
)
PROGRESS = (
    update(daily)
    .where(daily.c.game_id == bindparam("b_game_id"))
    .values({name: bindparam("b_" + name) for name in _CHANGING})
)
_NAMED: Final = (*_COLUMNS, players.c.display_name)
_DAY = (daily.c.day == bindparam("b_day")) & (daily.c.late == false())
OWN = (
    select(*_NAMED)
    .outerjoin(players, players.c.id == daily.c.player)
    .where(daily.c.day == bindparam("b_day"), daily.c.player == bindparam("b_player"))
)
PLAYER_DAYS = select(*_COLUMNS).where(daily.c.player == bindparam("b_player")).order_by(daily.c.day)


def _board(over: bool) -> Any:
    where = _DAY if over else _DAY & (daily.c.ended == true())
    return (
        select(*_NAMED)
        .outerjoin(players, players.c.id == daily.c.player)
        .where(where)
        .order_by(daily.c.board_key, daily.c.at)
        .limit(bindparam("b_limit"))
    )


def _count(over: bool, before: bool) -> Any:
    where = _DAY & (daily.c.board_key < UNRANKED_KEY)
    if not over:
        where = where & (daily.c.ended == true())
    if before:
        where = where & (
            tuple_(daily.c.board_key, daily.c.at) < tuple_(bindparam("b_key"), bindparam("b_at"))
        )
    return select(func.count()).select_from(daily).where(where)


BOARD: Final = {over: _board(over) for over in (False, True)}
RANKED: Final = {over: _count(over, before=False) for over in (False, True)}
BEFORE: Final = {over: _count(over, before=True) for over in (False, True)}


def _row(values: Any) -> AttemptRow:
    return AttemptRow(**dict(zip(FIELDS, values[: len(FIELDS)], strict=True)))


def begin(db: Db, row: AttemptRow) -> bool:
    """Keep ``row`` unless the player has a game of that day already: whether it was kept."""
    return run(db, BEGIN, {"b_" + name: getattr(row, name) for name in FIELDS}).fetchone() is not None


def progress(db: Db, game_id: str, game: Game, now: float) -> None:
    """The attempt of this game (if it is one) follows the save just made."""
    found = run(db, BY_GAME, {"b_game_id": game_id}).fetchone()
    if found is None:
        return
    changed = progressed(_row(found), game, now)
    if changed is not None:
        run(db, PROGRESS, {"b_" + name: getattr(changed, name) for name in ("game_id", *_CHANGING)})


def attempt(db: Db, day: dt.date, player: str, over: bool) -> Attempt | None:
    """The player's game of ``day``, ranked when it counts and is plausible."""
    found = run(db, OWN, {"b_day": day_text(day), "b_player": player}).fetchone()
    if found is None:
        return None
    row = _row(found)
    rank = None
    if counted(row, over) and row.plausible:
        params = {"b_day": row.day, "b_key": row.board_key, "b_at": row.at}
        rank = int(run(db, BEFORE[over], params).fetchone()[0]) + 1
    return attempt_of(row, found[-1], rank)


def leaderboard(db: Db, day: dt.date, over: bool, limit: int = LEADERBOARD_SIZE) -> Leaderboard:
    """The day's first ``limit`` attempts in order, and how many are ranked."""
    found = run(db, BOARD[over], {"b_day": day_text(day), "b_limit": limit}).fetchall()
    rows = []
    rank = 0
    for values in found:
        row = _row(values)
        if row.plausible:
            rank += 1
        rows.append(attempt_of(row, values[-1], rank if row.plausible else None))
    (ranked,) = run(db, RANKED[over], {"b_day": day_text(day)}).fetchone()
    return Leaderboard(day, rows, int(ranked), over)


def player_days(db: Db, player: str) -> list[Attempt]:
    """Every day's game of the player, the earliest first (their calendar and streaks)."""
    return [
        attempt_of(_row(values), None) for values in run(db, PLAYER_DAYS, {"b_player": player}).fetchall()
    ]
