"""What the page tests send (htmx's header) and read (the game's id, an element's text) over a
TestClient: a deal's page opened, a line played as htmx posts (on a clock moved by hand, when
given), and a win played by clicks."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.engine import DRAW, GameCode
from tests.support.store import Clock

HX = {"HX-Request": "true"}
CODE = "TP1-E-AAAAAAB"
"""Deal 1 under easy rules."""


def game_id_of(html: str) -> str:
    match = re.search(r'data-game-id="([^"]+)"', html)
    assert match, "page has no game"
    return match.group(1)


def text_of(html: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</', html, re.S)
    assert match, f"no #{element_id}"
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()


def open_deal(client: TestClient, code: str = CODE) -> tuple[str, str]:
    """Open the deal's page: the game's id and the page."""
    response = client.get(f"/g/{code}")
    assert response.status_code == 200
    return game_id_of(response.text), response.text


def play(
    client: TestClient,
    game_id: str,
    line: list[int] | tuple[int, ...],
    *,
    clock: Clock | None = None,
    step: float = 1.0,
) -> str:
    """Play ``line`` as htmx posts (each answered 200), one action every ``step`` seconds of
    ``clock`` when one is given; the last answer."""
    html = ""
    for position in line:
        if clock is not None:
            clock.advance(step)
        if position == DRAW:
            response = client.post(f"/games/{game_id}/draw", headers=HX)
        else:
            response = client.post(f"/games/{game_id}/remove", data={"position": position}, headers=HX)
        assert response.status_code == 200, response.text[:300]
        html = response.text
    return html


def win_by_clicks(client: TestClient, code: GameCode, line: tuple[int, ...]) -> str:
    """Play ``line`` on the deal's page as plain form posts; returns the game's id."""
    page = client.get(f"/g/{code.text()}")
    game_id = game_id_of(page.text)
    for action in line:
        if action == DRAW:
            response = client.post(f"/games/{game_id}/draw")
        else:
            response = client.post(f"/games/{game_id}/remove", data={"position": str(action)})
        assert response.status_code == 200
    return game_id
