"""The choice a player gets instead of a practice game while their ranked attempt is under way.

A new game of the day's deal (Restart, the New game window with its code, today's daily page
when the attempt is played elsewhere) would be practice with the attempt's cards seen before it
ends; the store refuses it (:class:`~app.store.attempts.AttemptUnfinished`). The page says so
and offers the two ways on, as forms (no JavaScript needed, each a button reached by Tab):
keep playing the attempt (its game taken up again: ``/games/<id>/resume``), or end it as it
stands and then play the deal (the same request again, with ``end_attempt=true``).
``templates/daily_attempt.html``: a page of its own, or for htmx its ``choice`` block in the
place of the game (``#game``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response

from app.i18n import N_, current_locale
from app.store import GameStore
from app.store.attempts import AttemptUnfinished
from app.web.presentation.daily.days import date_words
from app.web.presentation.render import Pages, is_htmx

UNFINISHED: Final = N_("Your ranked attempt at today's daily deal is not finished: play it, or end it first.")
"""The store's refusal (:class:`AttemptUnfinished`, in English there), as the catalogs know it:
the API's 409 and a race's refused seat say it in the player's language."""
PAGE: Final = "daily_attempt.html"


def attempt_choice(
    request: Request,
    pages: Pages,
    store: GameStore,
    player: str,
    refused: AttemptUnfinished,
    action: str,
    fields: Sequence[tuple[str, str]] = (),
) -> Response:
    """The choice (409: nothing was dealt). ``action`` and ``fields``: the request refused, made
    again (with ``end_attempt``) by the button that ends the attempt first."""
    game = store.get(refused.game_id)
    mine = store.attempt(refused.day, player)
    context: dict[str, Any] = {
        "request": request,
        "oob": False,
        "date_text": date_words(refused.day, current_locale().code),
        # Its game, to take up again: one of the player's own (an API game has no owner).
        "attempt_id": game.id if game is not None and game.owner == player else None,
        "score": mine.score if mine is not None else None,
        "acted": mine is not None and mine.last_action is not None,
        "action": action,
        "fields": list(fields),
        "oob_skip": False,
    }
    if is_htmx(request):  # in the game's place, the skip link leading to it (out of band)
        context["oob_skip"] = True
        return pages.blocks(PAGE, ["choice"], context, status_code=409, headers={"Vary": "HX-Request"})
    return pages.page(PAGE, context, status_code=409)
