"""Results, deal records and statistics in SQL: recorded inside the caller's transaction, read on their own.

This module owns the rules' SQL side: :func:`record` writes (or improves) a game's result and
its deal's record in the transaction of the write that ended or left the game, with the rows
locked game → deal (so writers never deadlock, and of several games winning one deal at
once exactly one is the first winner). The rules themselves (what improves, which feats)
are :mod:`app.store.base` and :mod:`app.store.deal_records`, shared with the memory store.
"""

from __future__ import annotations

import json
from typing import Any

from app.engine import Game, GameCode
from app.engine.state import game_from_state
from app.store.base import (
    DealRecord,
    GameResult,
    PlayerStats,
)
from app.store.database.queries import (
    DEAL,
    DEAL_TO_RECORD,
    GAME_TO_RECORD,
    HOLDER_NAMES,
    INSERT_RESULT,
    NEW_DEAL,
    PLAYER_RESULTS,
    RECENT_RESULTS,
    RESULT,
    SAVE_DEAL,
    UPDATE_RESULT,
    Db,
    run,
)
from app.store.database.schema import DEAL_FIELDS
from app.store.deal_records import DealRow, epoch_to_datetime, feats_from_text, feats_text, to_record
from app.store.results import kind_letters, recorded, stats_by_kind


def record(db: Db, game_id: str, game: Game | None, now: float) -> GameResult | None:
    """Record (or improve) a game's result and its deal's record, in the caller's transaction.

    ``game`` is the game as just saved, or ``None`` to read it (a game left or removed).
    Returns the result when this recorded or improved it.
    """
    row = run(db, GAME_TO_RECORD, {"b_id": game_id}).fetchone()
    if row is None:
        return None
    seq, owner, state = row
    if game is None:
        game = game_from_state(json.loads(state))
    previous = result(db, game_id)
    deals: list[DealRow] = []

    def locked_deal(code: str) -> DealRow:
        run(db, NEW_DEAL, {"b_code": code})
        found = run(db, DEAL_TO_RECORD, {"b_code": code}).fetchone()
        deals.append(DealRow(code, **dict(zip(DEAL_FIELDS, found, strict=True))))
        return deals[-1]

    new = recorded(game_id, owner, game, previous, locked_deal, now)
    if new is None:
        return None
    (deal,) = deals
    run(db, SAVE_DEAL, {"b_code": deal.code, **{"b_" + name: getattr(deal, name) for name in DEAL_FIELDS}})
    values = {
        "b_game_id": game_id,
        "b_won": new.won,
        "b_score": new.score,
        "b_cards_left": new.cards_left,
        "b_moves": new.moves,
        "b_feats": feats_text(new.feats),
        "b_at": now,
        "b_line": new.line,
        "b_longest_run": new.longest_run,
        "b_seconds": new.seconds,
    }
    if previous is None:
        values.update(b_game_seq=seq, b_player=owner, b_code=new.code, b_rules=kind_letters(game.code))
        run(db, INSERT_RESULT, values)
    else:
        run(db, UPDATE_RESULT, values)
    return new


def result(db: Db, game_id: str) -> GameResult | None:
    """The game's recorded result, or ``None``."""
    row = run(db, RESULT, {"b_id": game_id}).fetchone()
    return _result_of(row) if row is not None else None


def recent_results(db: Db, player: str, limit: int) -> list[GameResult]:
    rows = run(db, RECENT_RESULTS, {"b_player": player, "b_limit": limit}).fetchall()
    return [_result_of(row) for row in rows]


def deal_record(db: Db, code: GameCode) -> DealRecord | None:
    """The deal's record, its holders named as they are called now."""
    text = code.text()
    found = run(db, DEAL, {"b_code": text}).fetchone()
    if found is None:
        return None
    row = DealRow(text, **dict(zip(DEAL_FIELDS, found, strict=True)))
    first, best, unfinished = holders = (row.first_player, row.best_player, row.unfinished_player)
    names: dict[str, str | None] = {}
    if any(holders):
        params = {"b_first": first, "b_best": best, "b_unfinished": unfinished}
        names = dict(run(db, HOLDER_NAMES, params).fetchall())
    return to_record(row, lambda player: names.get(player) if player is not None else None)


def player_stats(db: Db, player: str) -> list[PlayerStats]:
    """The player's statistics per rule set and variants, from their results in game order."""
    return stats_by_kind(run(db, PLAYER_RESULTS, {"b_player": player}).fetchall())


def _result_of(row: Any) -> GameResult:
    """A result from a row of :data:`app.store.database.queries.RESULT_COLUMNS`."""
    found_id, player, code, won, score, cards_left, moves, feats, at, longest_run, seconds, line = row
    return GameResult(
        found_id, player, code, bool(won), score, cards_left, moves, feats_from_text(feats),
        epoch_to_datetime(at), longest_run, seconds, line,
    )  # fmt: skip
