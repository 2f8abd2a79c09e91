"""A player's daily streaks (days in a row with a ranked attempt ended, and won), as the daily's
board, Statistics, the API and "Download my data" give them."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.store import GameStore
from app.store.attempts import Streaks, streaks
from app.web.presentation.daily.days import today


class StreaksOut(BaseModel):
    current: int = Field(
        description="Consecutive days, up to today or yesterday, with a ranked attempt ended"
    )
    longest: int
    current_won: int = Field(description="The same, counting days won")
    longest_won: int


def streaks_out(found: Streaks) -> StreaksOut:
    return StreaksOut(
        current=found.current,
        longest=found.longest,
        current_won=found.current_won,
        longest_won=found.longest_won,
    )


def player_streaks(store: GameStore, player: str) -> Streaks:
    return streaks(store.player_days(player), today())
