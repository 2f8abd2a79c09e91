"""The daily challenge in SQL: a day's attempts, written in the caller's transaction, read on their own.

* :func:`begin`: ``INSERT … ON CONFLICT DO NOTHING`` on (``day``, ``player``): of two tabs
  or two servers beginning a player's game of a day at once, exactly one becomes the
  attempt, the other is practice. :func:`deal`, in the transaction that deals a game of the
  day's deal: the same, and a refusal while the ranked attempt is under way (the insert
  that lost waits for the one that won to commit, then reads it).
* :func:`end`: the player ends their ranked attempt as it stands (its row locked).
* :func:`progress`: in the transaction of every save (the game's row locked), the attempt
  of that game, if it is one, follows it (:func:`app.store.attempts.progressed`).
* :func:`leaderboard`, :func:`attempt`: the first 100 in order (an index range of
  ``tp_daily_board``, :func:`board`), ranks and counts, from the day's order and
  leaderboard kept in the process (:mod:`app.store.orders`, loaded by :func:`order`, one
  scan of that index, and :func:`board`).

The rules are :mod:`app.store.attempts` and :mod:`app.store.ranking`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any, Final

from sqlalchemy import bindparam, false, literal_column, select, true, update

from app.engine import Game
from app.store.attempts import (
    FIELDS,
    LEADERBOARD_SIZE,
    UNRANKED_KEY,
    Attempt,
    AttemptRow,
    AttemptUnfinished,
    Leaderboard,
    attempt_of,
    day_text,
    numbered,
    progressed,
    stopped,
)
from app.store.database.queries import Db, insert_ignore, run
from app.store.database.schema import daily, daily_pace, games, players
from app.store.orders import DayOrders, Key, key_of
from app.store.paces import Mark, mark_of

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
UNFINISHED = (
    select(daily.c.game_id)
    .join(games, games.c.id == daily.c.game_id)
    .where(
        daily.c.day == bindparam("b_day"),
        daily.c.player == bindparam("b_player"),
        daily.c.late == false(),
        daily.c.ended == false(),
    )
)
"""The player's ranked attempt of a day while it is under way (and its game still kept)."""
OWN_TO_END = (
    select(*_COLUMNS)
    .where(daily.c.day == bindparam("b_day"), daily.c.player == bindparam("b_player"))
    .with_for_update()
)
_NAMED: Final = (*_COLUMNS, players.c.display_name)
# Counted: ranked, with an action (app.store.attempts.counted).
_DAY = (daily.c.day == bindparam("b_day")) & (daily.c.late == false()) & daily.c.last_action.is_not(None)
OWN = (
    select(*_NAMED)
    .outerjoin(players, players.c.id == daily.c.player)
    .where(daily.c.day == bindparam("b_day"), daily.c.player == bindparam("b_player"))
)
_MARK_FIELDS: Final = ("game_id", "n", "after", "cards_left", "score", "stock_left")
MARK = insert_ignore(daily_pace, **{name: bindparam("b_" + name) for name in _MARK_FIELDS})
PACE = (
    select(*(daily_pace.c[name] for name in _MARK_FIELDS[1:]))
    .where(daily_pace.c.game_id == bindparam("b_game_id"))
    .order_by(daily_pace.c.n)
)
PLAYER_DAYS = select(*_COLUMNS).where(daily.c.player == bindparam("b_player")).order_by(daily.c.day)


def _board(over: bool) -> Any:
    where = _DAY if over else _DAY & (daily.c.ended == true())
    return (
        select(*_NAMED)
        .outerjoin(players, players.c.id == daily.c.player)
        .where(where)
        .order_by(daily.c.board_key, daily.c.at)
        # A literal, not a parameter: PostgreSQL's generic plan of a prepared statement with
        # an unknown LIMIT sorted the whole day (10 ms) where the index gives 100 rows.
        .limit(literal_column(str(LEADERBOARD_SIZE)))
    )


BOARD: Final = {over: _board(over) for over in (False, True)}


def _order(over: bool) -> Any:
    where = _DAY & (daily.c.board_key < UNRANKED_KEY)
    if not over:
        where = where & (daily.c.ended == true())
    return select(daily.c.board_key, daily.c.at).where(where).order_by(daily.c.board_key, daily.c.at)


ORDER: Final = {over: _order(over) for over in (False, True)}


def _row(values: Any) -> AttemptRow:
    return AttemptRow(**dict(zip(FIELDS, values[: len(FIELDS)], strict=True)))


def begin(db: Db, row: AttemptRow) -> bool:
    """Keep ``row`` unless the player has a game of that day already: whether it was kept."""
    return run(db, BEGIN, {"b_" + name: getattr(row, name) for name in FIELDS}).fetchone() is not None


def deal(db: Db, row: AttemptRow) -> bool:
    """In the transaction that deals ``row``'s game: keep ``row`` unless the player has a game
    of that day already (whether it was kept); :class:`AttemptUnfinished` while their ranked
    attempt at it is under way (the caller's transaction is then rolled back: nothing dealt)."""
    if begin(db, row):
        return True
    if not row.late:
        found = run(db, UNFINISHED, {"b_day": row.day, "b_player": row.player}).fetchone()
        if found is not None:
            raise AttemptUnfinished(dt.date.fromisoformat(row.day), found[0])
    return False


def end(db: Db, day: dt.date, player: str, now: float) -> tuple[AttemptRow, AttemptRow] | None:
    """End the player's ranked attempt of ``day`` as it stands: the row before and after (for
    :meth:`DayOrders.apply` once committed), or ``None`` when there was none under way."""
    found = run(db, OWN_TO_END, {"b_day": day_text(day), "b_player": player}).fetchone()
    if found is None:
        return None
    old = _row(found)
    changed = stopped(old, now)
    if changed is None:
        return None
    run(db, PROGRESS, {"b_" + name: getattr(changed, name) for name in ("game_id", *_CHANGING)})
    return old, changed


def progress(db: Db, game_id: str, game: Game, now: float) -> tuple[AttemptRow, AttemptRow] | None:
    """The attempt of this game (if it is one) follows the save just made: the row before
    and after (for :meth:`DayOrders.apply` once committed), or ``None``."""
    found = run(db, BY_GAME, {"b_game_id": game_id}).fetchone()
    if found is None:
        return None
    old = _row(found)
    changed = progressed(old, game, now)
    if changed is None:
        return None
    run(db, PROGRESS, {"b_" + name: getattr(changed, name) for name in ("game_id", *_CHANGING)})
    mark = mark_of(old, changed, game, now)
    if mark is not None:  # its pace (app.store.paces)
        run(db, MARK, {"b_game_id": game_id, **{"b_" + k: v for k, v in dataclasses.asdict(mark).items()}})
    return old, changed


def pace(db: Db, game_id: str) -> list[Mark]:
    """The pace of the attempt played in ``game_id`` (:mod:`app.store.paces`), in order."""
    return [Mark(*values) for values in run(db, PACE, {"b_game_id": game_id}).fetchall()]


def order(db: Db, day: str, over: bool) -> list[Key]:
    """The day view's ranked attempts in order (for :class:`DayOrders`)."""
    return list(map(tuple, run(db, ORDER[over], {"b_day": day}).fetchall()))  # in C: no pause


def attempt(db: Db, day: dt.date, player: str, over: bool, orders: DayOrders) -> Attempt | None:
    """The player's game of ``day``, ranked when it counts and is plausible."""
    found = run(db, OWN, {"b_day": day_text(day), "b_player": player}).fetchone()
    if found is None:
        return None
    row = _row(found)
    key = key_of(row, over)
    rank = orders.rank((row.day, over), key) if key is not None else None
    return attempt_of(row, found[-1], rank)


def board(db: Db, day: str, over: bool) -> list[Attempt]:
    """The day view's first :data:`LEADERBOARD_SIZE` attempts in order, numbered and named
    (for :class:`DayOrders`)."""
    return numbered((_row(values), values[-1]) for values in run(db, BOARD[over], {"b_day": day}))


def leaderboard(day: dt.date, over: bool, orders: DayOrders, limit: int = LEADERBOARD_SIZE) -> Leaderboard:
    """The day's first ``limit`` attempts in order (at most :data:`LEADERBOARD_SIZE`), and
    how many are ranked: both held by ``orders`` (read from the database when not held)."""
    view = (day_text(day), over)
    return Leaderboard(day, orders.board(view)[:limit], orders.ranked(view), over)


def player_days(db: Db, player: str) -> list[Attempt]:
    """Every day's game of the player, the earliest first (their calendar and streaks)."""
    return [
        attempt_of(_row(values), None) for values in run(db, PLAYER_DAYS, {"b_player": player}).fetchall()
    ]
