"""The game fits every screen: five views, every state, four languages, with screenshots.

In each view and state, every face-up card, the stock, the waste, Undo, Hint and New game (and
an ended game's result heading and buttons) are inside the viewport without scrolling and
nothing covers them; with the New game window open,
the window fits whole. No page scrolls sideways. On a 390x844 phone every target is at least
44x44 px and the cards are as wide as ten across allow, and taller where the height allows.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, screenshot
from tests.browser.states import (
    BROWSER_LOCALES,
    PLAYED,
    STATES,
    VIEWS,
    not_fitting,
    reach,
    settle,
    sideways,
)
from tests.support import blocked_by_drawing

DIALOG = ["#new-game", "#deal", "#cancel-new-game", "#code-input", "input[name=rules]"]


def test_every_state_fits_every_view_in_every_language(new_page) -> None:  # type: ignore[no-untyped-def]
    problems = []
    for lang, locale in BROWSER_LOCALES.items():
        page = new_page(locale=locale)
        for state in STATES:
            reach(page, state)
            for view, size in VIEWS.items():
                page.set_viewport_size(size)
                settle(page)
                if state == "new-game":
                    wanted = DIALOG
                else:
                    wanted = [s for s in PLAYED if not (state == "won" and "card" in s)]
                    if state in ("won", "blocked"):  # the box's heading and buttons: no card over them
                        wanted += ["#result-title", "#result .result-actions .button"]
                for problem in not_fitting(page, wanted):
                    problems.append((lang, state, view, *problem))
                if state == "new-game":  # under the window, the table is still all on screen
                    outside = [p for p in not_fitting(page, PLAYED) if p[1] == "outside"]
                    problems.extend((lang, state, view, *p) for p in outside)
                problems.extend((lang, state, view, *p) for p in sideways(page))
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)  # the viewport, as the player sees it
                page.screenshot(path=str(SCREENSHOTS / f"{lang}-{state}-{view}.png"), caret="initial", timeout=60_000)
        assert page.js_errors == []
    assert problems == [], "\n".join(map(str, problems))


def test_other_pages_do_not_scroll_sideways(new_page) -> None:  # type: ignore[no-untyped-def]
    """The New game page and an error page (Statistics and How to play have tests of their own)."""
    problems = []
    for lang, locale in BROWSER_LOCALES.items():
        page = new_page(locale=locale)
        for path in ("/new", "/g/TP1-X-BAD"):
            page.goto(path)
            for view, size in VIEWS.items():
                page.set_viewport_size(size)
                problems.extend((lang, path, view, *p) for p in sideways(page))
    assert problems == [], "\n".join(map(str, problems))


def test_touch_targets_on_a_phone(new_page) -> None:  # type: ignore[no-untyped-def]
    for lang, locale in BROWSER_LOCALES.items():
        page = new_page(viewport=VIEWS["390x844"], locale=locale, has_touch=True, is_mobile=True)
        for state in ("mid", "blocked", "won"):
            reach(page, state)
            small = page.evaluate(
                """() => [...document.querySelectorAll('#stock, #waste, button, a.button, .lang-choice, summary')]
                  .filter(e => e.getClientRects().length && !e.closest('#peaks') && !e.closest('[popover]'))
                  .map(e => [e.id || e.textContent.trim(), e.getBoundingClientRect()])
                  .filter(([, r]) => r.width < 44 || r.height < 44)
                  .map(([name, r]) => [name, Math.round(r.width), Math.round(r.height)])"""
            )
            assert small == [], (lang, state, small)
            # The keyboard-shortcut line is not shown on a touch screen.
            expect(page.locator(".keys")).to_be_hidden()
        reach(page, "mid")
        card = page.locator("#peaks button.card.face").first.bounding_box()
        assert card is not None
        assert card["width"] >= 0.09 * 390  # ten across: as wide as the screen allows
        assert card["height"] >= 1.5 * card["width"]  # and taller, since the height allows it
        corner = page.locator("#peaks button.card.face").first.evaluate(
            "e => parseFloat(getComputedStyle(e, '::before').fontSize)"
        )
        assert corner >= 12
        # Large cards: taller still, with a larger corner index.
        page.click("#large-cards")
        expect(page.locator("#large-cards")).to_have_attribute("aria-pressed", "true")
        settle(page)
        large = page.locator("#peaks button.card.face").first.bounding_box()
        assert large is not None and large["height"] > card["height"] * 1.2
        assert not_fitting(page) == []
        screenshot(page, f"{lang}-large-cards-390x844")
        page.reload()  # the choice is remembered
        expect(page.locator("#main")).to_have_class("main large-cards")
        page.click("#large-cards")
        expect(page.locator("#large-cards")).to_have_attribute("aria-pressed", "false")


def test_a_tap_leaves_no_hover_lift(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport=VIEWS["390x844"], has_touch=True, is_mobile=True)
    reach(page, "start")
    card = page.locator("#peaks button.card.face").first
    card.tap()
    settle(page)
    assert card.evaluate("e => getComputedStyle(e).transform") == "none"


def test_the_board_does_not_shrink_again_when_the_outlook_comes(new_page) -> None:  # type: ignore[no-untyped-def]
    """When a game ends the result box takes its room once; its outlook, loaded on its own a
    moment later, has its line kept for it, so the cards do not jump a second time."""
    page = new_page(reduced_motion="reduce")
    page.goto(f"/g/{blocked_by_drawing().text()}")
    settle(page)
    page.evaluate(
        """() => { window.sizes = [];
          new ResizeObserver(e => window.sizes.push(Math.round(e[0].contentRect.height)))
            .observe(document.querySelector('#peaks')); }"""
    )
    assert page.locator("#moves").inner_text() == "0"
    for count in range(22, -1, -1):
        page.click("#stock")
        expect(page.locator("#stock-count")).to_have_text(str(count))
    expect(page.locator("#outlook")).not_to_be_empty()
    settle(page)
    sizes = page.evaluate("window.sizes")
    assert len(sizes) <= 2, sizes  # the first size, then the one with the box
