"""Real-browser tests: Playwright drives Debian's Chromium against a live uvicorn server."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any, Final

import pytest
from playwright.sync_api import expect

from tests.support.browser import DESKTOP
from tests.support.servers import live_server as serve

expect.set_options(timeout=10_000)
"""An assertion waits as long as an action does (``new_page``'s 10 s), not Playwright's 5 s: on
a loaded CI machine a move's answer and its flight have taken over 5 s (2026-12-07). A press the
page loses is still lost after 10 s."""


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


class Faults:
    """What went wrong in a page, as its browser saw it: script errors, console errors (a style or
    script the Content-Security-Policy refused among them), failed requests and answers of 400 or
    more. A test that causes one on purpose (a refused move's 409, an offline fetch) declares it
    with :meth:`expect` (a regular expression it matches); every other one fails the test."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.expected: list[re.Pattern[str]] = []

    def add(self, text: str) -> None:
        self.seen.append(text)

    def expect(self, *patterns: str) -> None:
        self.expected.extend(re.compile(p) for p in patterns)

    def unexpected(self) -> list[str]:
        return [text for text in self.seen if not any(p.search(text) for p in self.expected)]


IGNORED_FAILURES: Final = ("net::ERR_ABORTED",)
"""A request the page itself gave up (a navigation away while it ran, an event stream closed by
leaving the page): not a fault."""


def watch(page: Any, faults: Faults) -> None:
    page.on("pageerror", lambda error: faults.add(f"pageerror: {error}"))
    page.on(
        "console",
        lambda message: faults.add(f"console {message.type}: {message.text} at {message.location.get('url', '')}")
        if message.type == "error" or "Content Security Policy" in message.text
        else None,
    )
    page.on(
        "requestfailed",
        lambda request: None
        if (request.failure or "") in IGNORED_FAILURES
        else faults.add(f"requestfailed {request.method} {request.url}: {request.failure}"),
    )
    page.on(
        "response",
        lambda response: faults.add(f"response {response.status} {response.request.method} {response.url}")
        if response.status >= 400
        else None,
    )


@pytest.fixture
def new_page(browser, live_server):  # type: ignore[no-untyped-def]
    """Make pages in fresh browser contexts (each its own cookies); closed after the test, which
    fails on any fault its pages saw (:class:`Faults`) that it did not declare (``page.faults.expect``)."""
    contexts = []

    def make(viewport: dict[str, int] = DESKTOP, **options):  # type: ignore[no-untyped-def]
        context = browser.new_context(viewport=viewport, base_url=live_server, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.faults = Faults()
        watch(page, page.faults)
        errors: list[str] = []  # script errors and refused styles or scripts alone, as tests read them
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on(
            "console",
            lambda message: errors.append(message.text) if "Content Security Policy" in message.text else None,
        )
        page.js_errors = errors
        return page

    yield make
    found = []
    for context in contexts:
        for page in context.pages:
            faults = getattr(page, "faults", None)
            if faults is not None:
                found.extend(faults.unexpected())
        context.close()
    assert not found, "the browser saw faults the test did not expect:\n" + "\n".join(found)
