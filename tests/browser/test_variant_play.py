"""The variants in a real browser (issue 17, docs/variants.md): one game of each played by
keyboard to its end, what the board shows of each, and the New game window's choice of
them, remembered; screenshots of a variant game and of the window at three sizes."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from app.engine import DRAW, Action, Game, GameCode, Status
from app.engine.search.analysis import analyse
from tests.support.browser import REFUSED_MOVES, VIEWS, not_fitting, play_by_keys, screenshot, sideways

WINDOW = ["#new-game", "#deal", "#cancel-new-game"]
"""In view whatever the window's content does (its Deal and Cancel stay at its foot)."""

IN_WINDOW = ["#code-input", "#variants-choice", "input[name=variants]"]
"""Reachable in the window: scrolled to there if need be (a short screen), and then not under Deal and Cancel."""


def line_to_the_end(code: GameCode) -> list[int]:
    """A winning line where the engine finds one; else (no win) the simple player's: the first card that fits, else a draw, until the game ends."""
    game = Game(code)
    analysis = analyse(code)
    found = analysis.winning_line(0, 0, analysis.waste_after[0])
    if found is not None:
        return [DRAW if action.position is None else action.position for action in found]
    line: list[int] = []
    while game.status is Status.PLAYING:
        playable = game.playable_positions()
        line.append(playable[0] if playable else DRAW)
        game.play(Action(None if line[-1] == DRAW else line[-1]))
    return line


def play_to_the_end(page: Page, code: GameCode) -> Game:
    """Play the line by keyboard from the deal (the game must be at its start, or back at it by
    undos, which count as moves), checking the score after every action against the engine's."""
    game = Game(code)
    made = int(page.locator("#moves").inner_text())
    for number, action in enumerate(line_to_the_end(code), start=made + 1):
        play_by_keys(page, action)
        expect(page.locator("#moves")).to_have_text(str(number))
        game.play(Action(None if action == DRAW else action))
        expect(page.locator("#score")).to_have_text(str(game.score))
    assert game.status is not Status.PLAYING
    expect(page.locator("#result")).to_be_visible()
    heading = "You won!" if game.status is Status.WON else "No more possible moves"
    expect(page.locator("#result-title")).to_have_text(heading)
    return game


def test_open_peaks(new_page) -> None:  # type: ignore[no-untyped-def]
    page, code = new_page(), GameCode.parse("TP1-EO-AAAAAAB")
    page.faults.expect(*REFUSED_MOVES)  # the covered card, refused on purpose
    page.goto(f"/g/{code.text()}")
    expect(page.locator("#variants-tag")).to_have_text("Open peaks")
    expect(page.locator("#peaks .card.back")).to_have_count(0)
    expect(page.locator("#peaks button.card.face")).to_have_count(28)
    expect(page.locator("#peaks .card.covered")).to_have_count(18)
    top = Game(code).deal.tableau[0]
    expect(page.locator("#card-0")).to_have_accessible_name(f"{top.words()}, covered")
    page.locator("#card-0").focus()
    page.keyboard.press("Enter")  # shown, but covered: refused
    expect(page.locator("#moves")).to_have_text("0")
    screenshot(page, "variant-open-peaks")
    play_to_the_end(page, code)
    assert page.js_errors == []


def test_empty_waste(new_page) -> None:  # type: ignore[no-untyped-def]
    page, code = new_page(), GameCode.parse("TP1-EW-AAAAAAB")
    page.goto(f"/g/{code.text()}")
    waste = page.locator("#waste")
    expect(waste).to_have_accessible_name("Waste: empty, any exposed card can be removed")
    expect(page.locator("#waste .waste-note")).to_have_text("Empty waste")
    expect(page.locator("#stock-count")).to_have_text("24")
    play_by_keys(page, 19)  # any exposed card starts the waste
    expect(waste).to_have_accessible_name("Waste: ace of diamonds")
    expect(page.locator("#status")).to_have_text("Ace of diamonds to the waste. Score 499.")
    page.keyboard.press("u")
    expect(waste).to_have_accessible_name("Waste: empty, any exposed card can be removed")
    expect(page.locator("#status")).to_contain_text("Waste: empty, any exposed card can be removed.")
    page.reload()
    play_to_the_end(page, code)
    assert page.js_errors == []


def test_joker(new_page) -> None:  # type: ignore[no-untyped-def]
    page, code = new_page(), GameCode.parse("TP1-EJ-AAAAAAD")
    page.goto(f"/g/{code.text()}")
    joker = page.get_by_role("button", name="Joker", exact=True)
    expect(joker).to_have_attribute("data-position", "22")
    expect(joker.locator(".joker-word")).to_be_visible()
    expect(joker).to_have_attribute("data-r", "JK")
    screenshot(page, "variant-joker")
    play_by_keys(page, 22)
    expect(page.locator("#status")).to_have_text("Joker to the waste. Score 499.")
    expect(page.locator("#waste")).to_have_accessible_name("Waste: joker")
    expect(page.locator("#waste-card.joker .joker-word")).to_be_visible()
    page.keyboard.press("u")
    expect(page.get_by_role("button", name="Joker", exact=True)).to_be_visible()
    play_to_the_end(page, code)
    assert page.js_errors == []


def test_traditional_scoring(new_page) -> None:  # type: ignore[no-untyped-def]
    page, code = new_page(), GameCode.parse("TP1-ET-AAAAAAB")
    page.goto(f"/g/{code.text()}")
    expect(page.locator("#score")).to_have_text("0")
    expect(page.locator("#run-bonus")).to_have_text("next +1")
    page.keyboard.press("d")
    expect(page.locator("#score")).to_have_text("-5")  # below 0
    page.keyboard.press("u")
    expect(page.locator("#score")).to_have_text("0")
    page.keyboard.press("h")
    expect(page.locator("#status")).to_have_text(re.compile(r"^Hint: (play the|draw)"))
    game = play_to_the_end(page, code)
    expect(page.locator("#run-bonus")).to_have_text(f"next +{game.run + 1}")
    best = analyse(code).of(Game(code)).best_score
    expect(page.locator("#outlook")).to_contain_text(str(best))
    expect(page.locator("#deal-difficulty")).not_to_contain_text("not available")
    screenshot(page, "variant-traditional-end")
    assert page.js_errors == []


def test_all_four_together(new_page) -> None:  # type: ignore[no-untyped-def]
    page, code = new_page(), GameCode.parse("TP1-COWJT-AAAAAAB")
    page.goto(f"/g/{code.text()}")
    expect(page.locator("h1")).to_have_text(
        "TriPeaks, game TP1-COWJT-AAAAAAB: Classic · Open peaks · Empty waste · Joker · Traditional scoring"
    )
    expect(page.locator("#peaks .card.back")).to_have_count(0)
    expect(page.locator("#waste")).to_have_accessible_name("Waste: empty, any exposed card can be removed")
    expect(page.get_by_role("button", name=re.compile(r"^Joker(, covered)?$"))).to_have_count(1)
    expect(page.locator("#stock-count")).to_have_text("25")
    for view in ("1280x800", "390x844", "844x390"):
        page.set_viewport_size(VIEWS[view])
        assert sideways(page) == []
        screenshot(page, f"variant-owjt-{view}")
    page.set_viewport_size(VIEWS["1280x800"])
    play_to_the_end(page, code)
    assert page.js_errors == []


def test_the_new_game_window_deals_and_remembers_variants(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.goto("/g/TP1-E-AAAAAAB")
    page.keyboard.press("n")
    expect(page.locator("#new-game")).to_be_visible()
    boxes = page.locator("#variants-choice input[name=variants]")
    expect(boxes).to_have_count(4)
    page.get_by_role("checkbox", name=re.compile("^Open peaks")).check()
    page.get_by_role("checkbox", name=re.compile("^Joker")).check()
    problems = []
    for view in ("1280x800", "390x844", "844x390", "1280x800-zoom200"):
        page.set_viewport_size(VIEWS[view])
        problems += [(view, *p) for p in not_fitting(page, WINDOW)] + [(view, *p) for p in sideways(page)]
        for selector in IN_WINDOW:
            for found in page.locator(selector).all():  # each one has an id: checked alone
                found.scroll_into_view_if_needed()
                problems += [(view, *p) for p in not_fitting(page, [f"#{found.get_attribute('id')}"])]
        screenshot(page, f"variant-window-{view}")
    assert problems == []
    page.set_viewport_size(VIEWS["1280x800"])
    page.click("#deal")
    expect(page).to_have_url(re.compile(r"/g/TP1-EOJ-[A-Z]{7}$"))
    expect(page.locator("#variants-tag")).to_have_text("Open peaks · Joker")
    expect(page.locator("#peaks .card.back")).to_have_count(0)
    page.click("#new-game-button")  # the fresh window remembers the choice
    expect(page.get_by_role("checkbox", name=re.compile("^Open peaks"))).to_be_checked()
    expect(page.get_by_role("checkbox", name=re.compile("^Joker"))).to_be_checked()
    expect(page.get_by_role("checkbox", name=re.compile("^Empty waste"))).not_to_be_checked()
    page.goto("/new")  # and so does the page, from the cookie
    expect(page.get_by_role("checkbox", name=re.compile("^Joker"))).to_be_checked()
    assert page.js_errors == []
