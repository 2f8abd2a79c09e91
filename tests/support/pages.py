"""What the page tests send (htmx's header) and read (the game's id, an element's text) over a
TestClient, and a win played by clicks."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.engine import DRAW, GameCode

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
