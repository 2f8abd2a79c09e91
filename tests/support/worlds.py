"""A whole path's world for the browser tests that follow players over days (devices, tables):
the game served in a thread of this process on a clock the test moves, its store at hand, and
pages in fresh browser contexts (each its own player)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from app.store.database.sql import SqlStore
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.browser import DESKTOP, record_errors
from tests.support.servers import free_port, server_in_thread
from tests.support.store import Clock


@dataclass
class World:
    port: int
    clock: Clock
    store: SqlStore
    browser: Browser
    contexts: list[BrowserContext] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def page(self, viewport: dict[str, int] = DESKTOP, *, name: str | None = None, host: str = "127.0.0.1",
             **options: Any) -> Page:  # fmt: skip
        """A page in a new context (a new player; ``name``: named so); ``host``: ``localhost``
        for a secure context (passkeys)."""
        context = self.browser.new_context(viewport=viewport, base_url=f"http://{host}:{self.port}", **options)
        context.set_default_timeout(20_000)
        self.contexts.append(context)
        if name:
            assert context.request.put("/api/players/me/name", data={"name": name}).ok
        return record_errors(context.new_page())


@contextmanager
def world_at(browser: Browser, folder: Path, key: str, now: float) -> Iterator[World]:
    """The world, its clock at ``now`` (the pages' clock too: app.web.presentation.clock). At
    the end every page must have had no script error."""
    clock = Clock(now)
    patch = pytest.MonkeyPatch()
    patch.setattr("app.web.presentation.clock.now", clock)
    store = SqlStore(f"sqlite:///{folder}/tripeaks.db", clock=clock)
    settings = Settings(secret_key=key, database_url="memory://", data_dir=folder, rate_limits=False)
    found = World(free_port(), clock, store, browser)
    try:
        with server_in_thread(create_app(settings, store=store), found.port):
            yield found
            for context in found.contexts:
                for page in context.pages:
                    assert not page.js_errors, page.js_errors  # type: ignore[attr-defined]
                context.close()
    finally:
        patch.undo()
        store.close()
