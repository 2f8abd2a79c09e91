"""The review in a real browser: step with the keyboard and the slider, see the point of no
return marked; screenshots at desktop, phone and phone-landscape sizes."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Route, expect

from tests.support.browser import BROWSER_LOCALES, DESKTOP, PHONE, VIEWS, not_fitting, screenshot, settle

CODE = "TP1-E-AAAAAAB"
THROWN = "22.19.21.d.12.18.d.d.d.d.20.d.d.d.10.d.11.d.d.9.23.25.d.3.d.13.d.d.d.d.d.d.d.d.d.4.0.d.27"
LAST = len(THROWN.split("."))
LANDSCAPE = {"width": 844, "height": 390}
REVIEWED = [".replay-step .card.face", "#stock", "#waste", "#first", "#back", "#forward", "#last", "#step-slider",
            "#track", "#point-of-no-return", "#step-number"]


@pytest.fixture(autouse=True)
def analysed(live_server: str) -> None:
    """Review the line once before the browser asks: today's solver takes a while on a busy
    machine for a first review, and the server keeps it (the browser's timeout is 10 s)."""
    assert httpx.get(f"{live_server}/api/replay/{CODE}/{THROWN}", timeout=300).status_code == 200


def test_step_through_a_review_by_keyboard_and_slider(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(DESKTOP)
    page.goto(f"/replay/{CODE}/{THROWN}?step=0")
    step = page.locator("#step-number")
    expect(step).to_have_text("0")
    expect(page.locator("#point-of-no-return")).to_contain_text("Move 23, drawing, lost the win: removing the")
    expect(page.locator("#no-return-mark")).to_be_visible()
    page.keyboard.press("ArrowRight")
    expect(step).to_have_text("1")
    expect(page).to_have_url(re.compile(r"step=1$"))
    page.keyboard.press("End")
    expect(step).to_have_text(str(LAST))
    expect(page.locator("#winnable")).to_have_text("No longer winnable")
    page.keyboard.press("ArrowLeft")
    expect(step).to_have_text(str(LAST - 1))
    page.keyboard.press("Home")
    expect(step).to_have_text("0")
    expect(page.locator("#winnable")).to_have_text("Still winnable")
    page.locator("#step-slider").fill("22")
    expect(step).to_have_text("22")
    expect(page).to_have_url(re.compile(r"step=22$"))
    page.locator("#step-slider").fill("23")
    expect(step).to_have_text("23")
    expect(page.locator("#step-words")).to_contain_text("Point of no return.")
    expect(page.locator("#winnable")).to_have_text("No longer winnable")
    page.locator("#step-slider").focus()
    page.keyboard.press("ArrowLeft")  # the slider's own keys move it: back to 22
    expect(step).to_have_text("22")
    screenshot(page, "review-desktop")
    page.locator("#reveal").click()
    expect(page.locator("#reveal")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".card.hindsight").first).to_be_visible()
    screenshot(page, "review-desktop-hindsight")
    page.go_back()
    expect(page.locator("#reveal")).to_have_attribute("aria-pressed", "false")
    page.locator("#no-return-mark a").click()
    expect(step).to_have_text("23")


def test_review_at_phone_sizes(new_page) -> None:  # type: ignore[no-untyped-def]
    for name, viewport in (("review-phone", PHONE), ("review-phone-landscape", LANDSCAPE)):
        page = new_page(viewport)
        page.goto(f"/replay/{CODE}/{THROWN}?step=23")
        expect(page.locator("#no-return-mark")).to_be_visible()
        expect(page.locator("#step-number")).to_have_text("23")
        page.locator("#forward").click()
        expect(page.locator("#step-number")).to_have_text("24")
        screenshot(page, name)


def test_review_in_hebrew(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(PHONE, locale="he-IL", extra_http_headers={"Accept-Language": "he"})
    page.goto(f"/replay/{CODE}/{THROWN}?step=23")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#no-return-mark")).to_be_visible()
    screenshot(page, "review-phone-he")


@pytest.mark.parametrize("lang", ["en", "he", "uk", "th"])
def test_the_review_fits_and_every_text_has_contrast(new_page, lang: str) -> None:  # type: ignore[no-untyped-def]
    """Desktop, phone and phone on its side, light and dark: no sideways scroll, and every text
    at least 4.5:1 (3:1 large) against the pixels actually behind it."""
    from tests.support.browser import low_contrast, no_sideways_scroll

    low = []
    for scheme in ("light", "dark"):
        for viewport in (DESKTOP, PHONE, LANDSCAPE):
            page = new_page(
                viewport, locale=BROWSER_LOCALES[lang], bypass_csp=True, color_scheme=scheme,
                extra_http_headers={"Accept-Language": lang},
            )
            page.goto(f"/replay/{CODE}/{THROWN}?step=23")
            expect(page.locator("#no-return-mark")).to_be_visible()
            settle(page)
            no_sideways_scroll(page, viewport["width"])
            low.extend((scheme, viewport["width"], *t) for t in low_contrast(page))
            if scheme == "light":
                screenshot(page, f"review-{viewport['width']}-{lang}")
    assert low == [], "\n".join(map(str, low))
    # Issue 30: the whole review in view at every size (the cards, the stock and the waste, the
    # step buttons, the slider and the track), with no scrolling.
    page = new_page(DESKTOP, locale=BROWSER_LOCALES[lang], extra_http_headers={"Accept-Language": lang})
    page.goto(f"/replay/{CODE}/{THROWN}?step=23")
    expect(page.locator("#no-return-mark")).to_be_visible()
    outside = []
    for view, size in VIEWS.items():
        page.set_viewport_size(size)
        settle(page)
        outside.extend((view, *p) for p in not_fitting(page, REVIEWED))
        screenshot(page, f"review-fit-{lang}-{view}")
    assert outside == [], "\n".join(map(str, outside))


def test_every_arrow_press_moves_exactly_one_step(new_page) -> None:  # type: ignore[no-untyped-def]
    """Issue 30: five quick ArrowRight presses once moved two steps (each press followed the
    Forward link still shown). Now each press counts from the step the last one asked for,
    with motion on; and so do quick clicks on Forward and Back."""
    page = new_page(DESKTOP)
    page.goto(f"/replay/{CODE}/{THROWN}?step=3")
    step = page.locator("#step-number")
    expect(step).to_have_text("3")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect(step).to_have_text("8")
    expect(page).to_have_url(re.compile(r"step=8$"))
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    expect(step).to_have_text("5")
    settle(page)
    forward = page.locator("#forward").bounding_box()
    assert forward
    for _ in range(4):  # a mouse player clicking where Forward is, as fast as the mouse goes
        page.mouse.click(forward["x"] + forward["width"] / 2, forward["y"] + forward["height"] / 2)
    expect(step).to_have_text("9")
    settle(page)
    expect(step).to_have_text("9")


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_click_whose_release_meets_a_step_coming_in_still_counts(new_page, motion) -> None:  # type: ignore[no-untyped-def]
    """A quick click on Forward was lost when a step's answer was swapped in between its press
    and its release (CI, 2026-12-07): with motion, the release landed on the view transition
    (the page itself, not Forward); without, on the new Forward, which is not the one pressed.
    Either way the browser clicks nothing. Now the control pressed gets its click."""
    page = new_page(DESKTOP, reduced_motion=motion)
    page.goto(f"/replay/{CODE}/{THROWN}?step=3")
    step = page.locator("#step-number")
    expect(step).to_have_text("3")
    settle(page)
    held: list[Route] = []
    page.route(re.compile(r"step=4$"), lambda route: held.append(route))
    page.keyboard.press("ArrowRight")  # step 4 asked, its answer held back
    for _ in range(500):
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "step 4 was never asked for"
    forward = page.locator("#forward").bounding_box()
    assert forward
    page.mouse.move(forward["x"] + forward["width"] / 2, forward["y"] + forward["height"] / 2)
    page.mouse.down()
    held[0].continue_()  # the answer comes while the button is down
    expect(step).to_have_text("4")
    page.mouse.up()
    expect(step).to_have_text("5")
    settle(page)
    expect(step).to_have_text("5")
    expect(page).to_have_url(re.compile(r"step=5$"))
