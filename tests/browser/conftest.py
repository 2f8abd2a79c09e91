"""Real-browser tests: Playwright drives Debian's Chromium against a live uvicorn server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

CHROMIUM = os.environ.get("TRIPEAKS_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The game served by uvicorn in a subprocess, on its default store in a temporary folder."""
    data = tmp_path_factory.mktemp("data")
    port = free_port()
    env = {
        **os.environ,
        "TRIPEAKS_DATA_DIR": str(data),
        "TRIPEAKS_SECRET_KEY": "browser-tests-secret-key-0123456789",
        "TRIPEAKS_DATABASE_URL": os.environ.get("TRIPEAKS_TEST_DATABASE_URL", f"sqlite:///{data}/tripeaks.db"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.web.main:create_app", "--factory", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx.get(url + "/healthz").status_code == 200:
                break
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("the server did not start")
        time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(10)


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


def screenshot(page, name: str) -> Path:  # type: ignore[no-untyped-def]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.wait_for_timeout(400)  # let the card animations finish
    page.screenshot(path=str(path), full_page=True, caret="initial")  # "hide" injects a style CSP refuses
    return path
