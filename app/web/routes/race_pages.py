"""The race page ``/race/<id>``, its forms, and its live stream ``/races/<id>/events``.

The page shows one of three views, each a URL that renders in full:

* **lobby**: who is in, the link to share, Join (for whoever opened the link), Start (the
  maker), then the 3-2-1 countdown;
* **board**: a racer's own game on the ordinary board (``game.html``: every move, hint and
  undo as usual), with the strip of rivals' counts beside it, and the finish table at the end;
* **watch**: the strip and the finish table, for someone who came after the start.

The live part (``race_live.html``) is what the stream sends, rendered on the server for each
racer; when the view a page shows is no longer the right one (the deal came, or "Race again"
dealt the next round), the stream sends a fragment that loads the page again.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterable
from typing import Annotated, Any, Final, Literal, cast

from anyio import to_thread
from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app.engine import STANDARD, GameCode, Rules
from app.engine.layout import LAYOUTS
from app.i18n import current_locale
from app.store import GameStore
from app.store.races import (
    COUNTDOWN_S,
    MAX_RACERS,
    NotNow,
    Race,
    Racer,
    RaceRefused,
    RacerStatus,
    RaceStatus,
)
from app.web.deps import PagesDep, PlayerDep, RaceIdPath, StoreDep
from app.web.presentation.daily.days import daily_key, day_of_page, shown_par
from app.web.presentation.game_context import agame_context
from app.web.presentation.layouts import LayoutWord
from app.web.presentation.render import Pages
from app.web.presentation.variant_words import TickedVariants
from app.web.race_stream import (
    ANNOUNCE_EVERY_S,
    RETRY_MS,
    SEEN_EVERY_S,
    RaceReads,
    StreamSlots,
    mark_closed,
    mark_seen,
    next_change,
)
from app.web.routes.race_api import known_race, make_race, race_code, refusal, signals_of
from app.web.solving import winnable_code

router = APIRouter(tags=["races"])

LIVE: Final = "race_live.html"


def view_of(race: Race, player: str, now: float) -> str:
    """Which view the player should see now: ``lobby``, ``board-<round>`` or ``watch``."""
    status = race.status(now)
    if status in (RaceStatus.LOBBY, RaceStatus.COUNTDOWN):
        return "lobby"
    return f"board-{race.round}" if race.racer(player) is not None else "watch"


def racer_label(racer: Racer) -> str:
    return racer.name or current_locale().gettext("Player %(number)s") % {"number": racer.seat + 1}


def race_time(seconds: float | None) -> str:
    if seconds is None:
        return "\u2013"  # an en dash: no time
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def live_countdown(race: Race, now: float) -> int | None:
    """The countdown's number now (3, 2, 1), else ``None``."""
    if race.status(now) is not RaceStatus.COUNTDOWN or race.starts is None:
        return None
    return max(1, min(int(COUNTDOWN_S), int(-(-(race.starts - now) // 1))))


def live_context(
    request: Request, race: Race, player: str, now: float, *, view: str, par: int | None = None
) -> dict[str, Any]:
    status = race.status(now)
    places = race.places(now)
    mine = race.racer(player)
    return {
        "request": request,
        "race": race,
        "race_status": status.value,
        "maker": race.maker == player,
        "maker_name": next((racer_label(r) for r in race.racers if r.player == race.maker), ""),
        "is_racer": mine is not None,
        "can_join": status is RaceStatus.LOBBY and len(race.racers) < MAX_RACERS,
        "racers": race.in_order(now),
        "label": racer_label,
        "racer_status": lambda r: r.status(now).value,
        "place": lambda r: places.get(r.player),
        "seconds": lambda r: race_time(race.seconds_of(r)),
        "countdown": live_countdown(race, now),
        "my_seat": "" if mine is None else mine.seat,
        "view": view,
        "reload": view != view_of(race, player, now),
        "par": par,
        "news": None,
        "race_url": f"{request.base_url}race/{race.id}",
    }


async def par_of(request: Request, store: GameStore, race: Race, player: str, now: float) -> int | None:
    """The deal's best possible score, once the race is finished, when the rule of no
    spoilers lets ``player`` see it (:func:`answers_open`: a race on the day's deal shows it
    only once their daily attempt has ended or the day is over)."""
    if race.status(now) is not RaceStatus.FINISHED:
        return None
    key, code = daily_key(request), race.game_code

    def shown() -> int | None:
        return shown_par(store, player, code, day_of_page(key, code))

    return await to_thread.run_sync(shown)


# -- the page ---------------------------------------------------------------------------------


@router.get("/race/{race_id}", name="race_page")
async def race_page(
    request: Request, race_id: RaceIdPath, store: StoreDep, pages: PagesDep, player: PlayerDep
) -> Response:
    race = await known_race(store, race_id)
    now = time.time()
    view = view_of(race, player, now)
    par = await par_of(request, store, race, player, now)
    context = live_context(request, race, player, now, view=view, par=par)
    mine = race.racer(player)
    if view.startswith("board") and mine is not None:
        stored = await store.aget(mine.game_id)
        if stored is not None:
            game = await agame_context(request, pages, store, player, stored)
            return pages.page("race_board.html", {**game, **context})
    return pages.page("race_lobby.html", context)


@router.get("/races/{race_id}/page", name="race_view_changed")
async def view_changed(race_id: RaceIdPath) -> Response:
    """What the live part asks for when the page shows a view that is no longer the right
    one (the deal came, or the next round was dealt): a whole new page (``HX-Redirect``)."""
    return Response(status_code=204, headers={"HX-Redirect": f"/race/{race_id}", "Vary": "HX-Request"})


@router.post("/races", name="new_race")
async def new_race(
    request: Request,
    store: StoreDep,
    player: PlayerDep,
    variants: TickedVariants,
    code: Annotated[str, Form(max_length=500)] = "",
    rules_word: Annotated[Literal["easy", "classic"], Form(alias="rules")] = "easy",
    layout_word: Annotated[LayoutWord, Form(alias="layout")] = "three-peaks",
) -> Response:
    """"Race a friend": a room for the deal given (the result box's, or a code typed in the New
    game window), else for a random winnable deal of the rules, layout and variants chosen
    there. A typed code that names variants is raced as it is; one that names none gets the
    variants ticked in the window (its deal number, rules and layout stay the code's). The New
    game window's button sends its form here (htmx: ``HX-Redirect`` to the room)."""
    if code.strip():
        typed = race_code(code.strip())
        named = typed.variants != STANDARD
        dealt = typed if named else GameCode(typed.rules, typed.number, variants, typed.layout)
    else:
        rules, layout = Rules.from_word(rules_word), LAYOUTS[layout_word]
        dealt = await to_thread.run_sync(winnable_code, rules, None, variants, layout)
    race = await to_thread.run_sync(make_race, store, player, dealt)
    if request.headers.get("hx-request") == "true":
        return Response(status_code=204, headers={"HX-Redirect": f"/race/{race.id}"})
    return RedirectResponse(f"/race/{race.id}", status_code=303)


async def _act(request: Request, race_id: str, action: Any) -> Response:
    try:
        await to_thread.run_sync(action)
    except RaceRefused as error:
        raise refusal(error) from None
    await signals_of(request).publish(race_id)
    if request.headers.get("hx-request") == "true":
        return Response(status_code=204)  # the stream shows what changed
    return RedirectResponse(f"/race/{race_id}", status_code=303)


@router.post("/races/{race_id}/join", name="join_race")
async def join(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Response:
    return await _act(request, race_id, lambda: store.join_race(race_id, player, time.time()))


@router.post("/races/{race_id}/start", name="start_race")
async def start(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Response:
    return await _act(request, race_id, lambda: store.start_race(race_id, player, time.time()))


@router.post("/races/{race_id}/leave", name="leave_race")
async def leave(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Response:
    """"Leave the race": the racer is gone at once and the race no longer waits for them; they
    go to the New game page (opening the race's page again brings them back)."""
    try:
        await to_thread.run_sync(store.leave_race, race_id, player, time.time())
    except RaceRefused as error:
        raise refusal(error) from None
    await signals_of(request).publish(race_id)
    if request.headers.get("hx-request") == "true":
        return Response(status_code=204, headers={"HX-Redirect": "/new"})
    return RedirectResponse("/new", status_code=303)


@router.post("/races/{race_id}/again", name="race_again")
async def again(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Response:
    """"Race again": a new random winnable deal of the same rules and variants, to the same
    racers."""
    race = await known_race(store, race_id)
    if race.status(time.time()) is not RaceStatus.FINISHED:
        raise refusal(NotNow("This race is not finished yet."))
    last = race.game_code  # the same rules, layout and variants, a new winnable deal
    dealt = await to_thread.run_sync(winnable_code, last.rules, None, last.variants, last.layout)
    return await _act(request, race_id, lambda: store.race_again(race_id, player, dealt, time.time()))


# -- the stream -------------------------------------------------------------------------------


def slots_of(request: Request) -> StreamSlots:
    return cast(StreamSlots, request.app.state.race_streams)


def reads_of(request: Request) -> RaceReads:
    return cast(RaceReads, request.app.state.race_reads)


async def stream_slot(request: Request, race_id: RaceIdPath, store: StoreDep, player: PlayerDep) -> Any:
    """The race (404 when unknown) and a stream slot for the player (429, 503 beyond the bounds)."""
    race = await known_race(store, race_id)
    return race, slots_of(request).take(player)


@router.get("/races/{race_id}/events", response_class=EventSourceResponse, name="race_events")
async def race_events(
    request: Request,
    taken: Annotated[Any, Depends(stream_slot)],
    store: StoreDep,
    pages: PagesDep,
    player: PlayerDep,
) -> AsyncIterable[ServerSentEvent]:
    """The race's live part, for the player asking (text/event-stream): a fragment whenever it
    changes, a keep-alive comment every 15 s. ``?view=`` is the view the page shows."""
    race, give_back = cast(tuple[Race, Any], taken)
    signals, reads, slots = signals_of(request), reads_of(request), slots_of(request)
    listener = signals.listen(race.id)
    view = request.query_params.get("view", "")[:20]
    sent = request.headers.get("last-event-id", "")[:40]
    seen_at = 0.0
    announced_at = 0.0
    told: dict[str, tuple[str, int]] = {}
    par: int | None = None
    first = True
    try:
        yield ServerSentEvent(comment="race", retry=RETRY_MS)
        while not slots.closing.is_set():
            listener.changed.clear()
            fresh = signals.poll_s or (1.0 if first else SEEN_EVERY_S)
            found = await reads.read(store, race.id, most_age=fresh)
            if found is None:
                break  # the room was removed
            race, first, now = found, False, time.time()
            if now - seen_at >= SEEN_EVERY_S:
                await mark_seen(store, signals, race, player, now, news=not seen_at)  # the first: back
                seen_at = now
            news = None
            if now - announced_at >= ANNOUNCE_EVERY_S:
                news = rivals_news(race, player, now, told)
                if news:
                    announced_at = now
            if par is None:  # once the race is finished and the player may see it
                par = await par_of(request, store, race, player, now)
            html, mark = live_part(pages, request, reads, race, player, now, view, par)
            if mark != sent or news:
                sent = mark
                told_now = bytes(pages.blocks(LIVE, ["news"], {"news": news}).body).decode() if news else ""
                yield ServerSentEvent(raw_data=html + told_now, id=mark)
            wait = min(next_change(race, now), signals.poll_s or SEEN_EVERY_S)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await listener.changed.wait()  # a signal, or the server closing (StreamSlots.close)
    finally:
        signals.stop_listening(listener)
        reads.forget(race.id)
        give_back()
        if seen_at:
            mark_closed(store, signals, race, player)


def live_part(
    pages: Pages,
    request: Request,
    reads: RaceReads,
    race: Race,
    player: str,
    now: float,
    view: str,
    par: int | None,
) -> tuple[str, str]:
    """The live part for the player, and its digest: shared with every stream of the same
    read whose viewer sees the same thing (:meth:`RaceReads.fragment`)."""
    status = race.status(now)
    mine = race.racer(player)
    role = "maker" if race.maker == player else "racer" if mine is not None else "visitor"
    if status is RaceStatus.RUNNING and role == "maker":
        role = "racer"  # while running, the maker sees what every racer sees: one render less a move
    key = (
        current_locale().code, view, role, view != view_of(race, player, now), status,
        live_countdown(race, now), tuple(r.status(now) for r in race.racers), par, str(request.base_url),
    )  # fmt: skip

    def render() -> str:
        context = live_context(request, race, player, now, view=view, par=par)
        return bytes(pages.blocks(LIVE, ["live"], context).body).decode()

    return reads.fragment(race, key, render)


def rivals_news(race: Race, player: str, now: float, told: dict[str, tuple[str, int]]) -> str | None:
    """What changed for the rivals since last told, in words (``None``: nothing): a rival who
    won, was blocked or left, and the cards left of those still playing."""
    locale = current_locale()
    gettext = locale.gettext
    parts = []
    for racer in race.racers:
        if racer.player == player:
            continue
        status = racer.status(now)
        before = told.get(racer.player)
        now_told = (status.value, racer.cards_left)
        if before == now_told:
            continue
        told[racer.player] = now_told
        dealt = racer.cards_left == race.game_code.layout.count
        if before is None and status is RacerStatus.PLAYING and dealt:
            continue  # nothing to say yet
        name = racer_label(racer)
        if status is RacerStatus.WON:
            parts.append(gettext("%(name)s won.") % {"name": name})
        elif status is RacerStatus.BLOCKED:
            parts.append(gettext("%(name)s is blocked.") % {"name": name})
        elif status is RacerStatus.GONE:
            parts.append(gettext("%(name)s left.") % {"name": name})
        else:
            count = racer.cards_left
            words = locale.ngettext(
                "%(name)s: %(count)s card left.", "%(name)s: %(count)s cards left.", count
            )
            parts.append(words % {"name": name, "count": count})
    return " ".join(parts) or None

