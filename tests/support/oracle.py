"""The live servers' oracle: what a client works out of a game from a fresh ``Game`` that
replayed each acknowledged action (the deal, the line of actions and the layout, SPEC
sections 2-7), never from the server's serializer; and the random actions that drive it."""

from __future__ import annotations

import random
from typing import Any

import httpx

from app.engine import DRAW, Game
from tests.support.three_peaks import COVERED_BY

FIELDS = {
    "id", "code", "rules", "variants", "layout", "tableau", "waste", "stock_count", "score", "moves", "undo_available",
    "status", "peaks_cleared", "run", "longest_run", "started_at", "ended_after",
}  # fmt: skip


def _peak(top: int) -> set[int]:
    """A peak's positions: its top and every card that covers it, however far down."""
    cards, todo = {top}, [top]
    while todo:
        for q in COVERED_BY[todo.pop()]:
            if q not in cards:
                cards.add(q)
                todo.append(q)
    return cards


PEAKS = [_peak(top) for top in range(3)]

# Three peaks on the grid of half-card units (issue 25's table, SPEC section 2): each
# position's (row, column), positions numbered row by row, left to right.
SPOTS = [
    *((0, c) for c in (3, 9, 15)),
    *((1, c) for c in (2, 4, 8, 10, 14, 16)),
    *((2, c) for c in range(1, 18, 2)),
    *((3, c) for c in range(0, 19, 2)),
]


def mismatches(shown: dict[str, Any], game_id: str, game: Game) -> list[str]:
    """How ``shown`` (an API answer) differs from ``game``, a fresh Game that replayed the
    acknowledged actions: each field worked out here as a client would, from the deal, the
    line of actions and the layout (SPEC sections 2-7), not by the server's serializer."""
    line = [a.position for a in game.line]
    removed = {p for p in line if p is not None}
    drawn = line.count(None)
    deal = game.deal
    cleared = [peak <= removed for peak in PEAKS]
    # The waste shows the card the last action in effect put there (the deal's at the start).
    last = line[-1] if line else DRAW
    waste = (deal.stock[drawn - 1] if drawn else deal.waste) if last in (None, DRAW) else deal.tableau[last]
    face_up = [p not in removed and all(q in removed for q in COVERED_BY[p]) for p in range(28)]
    easy = game.code.text()[4] == "E"

    def fits(rank: int) -> bool:
        return abs(rank - waste.rank) == 1 or (easy and {rank, waste.rank} == {1, 13})

    runs = [len(r) for r in "".join("d" if a is None else "r" for a in line).split("d")]
    can_act = drawn < 23 or any(face_up[p] and fits(deal.tableau[p].rank) for p in range(28))
    expected: dict[str, Any] = {
        "id": game_id,
        "code": game.code.text(),
        "rules": "easy" if easy else "classic",
        "variants": [],  # the standard game
        "layout": "three-peaks",
        "waste": waste.text(),
        "stock_count": 23 - drawn,
        "score": 500 - len(line) + 100 * sum(cleared),
        "moves": game.moves,
        "undo_available": game.undo_available,
        "status": "won" if len(removed) == 28 else "playing" if can_act else "blocked",
        "peaks_cleared": cleared,
        "run": runs[-1],  # removals since the last draw
        "longest_run": max(runs),
    }
    wrong = [f"fields {sorted(set(shown) ^ FIELDS)}"] if set(shown) != FIELDS else []
    wrong += [f"{k}: {shown.get(k)!r} != {v!r}" for k, v in expected.items() if shown.get(k) != v]
    slots = shown.get("tableau")
    if not isinstance(slots, list) or len(slots) != 28:
        return [*wrong, f"tableau: {slots!r}"]
    for p, slot in enumerate(slots):
        card = deal.tableau[p].text() if face_up[p] else None  # a face-down card is never shown
        row, column = SPOTS[p]
        want = {"position": p, "row": row, "column": column, "card": card, "face_up": face_up[p], "removed": p in removed}
        if slot != want:
            wrong.append(f"tableau[{p}]: {slot!r} != {want!r}")
    return wrong


def assert_shows(shown: dict[str, Any], game_id: str, game: Game) -> None:
    wrong = mismatches(shown, game_id, game)
    assert not wrong, wrong


def choose(game: Game, rng: random.Random) -> int | None:
    """An action from this state: a playable card, a draw, or (None) an undo."""
    options: list[int | None] = list(game.playable_positions())
    if game.can_draw():
        options.append(DRAW)
    if (game.undo_available and rng.random() < 0.15) or not options:
        return None
    return rng.choice(options)


def send(client: httpx.Client, game_id: str, action: int | None) -> httpx.Response:
    if action is None:
        return client.post(f"/api/games/{game_id}/undo")
    if action == DRAW:
        return client.post(f"/api/games/{game_id}/draw")
    return client.post(f"/api/games/{game_id}/remove", json={"position": action})


def apply(game: Game, action: int | None) -> None:
    if action is None:
        game.undo()
    else:
        game.replay([action])
