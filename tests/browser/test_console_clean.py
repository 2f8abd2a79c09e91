"""No console error, failed request or refused style on any page (the fixture ``new_page`` fails a
test on any it did not declare): every page visited once; and a deal from the New game window,
again and again, applies no inline style (htmx's settle copied an old element's ``style``
attribute onto the new one, which the Content-Security-Policy refuses)."""

from __future__ import annotations

from playwright.sync_api import expect

from app.web.presentation.daily.days import today
from tests.support.deals import won_deal

STYLE_BY_SCRIPT = "document.querySelectorAll('#game [id]').forEach(e => { e.style.outline = '0'; })"
"""A style set through the CSSOM (allowed by the policy), as a script or the browser may set one:
the element then has a ``style`` attribute for htmx to copy."""


def test_deals_from_the_new_game_window_apply_no_inline_style(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.goto("/")
    page.click("#howto-dismiss")
    for _ in range(3):
        page.locator("#stock").click()
        expect(page.locator("#moves")).to_have_text("1")
        page.evaluate(STYLE_BY_SCRIPT)
        page.click("#new-game-button")
        page.click("#deal")
        expect(page.locator("#moves")).to_have_text("0")  # the new deal
        page.wait_for_timeout(200)
    assert page.js_errors == [], page.js_errors


def test_every_page_shows_without_a_fault(new_page) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal()
    page = new_page()
    race = page.request.post("/races", form={"code": code.text()}, max_redirects=0).headers["location"]
    review = "/replay/{}/{}".format(code.text(), ".".join("d" if a < 0 else str(a) for a in line[:6]))
    for url in ("/", "/daily", "/daily/calendar", f"/daily/{today().isoformat()}/board", race, review,
                "/stats", "/display", "/how-to-play"):
        page.goto(url)
        page.wait_for_timeout(600)  # what the page loads after it (fragments, the race's stream)
    assert page.js_errors == [], page.js_errors
