"""Playing in a real browser: clicks, keys, the New game window, share links, accessibility."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from app.engine import DRAW, Game, Rules
from tests.support.browser import DESKTOP, PHONE, refusal, run_axe, screenshot
from tests.support.deals import blocked_by_drawing, won_deal

CODE = "TP1-E-AAAAAAB"


def card(page: Page, position: int):  # type: ignore[no-untyped-def]
    return page.locator(f'#table [data-position="{position}"]')


def play_line(page: Page, line: tuple[int, ...]) -> None:
    for number, action in enumerate(line, start=1):
        if action == DRAW:
            page.click("#stock")
        else:
            card(page, action).click()
        expect(page.locator("#moves")).to_have_text(str(number))


def test_win_a_game_by_clicks(new_page) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal(Rules.EASY)
    page = new_page()
    page.goto(f"/g/{code.text()}")
    play_line(page, line)
    expect(page.locator("#result")).to_contain_text("You won!")
    expect(page.locator("#status")).to_contain_text("You won!")
    final = Game(code)
    final.replay(line)
    expect(page.locator("#score")).to_have_text(str(final.score))
    expect(page.locator("#undo")).to_be_disabled()
    # The live server is shared by the session's browser tests, and others win this deal too:
    # the first win's words and the record are this player's only when no test won it before.
    # (The first-winner announcement itself is tested on a server of its own: tests/web/test_records.py.)
    if page.locator("#announcement", has_text="You are the first to win this deal!").count():
        expect(page.locator("#deal-record")).to_have_text(f"Record: {final.score} by you — watch")
    else:
        expect(page.locator("#deal-record")).to_contain_text("— watch")
    expect(page.locator("#deal-record a")).to_have_attribute("href", re.compile(r"^/replay/"))
    assert page.url.endswith(f"/g/{code.text()}")  # no page load happened along the way
    screenshot(page, "won-desktop")
    assert page.js_errors == []


def test_refused_click_with_and_without_error_help(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.faults.expect(*refusal(409, "POST", "/games/[^/]+/remove"))  # the refused clicks
    page.goto(f"/g/{CODE}")
    game = Game.from_code(CODE)
    wrong = next(p for p in range(18, 28) if p not in game.playable_positions())
    card(page, 0).click()
    expect(page.locator("#status")).to_have_text("This card is blocked")
    card(page, wrong).click()
    assert game.waste is not None  # the refusal names the waste card (issue 30)
    expect(page.locator("#status")).to_have_text(f"Rank must be one higher or lower. Waste: {game.waste.words()}.")
    expect(page.locator("#moves")).to_have_text("0")
    page.click("#error-help")
    expect(page.locator("#error-help")).to_have_attribute("aria-pressed", "false")
    page.click("#stock")
    expect(page.locator("#status")).to_contain_text("Drew")
    card(page, 0).click()
    page.wait_for_timeout(300)
    expect(page.locator("#status")).to_have_text("")
    page.reload()  # the switch is remembered
    expect(page.locator("#error-help")).to_have_attribute("aria-pressed", "false")


def test_draw_remove_and_undo(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.goto(f"/g/{CODE}")
    game = Game.from_code(CODE)
    expect(page.locator("#undo")).to_be_disabled()
    position = game.playable_positions()[0]
    card(page, position).click()
    game.remove(position)
    expect(page.locator("#waste")).to_have_attribute("aria-label", f"Waste: {game.waste.words()}")
    expect(page.locator("#score")).to_have_text("499")
    page.click("#stock")
    expect(page.locator("#stock-count")).to_have_text("22")
    page.click("#undo")
    expect(page.locator("#stock-count")).to_have_text("23")
    page.click("#undo")
    expect(card(page, position)).to_have_attribute("aria-label", Game.from_code(CODE).deal.tableau[position].words())
    expect(page.locator("#moves")).to_have_text("2")
    expect(page.locator("#score")).to_have_text("500")
    expect(page.locator("#undo")).to_be_disabled()
    page.reload()
    expect(page.locator("#moves")).to_have_text("2")


def test_blocked_game(new_page) -> None:  # type: ignore[no-untyped-def]
    code = blocked_by_drawing()
    page = new_page()
    page.goto(f"/g/{code.text()}")
    for count in range(22, -1, -1):
        page.click("#stock")
        expect(page.locator("#stock-count")).to_have_text(str(count))
    expect(page.locator("#status")).to_contain_text("No more possible moves")
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result h2")).to_have_text("No more possible moves")
    expect(page.locator("#undo")).to_be_enabled()
    screenshot(page, "blocked-desktop")
    page.click("#undo")
    expect(page.locator("#stock-count")).to_have_text("1")


def test_new_game_window_with_a_bad_and_a_good_code(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.faults.expect(*refusal(400, "POST", "/new"))  # the bad code
    page.goto(f"/g/{CODE}")
    page.click("#stock")
    expect(page.locator("#moves")).to_have_text("1")  # the draw's swap closes an open New game window
    page.click("#new-game-button")
    expect(page.locator("#new-game")).to_be_visible()
    page.fill("#code-input", "TP1-E-NOPE")
    page.click("#deal")
    expect(page.locator("#code-error")).to_contain_text("'TP1-E-NOPE' is not a game code")
    expect(page.locator("#moves")).to_have_text("1")  # the current game stays as it was
    screenshot(page, "new-game-error-desktop")
    page.fill("#code-input", "http://example.org/g/tp1-c-aaaaaac")
    page.locator("input[value=classic]").check()
    page.click("#deal")
    expect(page.locator("#code")).to_have_text("TP1-C-AAAAAAC")
    expect(page.locator("#new-game")).to_be_hidden()
    expect(page).to_have_url(re.compile(r"/g/TP1-C-AAAAAAC$"))
    expect(page.locator("#moves")).to_have_text("0")
    page.reload()
    expect(page.locator("#code")).to_have_text("TP1-C-AAAAAAC")
    page.go_back()
    expect(page.locator("#code")).to_have_text(CODE)


def test_share_link_in_a_fresh_browser_shows_the_same_deal(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(permissions=["clipboard-read", "clipboard-write"])
    page.goto("/")
    first = Game.from_code(page.locator("#code").inner_text())
    position = first.playable_positions()[0] if first.playable_positions() else None
    if position is not None:
        card(page, position).click()
        expect(page.locator("#moves")).to_have_text("1")
    page.click("#share")
    expect(page.locator("#status")).to_have_text("Share link copied")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link.endswith("/g/" + first.code_text())
    friend = new_page()
    friend.goto(link)
    expect(friend.locator("#moves")).to_have_text("0")
    for p in range(18, 28):
        expect(card(friend, p)).to_have_attribute("aria-label", first.deal.tableau[p].words())
    expect(page.locator("#moves")).to_have_text("1" if position is not None else "0")


def test_keyboard_only_play(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.goto(f"/g/{CODE}")
    game = Game.from_code(CODE)
    target = game.playable_positions()[0]
    # The board is one Tab stop: Tab reaches it, the arrow keys reach the card.
    for _ in range(15):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('#peaks')"):
            break
    else:
        raise AssertionError("could not reach the board with Tab")
    for _ in range(10):
        if page.evaluate("document.activeElement.dataset.position") == str(target):
            break
        page.keyboard.press("ArrowRight")
    else:
        raise AssertionError("could not reach the card with the arrow keys")
    page.keyboard.press("Enter")
    expect(page.locator("#moves")).to_have_text("1")
    # Focus stays on the table, on a card still there.
    assert page.evaluate("!!document.activeElement.closest('#table')")
    page.keyboard.press("d")
    expect(page.locator("#moves")).to_have_text("2")
    page.keyboard.press("u")
    expect(page.locator("#stock-count")).to_have_text("23")
    # Space on a face-up card plays it when it can move; focus stays on the board.
    game.remove(target)
    game.draw()
    game.undo()
    playable = game.playable_positions()
    assert playable
    page.locator(f'#table [data-position="{playable[0]}"]').focus()
    page.keyboard.press(" ")
    expect(page.locator("#moves")).to_have_text("3")
    game.remove(playable[0])
    expect(page.locator("#waste")).to_have_attribute("aria-label", f"Waste: {game.waste.words()}")
    expect(page.locator("#peaks [tabindex='0']")).to_be_focused()
    page.keyboard.press("n")
    expect(page.locator("#new-game")).to_be_visible()
    expect(page.locator("#code-input")).to_be_focused()


def test_layout_fits_desktop_and_phone_and_passes_axe(new_page) -> None:  # type: ignore[no-untyped-def]
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = new_page(viewport=viewport)
        page.goto(f"/g/{CODE}")
        page.click("#stock")
        expect(page.locator("#moves")).to_have_text("1")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        box = card(page, 27).bounding_box()
        assert box is not None and box["x"] + box["width"] <= viewport["width"]
        screenshot(page, f"game-{name}")
        assert run_axe(page) == []
        page.click("#new-game-button")
        screenshot(page, f"new-game-{name}")


def test_hint_marks_a_move_and_h_asks_for_one(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.goto(f"/g/{CODE}")
    page.click("#hint")
    expect(page.locator("#status")).to_contain_text("Hint:", timeout=30_000)  # the solver, on a busy machine
    expect(page.locator("#hints")).to_have_text("1")
    assert page.locator(".hinted").count() == 1
    screenshot(page, "hint-desktop")
    page.keyboard.press("d")
    expect(page.locator("#moves")).to_have_text("1")
    assert page.locator(".hinted").count() == 0  # the mark goes with the next move
    page.keyboard.press("h")
    expect(page.locator("#hints")).to_have_text("2")


def test_an_ended_game_has_one_share_and_it_copies_the_games_link(new_page) -> None:  # type: ignore[no-untyped-def]
    """Issue 30: once the game ends, the result box's Share and the bar's send the same: the
    game itself (its review link), copied where there is no share sheet."""
    from tests.support.deals import blocked_by_drawing

    code = blocked_by_drawing()
    page = new_page(permissions=["clipboard-read", "clipboard-write"])
    page.goto(f"/g/{code.text()}")
    for stock in range(23, 0, -1):
        page.keyboard.press("d")
        expect(page.locator("#stock-count")).to_have_text(str(stock - 1))
    expect(page.locator("#result")).to_be_visible()
    review = f"/replay/{code.text()}/" + ".".join(["d"] * 23)
    page.locator("#result .share > summary").click()
    for button in ("#share-game", "#share"):
        page.evaluate("navigator.clipboard.writeText('')")
        page.click(button)
        expect(page.locator("#status")).to_have_text("Share link copied")
        assert page.evaluate("navigator.clipboard.readText()").endswith(review), button
