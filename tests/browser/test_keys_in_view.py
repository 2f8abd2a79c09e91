"""The keyboard's keys are in view on a desktop screen, without scrolling (issue 30, item 11)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.support.browser import BROWSER_LOCALES, VIEWS, not_fitting, reach, settle


def test_the_keys_line_is_above_the_fold_in_every_language(new_page) -> None:  # type: ignore[no-untyped-def]
    problems = []
    for lang, locale in BROWSER_LOCALES.items():
        page = new_page(viewport=VIEWS["1280x800"], locale=locale)
        for state in ("start", "mid"):  # a new player's first page has the how-to offer too
            reach(page, state)
            for view in ("1280x800", "1366x768"):
                page.set_viewport_size(VIEWS[view])
                settle(page)
                expect(page.locator(".keys")).to_be_visible()
                problems += [(lang, state, view, *p) for p in not_fitting(page, [".keys", "#controls .button"])]
        # With the way back to a game left under way, one row more under the buttons.
        page.set_viewport_size(VIEWS["1280x800"])
        page.click("#stock")
        page.click("#restart")
        expect(page.locator("#resume")).to_be_visible()
        settle(page)
        problems += [(lang, "left", *p) for p in not_fitting(page, [".keys", "#resume"])]
    assert problems == [], problems
