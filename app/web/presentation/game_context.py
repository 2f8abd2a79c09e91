"""What the game page shows of a stored game (``templates/game.html``): :func:`game_context`
for the whole page and for the blocks an htmx request swaps, and the page's sentences made
from the store:

* ``record_line(record, viewer)``: the deal's record in words, before and during play ("Record:
  761 by Dana", "Nobody has won this deal yet; best: 3 cards left by you", "No record yet: be
  the first to win this deal");
* ``announcement(store, stored)``: set only on a game that has just ended when its result made
  history (first to win the deal, a new record, the best unfinished result); its ``kind`` is the
  :class:`~app.store.base.Feat` (for a CSS class).

``game_context`` blocks (it may read the store): call it from ``def`` routes, which run in
the thread pool, or through :func:`agame_context` on the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from anyio import to_thread
from fastapi import Request, Response
from markupsafe import escape

from app.engine import Game, Status
from app.i18n import current_locale
from app.store import GameStore, StoredGame
from app.store.base import DealRecord, Feat
from app.web.leaving import left_game, remember_left, under_way
from app.web.middleware.player_cookie import read_cookies
from app.web.presentation.daily.days import answers_open, daily_key, daily_view, known_day, par_open
from app.web.presentation.newgame import new_game_form, winnable_only_on
from app.web.presentation.render import Pages
from app.web.presentation.reviews import record_review
from app.web.presentation.views import Event, Happened
from app.web.solver_worker import Outlook, deal_outlook, is_proven_winnable

ERROR_HELP_COOKIE: Final = "tp_error_help"
LARGE_CARDS_COOKIE: Final = "tp_large_cards"
GAME_PAGE: Final = "game.html"
ACTION_BLOCKS: Final = ("table", "score", "moves", "run_clock", "undo", "hint", "result", "status", "words")


def error_help_on(request: Request) -> bool:
    return read_cookies(request.scope).get(ERROR_HELP_COOKIE) != "0"


def large_cards_on(request: Request) -> bool:
    return read_cookies(request.scope).get(LARGE_CARDS_COOKIE) == "1"


def share_url(request: Request, game: Game) -> str:
    """The absolute link that deals this game's code for whoever opens it."""
    return f"{request.base_url}g/{game.code_text()}"


class ShareUrl:
    """:func:`share_url` for a template, worked out only if the template writes it: the full
    page does, a move's blocks do not (and the request's base URL takes a while to build)."""

    __slots__ = ("_game", "_request")

    def __init__(self, request: Request, game: Game) -> None:
        self._request, self._game = request, game

    def __str__(self) -> str:
        return share_url(self._request, self._game)

    def __html__(self) -> str:
        return escape(str(self))


def waste_name(game: Game, event: Event | None) -> str:
    """The waste card's View Transitions name (``static/tripeaks.css``): the card's own, or just
    after a draw the name the stock's top card had, so the browser flies it from the stock."""
    if event is not None and event.happened is Happened.DREW:
        return f"s-{game.stock_count + 1}"
    return "waste-empty" if game.waste is None else f"c-{game.waste.text()}"


def share_text(game: Game) -> str:
    """What the Share button sends with the link: the result once won, else an invitation."""
    gettext = current_locale().gettext
    if game.status is Status.WON:
        return gettext("I won TriPeaks deal %(code)s with %(score)s points. Can you beat it?") % {
            "code": game.code_text(),
            "score": game.score,
        }
    return gettext("Play TriPeaks deal %(code)s with me.") % {"code": game.code_text()}


def game_context(
    request: Request,
    pages: Pages,
    store: GameStore,
    player: str,
    stored: StoredGame,
    *,
    event: Event | None = None,
    turned: frozenset[int] = frozenset(),
    oob: bool = False,
    record: bool = True,
    outlook: bool = True,
    hint: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """What ``game.html`` shows of a stored game. ``record=False`` skips the deal's record
    line (a database query) for responses that do not swap it; ``outlook=False`` leaves
    what the deal allowed (a solver search, once the game has ended) to its own request.
    ``oob=True`` is for the blocks an htmx request swaps (a move's, a hint's, a refusal's):
    what only the whole page writes (the share button, the New game window) is left out,
    about a sixth of a move's instructions, with the code cache (docs/performance.md)."""
    game = stored.game
    ended = game.status is not Status.PLAYING
    day = known_day(daily_key(request), game.code) if ended or not oob else None
    attempt = store.attempt(day, player) if day is not None else None
    # (Only the record line and an ended game's result box offer the deal's answers.)
    opened = answers_open(store, player, game.code, day) if record or ended else False
    # The day's record is hidden as its par is (its best score soon is its par).
    hidden = record and day is not None and not par_open(store, player, day)
    context: dict[str, Any] = {
        "request": request,
        "game_id": stored.id,
        "game": game,
        "status": game.status.value,
        "tableau": pages.tableau(game, turned=turned, hint=hint),
        "event": event,
        "error_help": error_help_on(request),
        "waste_name": waste_name(game, event),
        "oob": oob,
        "announcement": announcement(store, stored),
        "record_line": (
            record_hidden_line()
            if hidden
            else record_line(store.deal_record(game.code), player)
            if record
            else ""
        ),
        "record_review": record_review(store, game.code) if record and opened else None,
        # Once a game ends, what the deal allowed (the solver's answer, kept per deal); for
        # the day's deal not before the player's attempt has ended (no spoilers).
        "outlook": (deal_outlook(game.code) if opened else HIDDEN_OUTLOOK) if outlook and ended else None,
        "answers_open": opened,
        "daily": daily_view(day, attempt, stored.id, playing=not ended) if day is not None else None,
        # What a share sends: the bar's Share while playing, the result box's once ended.
        "share_text": share_text(game) if ended or not oob else "",
    }
    if not oob:
        context.update(
            share_url=ShareUrl(request, game),
            large_cards=large_cards_on(request),
            proven_winnable=is_proven_winnable(game.code),
            left_game=left_game(request, store, player, stored),
            **new_game_form(request, rules=game.rules, winnable_only=winnable_only_on(request)),
        )
    context.update(extra)
    return context


HIDDEN_OUTLOOK: Final = Outlook(None, None)
"""What the result box says of the deal while its answers are not open: nothing."""


def page_url(game: Game) -> str:
    return f"/g/{game.code_text()}"


async def agame_context(
    request: Request, pages: Pages, store: GameStore, player: str, stored: StoredGame, **options: Any
) -> dict[str, Any]:
    """:func:`game_context` for a coroutine: made on the event loop unless it would wait there
    (reading a database server for the deal's record or the game's result, or searching what
    an ended deal allowed), then in a worker thread."""
    ended = stored.game.status is not Status.PLAYING
    reads = options.get("record", True) or ended
    searches = options.get("outlook", True) and ended
    if searches or (reads and not store.local_reads):
        return await to_thread.run_sync(
            lambda: game_context(request, pages, store, player, stored, **options)
        )
    return game_context(request, pages, store, player, stored, **options)


@dataclass(frozen=True, slots=True)
class Announcement:
    kind: Feat
    text: str


def cards_left(n: int) -> str:
    return current_locale().ngettext("%(num)d card left", "%(num)d cards left", n) % {"num": n}


def record_hidden_line() -> str:
    """The record line of the day's deal while its par is hidden from the player."""
    return current_locale().gettext("The record of today's daily deal is shown once your attempt has ended.")


def record_line(record: DealRecord | None, viewer: str | None) -> str:
    """The deal's record in words, as the game page shows it before and during play."""
    words = current_locale()
    if record is not None and record.best_score is not None and record.best_holder is not None:
        holder, score = record.best_holder, record.best_score
        if viewer is not None and holder.player == viewer:
            return words.gettext("Record: %(score)s by you") % {"score": score}
        if holder.name:
            return words.gettext("Record: %(score)s by %(name)s") % {"score": score, "name": holder.name}
        return words.gettext("Record: %(score)s by an anonymous player") % {"score": score}
    if (
        record is not None
        and record.best_cards_left is not None
        and record.best_unfinished_holder is not None
    ):
        holder, left = record.best_unfinished_holder, cards_left(record.best_cards_left)
        if viewer is not None and holder.player == viewer:
            return words.gettext("Nobody has won this deal yet; best: %(left)s by you") % {"left": left}
        if holder.name:
            return words.gettext("Nobody has won this deal yet; best: %(left)s by %(name)s") % {
                "left": left,
                "name": holder.name,
            }
        return words.gettext("Nobody has won this deal yet; best: %(left)s by an anonymous player") % {
            "left": left
        }
    return words.gettext("No record yet: be the first to win this deal")


def announcement(store: GameStore, stored: StoredGame) -> Announcement | None:
    """What the player made history with, shown when their game has just ended; else ``None``."""
    game = stored.game
    if game.status is Status.PLAYING:
        return None
    result = store.result(stored.id)
    if result is None or not result.feats:
        return None
    won = game.status is Status.WON
    if result.won != won or result.cards_left != game.cards_left():
        return None  # an earlier, better end of this game made the history, not this one
    words = current_locale()
    if Feat.FIRST_WIN in result.feats:
        return Announcement(Feat.FIRST_WIN, words.gettext("You are the first to win this deal!"))
    if Feat.NEW_RECORD in result.feats:
        text = words.gettext("New record! %(score)s is the best score on this deal.")
        return Announcement(Feat.NEW_RECORD, text % {"score": result.score})
    if Feat.BEST_UNFINISHED in result.feats:
        record = store.deal_record(game.code)
        left = cards_left(result.cards_left)
        if record is not None and record.wins:
            text = words.gettext("Your %(left)s is the best unfinished result on this deal.")
        else:
            text = words.gettext("Nobody has won this deal yet, and your %(left)s is its best result.")
        return Announcement(Feat.BEST_UNFINISHED, text % {"left": left})
    return None


def page_of_dealt(
    request: Request, pages: Pages, store: GameStore, player: str, stored: StoredGame, left: StoredGame | None
) -> Response:
    """The whole page of the game a link dealt, offering the way back to the one it left."""
    context = game_context(request, pages, store, player, stored)
    if left is not None and left.id != stored.id and under_way(left):  # (the cookie not read back yet)
        context["left_game"] = left
    response = pages.page(GAME_PAGE, context)
    remember_left(response, left, stored)
    return response
