"""“Download my data” (issue 38): everything the installation keeps about a player, as JSON.

Its name, statistics and daily streaks; every result (with the game's line: the cards it
played, never a card still face down); every daily attempt; the games kept (their codes and
counts, no cards); the race seats; the devices, passkeys (never a key), personal tokens
(never a token) and when the recovery code was made (never the code). A blocking function:
call it in a thread.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

from app.store.base import GameStore
from app.web.presentation.daily.streaks import player_streaks, streaks_out
from app.web.presentation.devices import iso, kind_words
from app.web.presentation.player_stats import stats_out

ALL_RESULTS: Final = 1_000_000


def export(store: GameStore, player: str, this_device: str | None) -> dict[str, Any]:
    held = store.holdings(player)
    results = store.recent_results(player, ALL_RESULTS)
    return {
        "exported_at": dt.datetime.now(dt.UTC).isoformat(),
        "player": {"id": player, "display_name": store.display_name(player)},
        "statistics": [stats_out(s).model_dump() for s in store.player_stats(player)],
        "daily_streaks": streaks_out(player_streaks(store, player)).model_dump(),
        "results": [
            {
                "game_id": r.game_id,
                "code": r.code,
                "won": r.won,
                "score": r.score,
                "cards_left": r.cards_left,
                "moves": r.moves,
                "at": r.at.isoformat(),
                "longest_run": r.longest_run,
                "seconds": r.seconds,
                "line": r.line,
                "feats": sorted(f.value for f in r.feats),
            }
            for r in reversed(results)
        ],
        "daily_attempts": [
            {
                "day": a.day,
                "code": a.code,
                "game_id": a.game_id,
                "late": a.late,
                "ended": a.ended,
                "won": a.won,
                "score": a.score,
                "seconds": a.seconds,
                "hints": a.hints,
                "ranked": a.plausible,
                "started": iso(a.started),
            }
            for a in store.player_days(player)
        ],
        "games": [{**game, "updated": iso(float(game["updated"]))} for game in held.games],  # type: ignore[arg-type]
        "race_seats": [{**seat, "joined": iso(float(seat["joined"]))} for seat in held.race_seats],  # type: ignore[arg-type]
        "devices": [
            {
                "id": d.id,
                "kind": kind_words(d.kind),
                "created": iso(d.created),
                "last_seen": iso(d.last_seen),
                "this_device": d.id == this_device,
            }
            for d in store.devices(player)
        ],
        "passkeys": [
            {
                "id": p.id,
                "kind": kind_words(p.kind),
                "created": iso(p.created),
                "last_used": iso(p.last_used) if p.last_used is not None else None,
            }
            for p in store.passkeys(player)
        ],
        "personal_tokens": [{"id": t.id, "created": iso(t.created)} for t in store.tokens(player)],
        "recovery_code": {"made": iso(held.recovery_code_made)}
        if held.recovery_code_made is not None
        else None,
        "live_link_codes": held.live_link_codes,
    }
