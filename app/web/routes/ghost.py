"""The runs to beat (issue 39): "Race this run" on a row of the day's board.

* ``POST /daily/<YYYY-MM-DD>/runs/<ref>``: deal a practice game of the day's deal for the
  player, and go to its page (a form: a link from elsewhere never deals a game);
* ``GET /daily/<YYYY-MM-DD>/runs/<ref>``: the player's game of the day's deal on the ordinary
  board (moves, undo, hints as ever), with the run beside it as a ghost in the live strip
  (``templates/ghost_board.html``); without a game of the deal, the day's board;
* ``GET /daily/<YYYY-MM-DD>/runs/<ref>/events``: the strip as server-sent events (htmx's
  ``hx-sse``): the ghost's cards left, score and stock at the times its actions were played,
  the player's own figures, the lead when it changes hands (a polite live region), the finish.

``<ref>`` is :func:`~app.web.presentation.daily.ghost.run_ref`: never a game id. Every route
answers 403 before the runs of the day open to the player (their attempt ended, or the day
over: :func:`~app.web.presentation.daily.ghost.runs_open`) and 404 for a reference that names
no row of the day's board; a malformed or future date as the daily's pages do. The rules and
the pace: :mod:`app.web.presentation.daily.ghost`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterable
from typing import Annotated, Any, Final, cast

from anyio import to_thread
from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app.engine import Game, GameCode
from app.i18n import current_locale
from app.store.attempts import Attempt, AttemptUnfinished
from app.store.base import StoreUnavailable
from app.store.paces import Mark
from app.web.deps import PagesDep, PlayerDep, StoreDep
from app.web.presentation import clock
from app.web.presentation.daily.days import checked_day, code_of, daily_key
from app.web.presentation.daily.ghost import (
    Figures,
    ended,
    find_run,
    finish_words,
    ghost_at,
    lead_words,
    leader,
    next_change,
    your_figures,
)
from app.web.presentation.game_context import game_context
from app.web.presentation.render import Pages
from app.web.race_stream import RETRY_MS, StreamSlots

router = APIRouter(tags=["daily"])

LIVE: Final = "ghost_live.html"
LOOK_S: Final = 1.0
"""How often the stream looks at the player's game (their score, their end)."""
FIRST_LOOK_S: Final = 0.25
"""The same before their first action, which starts the ghost: it starts at most this late
(its clock is the player's game clock, so it then catches up at once)."""
IDLE_S: Final = 15.0
"""Once both have ended: how long the stream waits between looks."""


def run_name(run: Attempt) -> str:
    return run.name or current_locale().gettext("Anonymous")


@router.post("/daily/{day}/runs/{ref}", name="race_run")
def race_run(request: Request, day: str, ref: str, store: StoreDep, player: PlayerDep) -> Response:
    """"Race this run": a practice game of the day's deal, then its page with the ghost."""
    date = checked_day(day)
    key = daily_key(request)
    find_run(store, key, player, date, ref[:40])
    target = f"/daily/{date.isoformat()}/runs/{ref}"
    try:
        store.create(Game(code_of(key, date)), player)
    except AttemptUnfinished as refused:
        # The day is over with the attempt unfinished, frozen as it was: no new game of the
        # deal is dealt (the store's rule), so the ghost races that game, taken up again.
        store.set_current(player, refused.game_id)
    return RedirectResponse(target, status_code=303)


def live_context(request: Request, run: Attempt, you: Figures, ghost: Figures, game: Game) -> dict[str, Any]:
    name = run_name(run)
    done = ended(game) and ghost.status not in ("waiting", "playing")
    return {
        "request": request,
        "run_name": name,
        "you": you,
        "ghost": ghost,
        "lead": lead_words(name, you, ghost) if you.status != "waiting" else None,
        "finish": finish_words(name, game, run) if done else None,
        "news": None,
    }


@router.get("/daily/{day}/runs/{ref}", name="run_page")
def run_page(
    request: Request, day: str, ref: str, store: StoreDep, pages: PagesDep, player: PlayerDep
) -> Response:
    date = checked_day(day)
    key = daily_key(request)
    run = find_run(store, key, player, date, ref[:40])
    code = code_of(key, date)
    stored = store.find(player, code)
    if stored is None:
        return RedirectResponse(f"/daily/{date.isoformat()}/board", status_code=303)
    marks = store.pace(run.game_id)
    game = stored.game
    ghost = ghost_at(run, marks, Game(code), ghost_clock(game, request))
    context = game_context(request, pages, store, player, stored)
    live = live_context(request, run, your_figures(game), ghost, game)
    events = f"/daily/{date.isoformat()}/runs/{ref}/events"
    return pages.page("ghost_board.html", {**context, **live, "ghost_events": events, "no_pace": not marks})


# -- the stream -------------------------------------------------------------------------------


async def ghost_slot(
    request: Request, day: str, ref: str, store: StoreDep, player: PlayerDep
) -> tuple[Attempt, list[Mark], GameCode, Any]:
    """The run, its pace and the deal (403, 404 as the page), and a stream slot (the races'
    bounds: 429, 503 beyond them), all before the stream begins."""
    slots = cast(StreamSlots, request.app.state.race_streams)
    give_back = slots.take(player, request.client.host if request.client else "")
    try:
        date = checked_day(day)
        key = daily_key(request)

        def read() -> tuple[Attempt, list[Mark], GameCode]:
            run = find_run(store, key, player, date, ref[:40])
            return run, store.pace(run.game_id), code_of(key, date)

        run, marks, code = await to_thread.run_sync(read)
    except BaseException:
        give_back()
        raise
    return run, marks, code, give_back


def ghost_clock(game: Game, request: Request) -> float | None:
    """The ghost's clock: from the player's first action in their game (``None``: none yet)."""
    started = game.started_at
    if started is None:
        return None
    return max(0.0, clock.now() - started) * float(request.app.state.settings.ghost_pace)


def render(pages: Pages, block: str, context: dict[str, Any]) -> str:
    return bytes(pages.blocks(LIVE, [block], context).body).decode()


@router.get("/daily/{day}/runs/{ref}/events", response_class=EventSourceResponse, name="run_events")
async def run_events(
    request: Request,
    taken: Annotated[Any, Depends(ghost_slot)],
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
) -> AsyncIterable[ServerSentEvent]:
    """The strip (text/event-stream): a fragment whenever it changes, the ghost's at the
    times its actions were played (``data-after`` on its row: the recorded offset)."""
    run, marks, code, give_back = cast(tuple[Attempt, list[Mark], GameCode, Any], taken)
    slots = cast(StreamSlots, request.app.state.race_streams)
    pace = float(request.app.state.settings.ghost_pace)
    deal = Game(code)
    sent = request.headers.get("last-event-id", "")[:40]
    told: str | None = None
    try:
        yield ServerSentEvent(comment="ghost", retry=RETRY_MS)
        while not slots.closing.is_set():
            stored = await store.aread(lambda: store.find(player, code))
            game = stored.game if stored is not None else deal
            at = ghost_clock(game, request)
            ghost = ghost_at(run, marks, deal, at)
            you = your_figures(game)
            context = live_context(request, run, you, ghost, game)
            html = render(pages, "live", context)
            mark = hashlib.sha256(html.encode()).hexdigest()[:16]
            news = None
            # The lead is told when it changes hands (and the finish once): never every action.
            now_told = "finish" if context["finish"] else leader(you.score, ghost.score)
            if at is not None and now_told != told and (context["finish"] or you.score or ghost.score):
                news, told = context["finish"] or context["lead"], now_told
            if mark != sent or news:
                sent = mark
                told_now = render(pages, "news", {**context, "news": news}) if news else ""
                yield ServerSentEvent(raw_data=html + told_now, id=mark)
            wait = IDLE_S if context["finish"] else FIRST_LOOK_S if at is None else LOOK_S
            ahead = next_change(run, marks, at) if at is not None else None
            if ahead is not None:
                wait = min(wait, ahead / pace + 0.005)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await slots.closing.wait()
    except StoreUnavailable:  # the database is away: the stream ends whole, the page reconnects
        pass
    finally:
        give_back()
