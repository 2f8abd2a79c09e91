"""Every layout in a real browser (issue 25): played to its end by keyboard alone (the arrow
keys over the roving tabindex, Enter to play, D to draw), following the solver's winning
line; every layout fits every view in every language, at the deal and once won, with
screenshots at 1280x800, 390x844 and 844x390 in every language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from app.engine import DRAW, GameCode, Rules, Variants
from app.engine.layout import LAYOUTS, Layout
from app.engine.search.analysis import analyse
from tests.support.browser import (
    BROWSER_LOCALES,
    PLAYED,
    SCREENSHOTS,
    VIEWS,
    not_fitting,
    post_line,
    settle,
    sideways,
)

OTHER_LAYOUTS = [layout for layout in LAYOUTS.values() if layout.letter]
SHOWN = ("1280x800", "390x844", "844x390")


def deal_of(layout: Layout) -> tuple[GameCode, list[int]]:
    """A deal of the layout and the solver's winning line for it (positions, or DRAW)."""
    code = GameCode(Rules.EASY, 4, Variants(), layout)
    analysis = analyse(code)
    line = analysis.winning_line(0, 0, analysis.waste_after[0])
    assert line is not None
    return code, [DRAW if action.position is None else action.position for action in line]


FOCUSED = "() => { const e = document.activeElement; return e && e.closest('#peaks') ? e.dataset.position : null; }"
CENTRES = """() => Object.fromEntries([...document.querySelectorAll('#peaks button.card.face')].map(e => {
  const r = e.getBoundingClientRect(); return [e.dataset.position, [r.x + r.width / 2, r.y + r.height / 2]]; }))"""
ARROWS = {"ArrowRight": (1, 0), "ArrowLeft": (-1, 0), "ArrowDown": (0, 1), "ArrowUp": (0, -1)}


def arrow_step(centres: dict[str, list[float]], here: str, key: str) -> str | None:
    """Where an arrow key goes from ``here``, by the rule static/tripeaks.js states: the face-up
    card furthest along that way, nearest across it, the across distance weighed three times."""
    (hx, hy), (ux, uy) = centres[here], ARROWS[key]
    best, best_d = None, float("inf")
    for other, (x, y) in centres.items():
        if other == here:
            continue
        dx, dy = x - hx, y - hy
        along, across = (dx * ux, dy) if ux else (dy * uy, dx)
        if along > 2 and along + 3 * abs(across) < best_d:
            best, best_d = other, along + 3 * abs(across)
    return best


def focus_by_keys(page: Page, position: int) -> int:
    """Move the keyboard focus to the card at ``position`` with Tab (into the board: one stop)
    and the arrow keys alone, the shortest way the arrows' rule allows, each key's landing
    checked; how many keys it took."""
    keys = 0
    while page.evaluate(FOCUSED) is None:
        page.keyboard.press("Tab")
        keys += 1
        assert keys < 40, "Tab never reached the board"
    centres = page.evaluate(CENTRES)
    start, goal = page.evaluate(FOCUSED), str(position)
    paths: dict[str, list[str]] = {start: []}
    frontier = [start]
    while frontier and goal not in paths:
        here = frontier.pop(0)
        for key in ARROWS:
            there = arrow_step(centres, here, key)
            if there is not None and there not in paths:
                paths[there] = [*paths[here], key]
                frontier.append(there)
    assert goal in paths, f"no arrow path from {start} to {goal}"
    here = start
    for key in paths[goal]:
        page.keyboard.press(key)
        here = arrow_step(centres, here, key) or here
        assert page.evaluate(FOCUSED) == here, (key, here)
    roving = page.locator("#peaks button.card.face[tabindex='0']")
    expect(roving).to_have_count(1)
    expect(roving).to_have_attribute("data-position", goal)  # the one Tab stop follows the focus
    return keys + len(paths[goal])


@pytest.mark.parametrize(("layout", "lang"), list(zip(OTHER_LAYOUTS, BROWSER_LOCALES, strict=True)), ids=str)
def test_every_layout_plays_to_its_end_by_keyboard(new_page, layout: Layout, lang: str) -> None:  # type: ignore[no-untyped-def]
    """Each layout in another language (all four in turn), at a laptop's size."""
    code, line = deal_of(layout)
    page = new_page(locale=BROWSER_LOCALES[lang], reduced_motion="reduce")
    page.goto(f"/g/{code.text()}")
    expect(page.locator("#layout-tag")).to_be_visible()
    for number, action in enumerate(line, start=1):
        if action == DRAW:
            page.keyboard.press("d")
        else:
            focus_by_keys(page, action)
            page.keyboard.press("Enter")
        expect(page.locator("#moves")).to_have_text(str(number))
        if action != DRAW and number < len(line):
            expect(page.locator(f"#card-{action}")).to_have_class(f"slot pos-{action} {place(layout, action)}")
            expect(page.locator("#status")).not_to_be_empty()  # what happened, said
    expect(page.locator("#result.won")).to_be_visible()
    expect(page.locator("#peaks button.card")).to_have_count(0)
    assert page.js_errors == [], (lang, layout, page.js_errors)


def place(layout: Layout, position: int) -> str:
    spot = layout.spots[position]
    return f"r-{spot.row} x-{spot.column} h-{spot.height}"


@pytest.mark.parametrize("lang", BROWSER_LOCALES)
def test_every_layout_fits_every_view_in_every_language(new_page, lang: str) -> None:  # type: ignore[no-untyped-def]
    """At the deal and once won: every face-up card, the stock, the waste and the buttons in
    view and uncovered, no sideways scroll; the cards as large as the layout's width allows
    (a narrower layout's cards are larger than three peaks' where the width decides)."""
    problems = []
    page = new_page(locale=BROWSER_LOCALES[lang], reduced_motion="reduce")
    for layout in OTHER_LAYOUTS:
        code, line = deal_of(layout)
        for state in ("start", "won"):
            page.goto(f"/g/{code.text()}")
            if state == "won" and not page.locator("#result.won").count():
                post_line(page, line)
                page.goto(f"/g/{code.text()}", timeout=60_000)
            if state == "won":  # the solver's answers come on their own: a while on a busy machine
                expect(page.locator("#result [hx-trigger='load']")).to_have_count(0, timeout=90_000)
            for view, size in VIEWS.items():
                page.set_viewport_size(size)
                settle(page)
                wanted = PLAYED if state == "start" else ["#stock", "#waste", "#result-title"]
                problems.extend((layout.word, state, view, *p) for p in not_fitting(page, wanted))
                problems.extend((layout.word, state, view, *p) for p in sideways(page))
                if view in SHOWN:
                    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                    name = f"layout-{layout.word}-{lang}-{state}-{view}.png"
                    page.screenshot(path=str(SCREENSHOTS / name), caret="initial")
    assert page.js_errors == []
    assert problems == [], "\n".join(map(str, problems))


def test_cards_are_as_large_as_the_layout_s_width_allows(new_page) -> None:  # type: ignore[no-untyped-def]
    """On a phone held upright the width decides: diamonds and up-down (17 half-card columns)
    get larger cards than three peaks and the valley (19)."""
    page = new_page(viewport=VIEWS["390x844"])
    widths = {}
    for layout in LAYOUTS.values():
        page.goto(f"/g/{GameCode(Rules.EASY, 4, Variants(), layout).text()}")
        box = page.locator("#peaks .card").first.bounding_box()
        table = page.locator("#table").bounding_box()
        assert box and table
        widths[layout.word] = box["width"]
        assert table["width"] <= 390 + 0.5
    assert widths["diamonds"] == widths["up-down"] > widths["three-peaks"] * 1.08
    assert widths["valley"] == widths["theatre"] == widths["three-peaks"]
