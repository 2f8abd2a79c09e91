"""A race played by keyboard alone: when the countdown ends and the board is dealt, focus is on
the board (never the page's body), and the news (a live region) says the cards are dealt; the
first move is a key away."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.support.deals import won_deal

FOCUSED = "document.activeElement && (document.activeElement.id || document.activeElement.className)"


def test_the_dealt_board_takes_focus_and_is_announced(new_page) -> None:  # type: ignore[no-untyped-def]
    code, _ = won_deal()
    page = new_page()
    made = page.request.post("/races", form={"code": code.text()}, max_redirects=0)
    race_url = made.headers["location"]
    page.goto(race_url)
    page.click("#howto-dismiss")
    page.focus("#race-start")
    page.keyboard.press("Enter")  # by keyboard: the countdown, then the deal
    expect(page.locator("#table")).to_be_visible(timeout=8000)
    expect(page.locator("#race-news")).to_have_text("The cards are dealt: the race is on.")
    focused = page.evaluate(FOCUSED)
    assert page.evaluate(
        "document.activeElement.matches('#peaks button.card, #stock')"
    ), f"focus is on {focused!r}, not on the board"
    page.keyboard.press("d")  # the first move, a key away: a draw
    expect(page.locator("#moves")).to_have_text("1")
