"""Real-browser tests: Playwright drives Debian's Chromium against a live uvicorn server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import CHROMIUM, DESKTOP
from tests.support.servers import live_server as serve


def pytest_itemcollected(item: pytest.Item) -> None:
    """Every test in this folder is a browser test (``-m "not browser"`` leaves them out). A
    conftest's ``pytestmark`` would mark nothing: pytest reads that name in test modules only."""
    item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The game served by uvicorn in a subprocess, on its default store in a temporary folder."""
    data = tmp_path_factory.mktemp("data")
    env = {}
    if "TRIPEAKS_TEST_DATABASE_URL" in os.environ:
        env["TRIPEAKS_DATABASE_URL"] = os.environ["TRIPEAKS_TEST_DATABASE_URL"]
    with serve(data, env) as server:
        yield server.url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: install Debian's chromium (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-gpu"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser, live_server):  # type: ignore[no-untyped-def]
    """Make pages in fresh browser contexts (each its own cookies); closed after the test."""
    contexts = []

    def make(viewport: dict[str, int] = DESKTOP, **options):  # type: ignore[no-untyped-def]
        context = browser.new_context(viewport=viewport, base_url=live_server, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        # A script or style the Content-Security-Policy blocks is a bug: record it.
        page.on(
            "console",
            lambda message: errors.append(message.text) if "Content Security Policy" in message.text else None,
        )
        page.js_errors = errors
        return page

    yield make
    for context in contexts:
        for page in context.pages:
            assert not [e for e in page.js_errors if "Content Security Policy" in e], page.js_errors
        context.close()
