"""What the board says without words (issue 30): a refused move marks the card itself; the
New game window gives focus back when Escape closes it; a toggle's name is its words."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from app.engine import Game
from tests.support.browser import MID_CODE, REFUSED_MOVES, reach, settle


def refusable(game: Game) -> int:
    """A face-up card the rules refuse now: exposed but not one rank from the waste."""
    playable = set(game.playable_positions())
    for position in range(28):
        if game.is_face_up(position) and game.is_exposed(position) and position not in playable:
            return position
    raise AssertionError("no refusable card in this deal")


def test_a_refused_card_is_marked_with_motion_and_without(new_page) -> None:  # type: ignore[no-untyped-def]
    for motion in ("no-preference", "reduce"):
        page = new_page(reduced_motion=motion)
        page.faults.expect(*REFUSED_MOVES)  # the refused card, on purpose
        page.goto(f"/g/{MID_CODE}")
        if page.locator("#moves").inner_text() != "0":
            page.click("#restart")
            expect(page.locator("#moves")).to_have_text("0")
        settle(page)
        position = refusable(Game.from_code(MID_CODE))
        card = page.locator(f"#card-{position}")
        card.click()
        expect(page.locator("#status")).to_contain_text("Rank must be one higher or lower")
        expect(card).to_have_attribute("class", _has("refused"))
        ring = card.evaluate("e => getComputedStyle(e).outlineStyle")
        assert ring == "solid", (motion, ring)
        # The computed name, not getAnimations(): a 0.36 s shake may be over before a loaded
        # machine asks, and the question is whether the card is given the shake at all.
        shaking = card.evaluate("e => getComputedStyle(e).animationName")
        assert shaking == ("refuse" if motion == "no-preference" else "none"), (motion, shaking)
        expect(page.locator("#moves")).to_have_text("0")  # nothing moved
        page.click("#stock")  # the next action takes the mark away
        expect(page.locator("#moves")).to_have_text("1")
        expect(card).not_to_have_attribute("class", _has("refused"))


def _has(word: str) -> re.Pattern[str]:
    return re.compile(rf"(^|\s){word}(\s|$)")


def test_escape_from_the_new_game_window_gives_focus_back(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    reach(page, "mid")
    page.locator("#peaks button.card.face").first.focus()
    before = page.evaluate("document.activeElement.id")
    page.keyboard.press("n")
    expect(page.locator("#new-game")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#new-game")).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == before


def test_a_toggles_name_is_its_words_not_its_tick(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    reach(page, "mid")
    toggle = page.locator("#error-help")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_have_accessible_name("Error help")


def test_the_difficulty_menu_is_a_finger_s_target_on_a_phone(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    reach(page, "new-game")
    menu = page.locator("#new-game select[name=difficulty]")
    expect(menu).to_be_visible()
    box = menu.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44, box


def test_a_tag_in_forced_colours_takes_the_systems_colours(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(forced_colors="active")
    reach(page, "mid")
    tag = page.locator(".rules-tag")
    adjust, border = tag.evaluate("e => [getComputedStyle(e).forcedColorAdjust, getComputedStyle(e).borderTopStyle]")
    assert adjust == "auto" and border == "solid", (adjust, border)
