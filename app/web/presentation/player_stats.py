"""A player's statistics as the JSON API gives them (``GET /api/players/me/stats``, and after a
link, a recovery or a name change) and "Download my data" writes them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.store.base import GameStore, PlayerStats
from app.web.presentation.daily.streaks import StreaksOut, player_streaks, streaks_out


class StatsOut(BaseModel):
    rules: Literal["easy", "classic"]
    layout: str = Field(default="three-peaks", description="The layout, as a new game's `layout` names it")
    variants: list[str] = Field(
        default_factory=list,
        description="The variants, as a new game's `variants` names them (empty: the standard game)",
        examples=[["open_peaks", "joker"]],
    )
    played: int
    won: int
    win_rate: float = Field(description="won / played, 0 when nothing was played")
    best_score: int | None
    current_streak: int
    longest_streak: int
    longest_run: int | None = Field(
        description="The longest run of removals without a draw in any game with a result"
    )
    fastest_win: float | None = Field(description="The fewest seconds a won game took")


class PlayerOut(BaseModel):
    display_name: str | None
    stats: list[StatsOut]
    daily: StreaksOut = Field(description="The daily challenge's streaks")


def stats_out(stats: PlayerStats) -> StatsOut:
    return StatsOut(
        rules=stats.rules.word,  # type: ignore[arg-type]
        layout=stats.layout.word,
        variants=stats.variants.words,
        played=stats.played,
        won=stats.won,
        win_rate=round(stats.win_rate, 4),
        best_score=stats.best_score,
        current_streak=stats.current_streak,
        longest_streak=stats.longest_streak,
        longest_run=stats.longest_run,
        fastest_win=stats.fastest_win,
    )


def player_out(store: GameStore, player: str) -> PlayerOut:
    """The player's name, statistics per rule set and variants (easy and classic always, then
    each rule set with variants the player has a result in) and daily streaks."""
    return PlayerOut(
        display_name=store.display_name(player),
        stats=[stats_out(s) for s in store.player_stats(player)],
        daily=streaks_out(player_streaks(store, player)),
    )
