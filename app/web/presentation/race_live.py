"""The race's live part (``race_live.html``): what the race page shows and its stream sends,
the same for every viewer of one kind (:class:`Moment`), and the rivals' news in words."""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from anyio import to_thread
from fastapi import Request

from app.i18n import current_locale
from app.store import GameStore
from app.store.races import COUNTDOWN_S, Race, Racer, RacerStatus, RaceStatus, may_join
from app.web.presentation.daily.days import daily_key, day_of_page, shown_par
from app.web.race_stream import next_change

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
        "can_join": may_join(race, now),
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


class Moment(NamedTuple):
    """What the race is at a moment, the same for all its streams (:meth:`RaceReads.moment`)."""

    status: RaceStatus
    countdown: int | None
    statuses: tuple[RacerStatus, ...]
    wait: float
    """Seconds until its fragment changes by itself (:func:`next_change`)."""


def moment_of(race: Race, now: float) -> Moment:
    statuses = tuple(r.status(now) for r in race.racers)
    return Moment(race.status(now), live_countdown(race, now), statuses, next_change(race, now))


def rivals_news(race: Race, player: str, changed: tuple[tuple[Racer, RacerStatus], ...]) -> str | None:
    """What changed for the rivals, in words (``None``: nothing): a rival who won, was blocked
    or left, and the cards left of those still playing."""
    locale = current_locale()
    gettext = locale.gettext
    parts = []
    for racer, status in changed:
        if racer.player == player:
            continue
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
