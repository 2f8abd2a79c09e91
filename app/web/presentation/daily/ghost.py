"""The runs to beat (issue 39): a row of a day's board raced as a ghost ("Race this run").

* A run is named in URLs by its *reference* (:func:`run_ref`): an HMAC of its game's id with
  the installation's secret, 22 characters; never the game's id. It is found again among the
  day's board (the first 100, :func:`find_run`): a reference that names none of them is a 404.
* No spoilers: the runs open exactly when the day's board does (:func:`board_open`, the rule
  par and the record's line follow): once the player's ranked attempt has ended, or the day
  is over. Before, every URL of a run is a 403 that says so, and no reference is given out.
* The ghost's pace (:func:`ghost_at`): the run's actions (:mod:`app.store.paces`) on its own
  game clock, which starts at its first action; the ghost's clock starts with the player's
  first action in their game of the deal (their game clock: both start as the board's times
  do), so until then the ghost waits at the deal. ``ghost_pace`` (settings) speeds it up for
  tests; the figures and offsets are the recorded ones.
* Who is ahead: the higher score, then (on the same score) the shorter time. The lead is
  announced (politely) only when it changes hands; the finish, once both have ended, says by
  how many points, or seconds.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
from dataclasses import dataclass
from typing import Final

from fastapi import HTTPException

from app.engine import Game, Status
from app.i18n import current_locale
from app.i18n.messages import N_
from app.store import GameStore
from app.store.attempts import Attempt, Leaderboard
from app.store.paces import Mark
from app.web.presentation.clock import clock_text
from app.web.presentation.daily.days import board_open

REF_LENGTH: Final = 22
"""A run's reference: 16 bytes of HMAC-SHA256, base64url without padding."""
LOCKED: Final = N_("The runs of this day open when your attempt at it ends, or when the day is over.")
NO_RUN: Final = N_("There is no such run on this day's board.")


def run_ref(key: bytes, game_id: str) -> str:
    """The reference of the run played in ``game_id``: opaque, the same on every server."""
    digest = hmac.new(key, b"tripeaks.run:" + game_id.encode(), hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def run_refs(key: bytes, board: Leaderboard | None) -> list[str]:
    """The reference of each row of an open board, in its order (empty for none)."""
    return [run_ref(key, row.game_id) for row in board.rows] if board is not None else []


def runs_open(store: GameStore, player: str, day: dt.date) -> bool:
    """Whether ``player`` may race the runs of ``day``: exactly when the board is open to them."""
    return board_open(store, day, store.attempt(day, player))


def find_run(store: GameStore, key: bytes, player: str, day: dt.date, ref: str) -> Attempt:
    """The run of ``day``'s board that ``ref`` names, for ``player``: 403 before the runs open
    to them (:func:`runs_open`), 404 for a reference that names no row of the board."""
    words = current_locale()
    if not runs_open(store, player, day):
        raise HTTPException(403, words.gettext(LOCKED))
    if len(ref) == REF_LENGTH and ref.isascii():
        for row in store.leaderboard(day).rows:
            if hmac.compare_digest(run_ref(key, row.game_id), ref):
                return row
    raise HTTPException(404, words.gettext(NO_RUN))


@dataclass(frozen=True, slots=True)
class Figures:
    """What the strip shows of one side: cards left, score, stock (``None``: not known)."""

    cards_left: int | None
    score: int
    stock_left: int | None
    status: str
    """``waiting``, ``playing``, ``won``, ``blocked`` or ``unfinished``."""
    n: int | None = None
    """The ghost: the number of its latest action shown (``None``: none yet)."""
    after: float | None = None
    """The ghost: that action's time on the run's clock."""


def your_figures(game: Game) -> Figures:
    status = "waiting" if game.started_at is None else game.status.value
    return Figures(game.cards_left(), game.score, game.stock_count, status)


def run_end(run: Attempt, marks: list[Mark]) -> float:
    """When the run ends on its clock: its last action (else its kept time)."""
    return marks[-1].after if marks else run.seconds or 0.0


def ghost_at(run: Attempt, marks: list[Mark], deal: Game, at: float | None) -> Figures:
    """The ghost as it stands ``at`` seconds on its clock (``None``: not started)."""
    if at is None:
        return Figures(deal.cards_left(), deal.score, deal.stock_count, "waiting")
    if at >= run_end(run, marks):
        if not marks:  # a run kept before its pace was: its result alone
            return Figures(None, run.score, None, run.outcome)
        last = marks[-1]
        return Figures(last.cards_left, run.score, last.stock_left, run.outcome, last.n, last.after)
    shown = [m for m in marks if m.after <= at]
    if not shown:
        return Figures(deal.cards_left(), deal.score, deal.stock_count, "playing")
    last = shown[-1]
    return Figures(last.cards_left, last.score, last.stock_left, "playing", last.n, last.after)


def next_change(run: Attempt, marks: list[Mark], at: float) -> float | None:
    """Seconds on the ghost's clock until its next action (``None``: it has ended)."""
    later = [m.after for m in marks if m.after > at]
    if later:
        return later[0] - at
    end = run_end(run, marks)
    return end - at if end > at else None


def leader(you: int, ghost: int) -> str:
    return "you" if you > ghost else "run" if ghost > you else "level"


def lead_words(name: str, you: Figures, ghost: Figures) -> str:
    """"You lead by 35 points.", "Dana's run leads by 35 points." or "Level at 120 points."."""
    words = current_locale()
    who = leader(you.score, ghost.score)
    points = abs(you.score - ghost.score)
    if who == "you":
        return words.ngettext("You lead by %(points)s point.", "You lead by %(points)s points.", points) % {
            "points": points
        }
    if who == "run":
        text = words.ngettext(
            "%(name)s's run leads by %(points)s point.", "%(name)s's run leads by %(points)s points.", points
        )
        return text % {"name": name, "points": points}
    return words.gettext("Level at %(score)s points.") % {"score": you.score}


def finish_words(name: str, game: Game, run: Attempt) -> str:
    """Who was ahead at the finish and by how much: the higher score, then the shorter time."""
    words = current_locale()
    points = game.score - run.score
    values = {"name": name, "points": abs(points)}
    if points > 0:
        text = words.ngettext(
            "You beat %(name)s's run by %(points)s point.",
            "You beat %(name)s's run by %(points)s points.",
            points,
        )
        return text % values
    if points < 0:
        text = words.ngettext(
            "%(name)s's run beat you by %(points)s point.",
            "%(name)s's run beat you by %(points)s points.",
            -points,
        )
        return text % values
    yours, theirs = game.ended_after, run.seconds
    if yours is None or theirs is None or round(yours) == round(theirs):
        return words.gettext("A tie with %(name)s's run: the same score, and the same time.") % values
    values["time"] = clock_text(abs(yours - theirs))
    if yours < theirs:
        return words.gettext("The same score as %(name)s's run, and you were faster by %(time)s.") % values
    return words.gettext("The same score as %(name)s's run, and it was faster by %(time)s.") % values


def ended(game: Game) -> bool:
    return game.started_at is not None and game.status is not Status.PLAYING
