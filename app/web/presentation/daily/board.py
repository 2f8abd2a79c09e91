"""The day's board: the leaderboard, where the player stands, their result against par, their
streaks and the text to share (``templates/daily_board.html``, shown in the game page's
result box once the attempt has ended, and as a page of its own).

Before the player's attempt has ended and before the day is over, none of it is shown:
only the date, the difficulty and the streaks.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi import Request

from app.engine import Game, GameCode
from app.engine.search.daily import band
from app.i18n import current_locale
from app.store import GameStore
from app.store.attempts import Attempt
from app.web.presentation.clock import clock_text
from app.web.presentation.daily.calendar import state_words
from app.web.presentation.daily.days import (
    board_open,
    code_of,
    daily_key,
    date_words,
    peaks_marks,
    short_date,
    shown_par,
    standing_words,
    today,
)
from app.web.presentation.daily.ghost import run_refs
from app.web.presentation.daily.streaks import player_streaks
from app.web.presentation.reviews import difficulty_word


def outcome_words(attempt: Attempt) -> str:
    """ "won", "blocked" or "unfinished", in the page's language (the calendar's words)."""
    return state_words(attempt.outcome)


def attempt_marks(store: GameStore, attempt: Attempt) -> str:
    """▲ for each peak the attempt cleared, △ for each not: as the attempt left them (its
    game may have been played on since, as practice); from its game for a row kept before
    attempts kept their peaks."""
    if attempt.peaks is None:
        stored = store.get(attempt.game_id)
        return peaks_marks(stored.game) if stored is not None else ""
    count = len(Game(GameCode.parse(attempt.code)).peaks_cleared)
    return "".join("▲" if attempt.peaks >> i & 1 else "△" for i in range(count))


def share_text(store: GameStore, attempt: Attempt, par: int | None, url: str) -> str:
    """ "TriPeaks daily · Thu 3 Dec 2026 · hard · won ▲▲▲ · 741 / 752 · 4:12 · no hints" and
    the link: no card in it."""
    words = current_locale()
    marks = attempt_marks(store, attempt)
    hints = (
        words.ngettext("%(num)d hint", "%(num)d hints", attempt.hints) % {"num": attempt.hints}
        if attempt.hints
        else words.gettext("no hints")
    )
    parts = [
        words.gettext("TriPeaks daily"),
        short_date(attempt.date, words.code),
        difficulty_word(band(attempt.date)).lower(),
        outcome_words(attempt) + (f" {marks}" if marks else ""),
        f"{attempt.score} / {par}" if par is not None else str(attempt.score),
    ]
    if attempt.seconds is not None:
        parts.append(clock_text(attempt.seconds))
    parts.append(hints)
    return " · ".join(parts) + "\n" + url


def board_context(request: Request, store: GameStore, player: str, day: dt.date) -> dict[str, Any]:
    """What ``daily_board.html`` shows of ``day`` to ``player``."""
    words = current_locale()
    code = code_of(daily_key(request), day)
    mine = store.attempt(day, player)
    over = store.day_over(day)
    ranked_mine = mine if mine is not None and not mine.late else None
    opened = board_open(store, day, mine)
    board = store.leaderboard(day) if opened else None
    par = shown_par(store, player, code, day)
    context: dict[str, Any] = {
        "request": request,
        "oob": False,
        "day": day,
        "date_text": date_words(day, words.code),
        "difficulty": difficulty_word(band(day)),
        "code": code.text(),
        "is_today": day == today(),
        # A past day the player has no game of: its page offers to deal it (a form: a link
        # from elsewhere never deals a game in the player's name).
        "play_day": day != today() and store.find(player, code) is None,
        "opened": opened,
        "over": over,
        "mine": mine,
        "board": board,
        # Each row's run to beat ("Race this run", templates/_ghost.html), in the board's
        # order: only once the board is open to the player (the runs open with it).
        "run_refs": run_refs(daily_key(request), board),
        "par": par,
        "streaks": player_streaks(store, player),
        "tables": store.player_tables(player),
        "standing": None,
        "against_par": None,
        "share": None,
        "outcome_words": outcome_words,
        "clock_text": clock_text,
        "anonymous": words.gettext("Anonymous"),
    }
    if ranked_mine is not None and opened:
        if ranked_mine.rank is not None and board is not None:
            context["standing"] = standing_words(ranked_mine.rank, board.ranked)
        if par is not None:
            context["against_par"] = words.gettext("%(score)s of a possible %(par)s") % {
                "score": ranked_mine.score,
                "par": par,
            }
        url = f"{request.base_url}daily/{day.isoformat()}"
        context["share"] = share_text(store, ranked_mine, par, url)
    return context
