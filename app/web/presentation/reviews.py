"""A game's review as other pages show it: the replay's URL, a deal's difficulty in words, the
record holder's review (the game page's record line) and the player's recent games (Statistics).
The replay page itself is ``app/web/routes/replay.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from app.engine import GameCode
from app.engine.line import Line
from app.engine.search.review import Difficulty
from app.i18n import current_locale
from app.store import GameStore
from app.store.base import GameResult

RECENT_GAMES: Final = 10


def replay_url(code: GameCode | str, line: Line | str, step: int | None = None, reveal: bool = False) -> str:
    """``/replay/<code>/<line>`` (``/replay/<code>`` for the empty line), with its query."""
    code_text = code.text() if isinstance(code, GameCode) else code
    line_text = line.text() if isinstance(line, Line) else line
    url = f"/replay/{code_text}/{line_text}" if line_text else f"/replay/{code_text}"
    query = [f"step={step}"] if step is not None else []
    if reveal:
        query.append("reveal=1")
    return url + ("?" + "&".join(query) if query else "")


def difficulty_word(difficulty: Difficulty) -> str:
    words = current_locale()
    return {
        Difficulty.EASY: words.pgettext("difficulty", "Easy"),
        Difficulty.MEDIUM: words.pgettext("difficulty", "Medium"),
        Difficulty.HARD: words.pgettext("difficulty", "Hard"),
        Difficulty.EXPERT: words.pgettext("difficulty", "Expert"),
        Difficulty.IMPOSSIBLE: words.pgettext("difficulty", "Impossible"),
    }[difficulty]


def record_review(store: GameStore, code: GameCode) -> str | None:
    """The replay link of the deal's record holder's game, or ``None`` (no record, or no line kept)."""
    record = store.deal_record(code)
    if record is None or record.best_holder is None:
        return None
    result = store.result(record.best_holder.game_id)
    if result is None or not result.won:
        return None
    return replay_url(code, result.line)


@dataclass(frozen=True, slots=True)
class RecentGame:
    result: GameResult
    url: str


def recent_games(store: GameStore, player: str) -> list[RecentGame]:
    """The player's latest finished games (won or blocked or left), newest first, with their reviews."""
    return [RecentGame(r, replay_url(r.code, r.line)) for r in store.recent_results(player, RECENT_GAMES)]
