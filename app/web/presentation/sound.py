"""What an action sounds like: the server names it, the page plays it (``static/feel.js``).

The status line a move swaps in carries ``data-sound`` (and ``data-run`` for a card taken,
whose note rises with the run): the page holds no game logic, it plays what the server names.
With the sound switched off (the ``tp_sound`` cookie, ``0``), no sound is named at all. Sound
is on by default, as in the best solitaire apps; browsers' autoplay rules are kept anyway: a
sound is only named by the answer to an action, so nothing sounds before the first one.
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request

from app.engine import Game, Status
from app.web.middleware.player_cookie import read_cookies
from app.web.presentation.views import Event, Happened

SOUND_COOKIE: Final = "tp_sound"
SOUNDS: Final = ("take", "draw", "undo", "refused", "peak", "win", "blocked")


def sound_on(request: Request) -> bool:
    return read_cookies(request.scope).get(SOUND_COOKIE) != "0"


def sound_of(request: Request, event: Event | None, game: Game) -> str:
    """The sound of what just happened (one of :data:`SOUNDS`), or ``""``: none (a page load,
    a hint, a new deal, or the sound switched off). An ending sounds over the move that made it."""
    if event is None or not sound_on(request):
        return ""
    happened = event.happened
    if happened is Happened.REFUSED:
        return "refused"
    if happened is Happened.UNDID:
        return "undo"
    if happened is not Happened.REMOVED and happened is not Happened.DREW:
        return ""
    if game.status is Status.WON:
        return "win"
    if game.status is Status.BLOCKED:
        return "blocked"
    if happened is Happened.DREW:
        return "draw"
    return "peak" if event.peak_points else "take"
