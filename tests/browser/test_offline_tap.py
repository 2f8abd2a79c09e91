"""Offline, a tap is answered at once (issue 42): the page says in its own language that the
network is gone and that nothing was done; the game is as it was, and once the network is back
the line goes and the same tap plays."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.support.browser import OFFLINE, VIEWS, reach

SAID = {"en-GB": "No network", "he-IL": "אין רשת"}


def test_a_tap_offline_says_the_network_is_gone_at_once(new_page) -> None:  # type: ignore[no-untyped-def]
    for locale, words in SAID.items():
        page = new_page(viewport=VIEWS["390x844"], locale=locale, has_touch=True, is_mobile=True)
        page.faults.expect(*OFFLINE, r"htmx:error: Failed to fetch")  # the tap offline, on purpose
        reach(page, "start")
        note = page.locator("#offline-note")
        expect(note).to_be_hidden()
        count = page.locator("#stock-count").inner_text()
        page.context.set_offline(True)
        page.locator("#stock").tap()
        expect(note).to_be_visible(timeout=1500)  # at once, not at the next page load
        expect(note).to_contain_text(words)
        assert note.get_attribute("role") == "alert"
        box = note.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 844  # in view
        expect(page.locator("#stock-count")).to_have_text(count)  # nothing was done
        page.context.set_offline(False)
        expect(note).to_be_hidden()  # the browser says the network is back
        page.locator("#stock").tap()
        expect(page.locator("#stock-count")).to_have_text(str(int(count) - 1))
        expect(note).to_be_hidden()
