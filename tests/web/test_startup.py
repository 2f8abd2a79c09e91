"""What the app does once at start, before its first request."""

from __future__ import annotations

import gc

from fastapi.testclient import TestClient

from app.web.presentation.render import TEMPLATES_DIR


def test_templates_are_compiled_and_the_startup_heap_frozen(client: TestClient) -> None:
    env = client.app.state.pages.env  # type: ignore[attr-defined]
    compiled = {template.name for template in env.cache.values()}
    every = {path.name for path in TEMPLATES_DIR.glob("*.html")}
    assert every and every <= compiled  # no request has rendered anything yet
    # What the process loaded is out of the collector's sight (gc.freeze, once per process).
    assert gc.get_freeze_count() > 10_000
