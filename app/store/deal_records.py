"""How a result changes its deal's record: one pure function, shared by every backend.

A backend loads the deal's row (locked against other writers), lets :func:`merge`
change it, and writes it back in the same transaction as the game's result.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from app.store.base import DealRecord, Feat, Holder


@dataclass(slots=True)
class DealRow:
    """A deal's record as stored: player ids and epoch seconds."""

    code: str
    wins: int = 0
    finished: int = 0
    first_game: str | None = None
    first_player: str | None = None
    first_score: int | None = None
    first_at: float | None = None
    best_score: int | None = None
    best_game: str | None = None
    best_player: str | None = None
    best_at: float | None = None
    unfinished_cards_left: int | None = None
    unfinished_game: str | None = None
    unfinished_player: str | None = None
    unfinished_at: float | None = None


def merge(
    row: DealRow,
    *,
    game_id: str,
    player: str | None,
    won: bool,
    score: int,
    cards_left: int,
    at: float,
    first_result: bool,
) -> frozenset[Feat]:
    """Count an improved result of one game into its deal's record; returns what it achieved.

    ``first_result`` is true when the game had no result before (it is then counted
    in ``finished``); a game that had an unfinished result and now wins is counted
    in ``wins`` only.
    """
    feats: set[Feat] = set()
    if first_result:
        row.finished += 1
    if won:
        row.wins += 1
        if row.first_game is None:
            row.first_game, row.first_player, row.first_score, row.first_at = (
                game_id,
                player,
                score,
                at,
            )
            feats.add(Feat.FIRST_WIN)
        if row.best_score is None or score > row.best_score:
            if Feat.FIRST_WIN not in feats:
                feats.add(Feat.NEW_RECORD)
            row.best_score, row.best_game, row.best_player, row.best_at = score, game_id, player, at
    elif row.unfinished_cards_left is None or cards_left < row.unfinished_cards_left:
        row.unfinished_cards_left = cards_left
        row.unfinished_game, row.unfinished_player, row.unfinished_at = game_id, player, at
        feats.add(Feat.BEST_UNFINISHED)
    return frozenset(feats)


def epoch_to_datetime(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def to_record(row: DealRow, name_of: Callable[[str | None], str | None]) -> DealRecord:
    """The record as the app shows it, with each holder's display name now."""

    def holder(player: str | None, game: str | None, at: float | None) -> Holder | None:
        if game is None or at is None:
            return None
        return Holder(player, name_of(player), game, epoch_to_datetime(at))

    return DealRecord(
        code=row.code,
        wins=row.wins,
        finished=row.finished,
        first_winner=holder(row.first_player, row.first_game, row.first_at),
        first_win_score=row.first_score,
        best_score=row.best_score,
        best_holder=holder(row.best_player, row.best_game, row.best_at),
        best_cards_left=row.unfinished_cards_left,
        best_unfinished_holder=holder(
            row.unfinished_player, row.unfinished_game, row.unfinished_at
        ),
    )


def feats_text(feats: frozenset[Feat]) -> str:
    """Feats as stored: their values, sorted, comma-separated ("" for none)."""
    return ",".join(sorted(f.value for f in feats))


def feats_from_text(text: str) -> frozenset[Feat]:
    return frozenset(Feat(v) for v in text.split(",") if v)
