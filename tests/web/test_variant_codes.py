"""Variant codes (docs/variants.md) are read by the engine but not dealt on the web yet
(issue 17): every way in refuses them with a 4xx, and nothing is stored."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.store import MemoryStore

VARIANT_CODES = ["TP1-EO-AAAAAAB", "TP1-CJ-AAAAAAB", "tp1-ewt-aaaaaab", "TP1-EOWJT-AAAAAAB"]


@pytest.mark.parametrize("code", VARIANT_CODES)
def test_variant_codes_are_refused_everywhere_and_store_nothing(
    client: TestClient, store: MemoryStore, code: str
) -> None:
    assert client.get(f"/g/{code}").status_code == 400
    assert client.post("/api/games", json={"code": code}).status_code == 422
    response = client.post("/new", data={"code": code, "rules": "easy"}, follow_redirects=False)
    assert 400 <= response.status_code < 500
    assert client.get(f"/api/deals/{code}/record").status_code == 422
    assert client.get(f"/replay/{code}/d").status_code in (400, 404, 422)
    assert store._games == {}  # nothing was dealt
    # The same deal without its variants is dealt as ever.
    standard = code.upper().split("-")
    assert client.post("/api/games", json={"code": f"TP1-{standard[1][0]}-{standard[2]}"}).status_code == 201
