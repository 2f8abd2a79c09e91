"""The race's live stream ``GET /races/<id>/events`` (server-sent events, read by the race page
through htmx 4's ``hx-sse:connect``): a plain ASGI endpoint whose body runs from the outermost
middleware (:mod:`app.web.race_events`), what it sends shared between its race's streams
(:class:`app.web.race_stream.RaceReads`)."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from functools import partial
from typing import Any, Final, cast

from fastapi import APIRouter, Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app.i18n import current_locale
from app.store import GameStore
from app.store.base import StoreUnavailable
from app.store.races import Race, Racer, RacerStatus, RaceStatus
from app.web.deps import RACE_ID, checked_id
from app.web.presentation.race_live import LIVE, Moment, live_context, moment_of, par_of, rivals_news
from app.web.presentation.render import Pages
from app.web.race_changes import known_race, signals_of
from app.web.race_events import KEEP_ALIVE, EventStream, Presence, comment_bytes, serve_stream, with_news
from app.web.race_signals import Listener
from app.web.race_stream import (
    RETRY_MS,
    SEEN_EVERY_S,
    RaceReads,
    StreamSlots,
    idle_wait,
    mark_closed,
    mark_seen,
    stream_lost,
)

router = APIRouter(tags=["races"])


def slots_of(request: Request) -> StreamSlots:
    return cast(StreamSlots, request.app.state.race_streams)


def reads_of(request: Request) -> RaceReads:
    return cast(RaceReads, request.app.state.race_reads)


def presence_of(request: Request) -> Presence:
    return cast(Presence, request.app.state.race_presence)


class RaceEvents:
    """``GET /races/{race_id}/events``: the race's live part, for the player asking
    (text/event-stream): a fragment whenever it changes, a keep-alive comment at least every
    15 s. ``?view=`` is the view the page shows. A plain ASGI endpoint (a Starlette route, not
    FastAPI's): no dependency solving, no exit stacks, nothing held for the stream's life but
    what it needs (10,000 of them on one worker). The slot is taken before any read, so a flood
    of streams costs little (429, 503 beyond the bounds; 404 for an unknown race)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        race_id = checked_id(scope["path_params"]["race_id"], RACE_ID, "No such race")
        player = cast(str, request.state.player)
        give_back = slots_of(request).take(player, request.client.host if request.client else "")
        try:
            race = await known_race(store_of(request), race_id)
        except BaseException:
            give_back()
            raise
        listener = signals_of(request).listen(race.id)
        view = request.query_params.get("view", "")[:20]
        sent = request.headers.get("last-event-id", "")[:40]
        store, pages = store_of(request), cast(Pages, request.app.state.pages)
        del race
        chunks = race_stream(request, store, pages, listener, race_id, player, view, sent, give_back)
        await serve_stream(EventStream(chunks, listener), scope, receive, send)


router.routes.append(Route("/races/{race_id}/events", RaceEvents(), methods=["GET"], name="race_events"))


def store_of(request: Request) -> GameStore:
    return cast(GameStore, request.app.state.store)


OPENING: Final = comment_bytes("race", RETRY_MS)


async def race_stream(
    request: Request,
    store: GameStore,
    pages: Pages,
    listener: Listener,
    race_id: str,
    player: str,
    view: str,
    sent: str,
    give_back: Any,
) -> AsyncGenerator[bytes, None]:
    """One stream's events, as bytes: all it keeps is its race's id, the digest it last sent,
    and when; the race, its rendering and the news are shared (:class:`RaceReads`)."""
    signals, reads, slots = signals_of(request), reads_of(request), slots_of(request)
    presence = presence_of(request)
    seen = False
    news_seen = -1
    par: int | None = None
    wrote = time.monotonic()
    race: Race | None = None
    scope = request.scope
    where = (view, scope["scheme"], request.headers.get("host", ""), scope.get("root_path", ""))
    try:
        yield OPENING
        while not slots.closing.is_set() and not listener.ended:
            fresh = signals.poll_s or (1.0 if race is None else SEEN_EVERY_S)
            race = await reads.read(store, race_id, most_age=fresh)
            if race is None:
                break  # the room was removed
            now = time.time()
            mine = race.racer(player)
            if not seen and mine is not None:
                await mark_seen(store, signals, race, player, now, news=True)  # back
                presence.here(race_id, player)
                seen = True
            version, changed = reads.news(race, now)
            if news_seen < 0:
                news_seen = version  # what was said before the stream opened is not news
            moment = reads.moment(race, now, partial(moment_of, race, now))
            if par is None and moment.status is RaceStatus.FINISHED:  # and the player may see it
                par = await par_of(request, store, race, player, now)
            event, mark = live_part(pages, request, reads, race, moment, player, mine, now, where, par)
            news = ""
            if version != news_seen:
                news_seen = version
                news = told_news(pages, reads, race, player, version, changed)
            if mark != sent or news:
                sent = mark
                if news:
                    event = reads.shared(race, ("event", mark, news), partial(with_news, event, news))
                yield event
                wrote = time.monotonic()
            elif time.monotonic() - wrote >= SEEN_EVERY_S / 2:
                yield KEEP_ALIVE
                wrote = time.monotonic()
            await listener.wait(min(moment.wait, signals.poll_s or idle_wait()))
    except StoreUnavailable as error:  # the database is away: the stream ends whole, the page reconnects
        stream_lost(race_id, error)
    finally:
        signals.stop_listening(listener)
        reads.forget(race_id)
        give_back()
        if seen and race is not None:
            presence.gone(race_id, player)
            mark_closed(store, signals, race, player)


def live_part(
    pages: Pages,
    request: Request,
    reads: RaceReads,
    race: Race,
    moment: Moment,
    player: str,
    mine: Racer | None,
    now: float,
    where: tuple[str, ...],
    par: int | None,
) -> tuple[bytes, str]:
    """The live part for the player (``mine``: as a racer), as its event, and its digest:
    shared with every stream of the same read whose viewer sees the same thing
    (:meth:`RaceReads.fragment`).
    ``where``: the view the page shows, and what the page's links depend on (the scheme, the
    host, the root path), the same for the stream's life."""
    status, countdown, statuses, _ = moment
    view = where[0]
    role = "maker" if race.maker == player else "racer" if mine is not None else "visitor"
    if status is RaceStatus.RUNNING and role == "maker":
        role = "racer"  # while running, the maker sees what every racer sees: one render less a move
    right = "watch" if mine is None else f"board-{race.round}"  # view_of, from the moment's status
    if status in (RaceStatus.LOBBY, RaceStatus.COUNTDOWN):
        right = "lobby"
    key = (current_locale().code, where, role, view != right, status, countdown, statuses, par)

    def render() -> str:
        context = live_context(request, race, player, now, view=view, par=par)
        return bytes(pages.blocks(LIVE, ["live"], context).body).decode()

    return reads.fragment(race, key, render)


def told_news(
    pages: Pages,
    reads: RaceReads,
    race: Race,
    player: str,
    version: int,
    changed: tuple[tuple[Racer, RacerStatus], ...],
) -> str:
    """The rivals' news (:meth:`RaceReads.news`) in the stream's language, leaving out its own
    racer: the polite announcement's block, rendered once per language and racer left out."""
    left_out = player if any(r.player == player for r, _ in changed) else ""
    locale = current_locale()

    def render() -> str:
        said = rivals_news(race, left_out, changed)
        return bytes(pages.blocks(LIVE, ["news"], {"news": said}).body).decode() if said else ""

    return reads.shared(race, ("news", version, locale.code, left_out), render)
