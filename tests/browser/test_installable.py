"""The installable app in a real browser: Chromium's own verdict on the manifest, and the
service worker's offline page (the network gone, then back)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.support.browser import CHROMIUM, OFFLINE, run_axe, says, screenshot

CODE = "TP1-E-AAAAAAB"


def until(page: Page, script: str) -> None:
    """Wait until ``script`` is true in the page (``wait_for_function`` evals: the CSP refuses)."""
    for _ in range(100):
        if page.evaluate(script):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"never true: {script}")


def worker_ready(page: Page) -> None:
    """The service worker is installed and controls the page."""
    until(page, "navigator.serviceWorker.controller !== null")


def test_chromium_reports_the_page_installable(browser, live_server, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A browser profile of its own: Playwright's usual contexts are incognito-like, where
    # Chromium never offers to install anything.
    context = browser.browser_type.launch_persistent_context(
        tmp_path / "profile", executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], base_url=live_server
    )
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(f"/g/{CODE}")
        worker_ready(page)
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == f"{live_server}/manifest.webmanifest"
        assert manifest["errors"] == []
        parsed = manifest.get("manifest") or {}
        if parsed:  # newer Chromiums report the manifest as parsed too (in their own enum names)
            assert parsed["display"] == "kStandalone" and parsed["startUrl"] == f"{live_server}/"
            assert parsed["themeColor"] == "rgba(11,90,51,1)"  # TABLE_COLOUR, #0b5a33
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    finally:
        context.close()


def test_offline_the_page_says_so_and_online_again_the_game_is_where_it_was(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="uk-UA")
    page.faults.expect(*OFFLINE)  # offline on purpose
    page.goto(f"/g/{CODE}")
    worker_ready(page)
    page.click("#stock")  # a move, kept by the server
    expect(page.locator("#moves")).to_have_text("1")
    page.context.set_offline(True)
    page.goto(f"/g/{CODE}")
    expect(page.locator("#offline h1")).to_have_text(says("uk", "No network"))
    assert page.evaluate("document.documentElement.lang") == "uk"
    assert run_axe(page) == []
    screenshot(page, "offline-uk")
    page.context.set_offline(False)  # the page comes back by itself
    expect(page.locator("#game")).to_be_visible(timeout=15_000)
    expect(page.locator("#moves")).to_have_text("1")
    assert page.url.endswith(f"/g/{CODE}")


def test_the_offline_page_follows_a_change_of_language(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="en-GB")
    page.faults.expect(*OFFLINE)  # offline on purpose
    page.goto(f"/g/{CODE}")
    worker_ready(page)
    page.click(".lang-current")
    page.click("button.lang-choice[value=he]")
    expect(page.locator("html")).to_have_attribute("lang", "he")
    until(page, "localStorage.getItem('tp-offline-lang') === 'he'")
    page.context.set_offline(True)
    page.goto("/stats")
    expect(page.locator("#offline h1")).to_have_text(says("he", "No network"))
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
