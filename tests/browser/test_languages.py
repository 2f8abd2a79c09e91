"""The game in Hebrew, Ukrainian and Thai in a real browser: play, mirroring, the picker, screenshots."""
# ruff: noqa: RUF001 - the tests hold Ukrainian text, whose letters look like Latin ones

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from app.engine import Game, GameCode
from app.i18n import get_locale
from tests.support.browser import DESKTOP, PHONE, REFUSED_MOVES, card_name, says, screenshot

CODE = "TP1-E-AAAAAAB"
AXE = next((Path(__file__).parent / "vendor").glob("axe-*.min.js"))
BROWSER_LOCALES = {"en": "en-GB", "he": "he-IL", "uk": "uk-UA", "th": "th-TH"}


def card(page: Page, position: int):  # type: ignore[no-untyped-def]
    return page.locator(f'#table [data-position="{position}"]')


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


def centre_x(page: Page, selector: str) -> float:
    b = box(page, selector)
    return b["x"] + b["width"] / 2


def test_play_a_few_moves_in_hebrew(new_page) -> None:  # type: ignore[no-untyped-def]
    he = get_locale("he")
    page = new_page(locale="he-IL")
    page.faults.expect(*REFUSED_MOVES)  # the refused move, on purpose
    page.goto(f"/g/{CODE}")
    expect(page.locator("html")).to_have_attribute("lang", "he")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#new-game-button")).to_have_text("משחק חדש")
    game = Game.from_code(CODE)

    # A refused move says why, in the seeds' Hebrew.
    card(page, 0).click()
    expect(page.locator("#status")).to_have_text("הקלף הזה חסום")
    wrong = next(p for p in range(18, 28) if p not in game.playable_positions())
    card(page, wrong).click()
    # ... and names the waste card (issue 30).
    waste = he.card_words(game.deal.waste)
    expect(page.locator("#status")).to_have_text(f"הדרגה חייבת להיות גבוהה או נמוכה באחת. ערימת השלכה: {waste}.")

    # Remove, draw, undo: every line the page says is Hebrew.
    position = game.playable_positions()[0]
    expect(card(page, position)).to_have_attribute("aria-label", he.card_words(game.deal.tableau[position]))
    card(page, position).click()
    game.remove(position)
    expect(page.locator("#moves")).to_have_text("1")
    expect(page.locator("#status")).to_have_text(f"{he.card_words(game.waste)} לערימת ההשלכה. ניקוד {game.score}.")
    expect(page.locator("#waste")).to_have_attribute(
        "aria-label", f"ערימת השלכה: {he.card_words(game.waste)}"
    )
    page.click("#stock")
    game.draw()
    expect(page.locator("#stock-count")).to_have_text("22")
    # The draw's words, then (issue 30) whether a card can be played now.
    expect(page.locator("#status")).to_have_text(re.compile("^" + re.escape(f"משכת {he.card_words(game.waste)}. ניקוד {game.score}. ")))
    expect(page.locator("#stock")).to_have_attribute("aria-label", "קופת משיכה: 22 קלפים. משיכת קלף")
    page.click("#undo")
    expect(page.locator("#stock-count")).to_have_text("23")
    expect(page.locator("#status")).to_contain_text("הקלף חזר לקופת המשיכה")  # the drawn card is not named
    page.locator("details.words summary").click()
    expect(page.locator("#words-text")).to_contain_text("קופת משיכה: 23 קלפים; ערימת השלכה: ")

    # The table mirrors: the first peak is on the right, the stock right of the waste...
    assert centre_x(page, '#table [data-position="18"]') > centre_x(page, '#table [data-position="27"]')
    assert centre_x(page, '#table [data-position="0"]') > centre_x(page, '#table [data-position="2"]')
    assert centre_x(page, "#stock") > centre_x(page, "#waste")
    # ... and the brand sits at the right end of the top bar, the language picker at the left.
    assert centre_x(page, ".brand") > centre_x(page, ".language-menu")
    # ... but card faces do not: the rank stays in the top left corner, written left to right.
    face = page.locator("#waste .card")
    assert face.evaluate("el => getComputedStyle(el, '::before').direction") == "ltr"
    corner = face.evaluate("el => getComputedStyle(el, '::before').left")
    assert corner.endswith("px") and float(corner[:-2]) < 10
    screenshot(page, "lang-he-played-desktop")
    assert page.js_errors == []


def test_a_screenshot_in_each_language(new_page) -> None:  # type: ignore[no-untyped-def]
    for lang, browser_locale in BROWSER_LOCALES.items():
        for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page = new_page(viewport=viewport, locale=browser_locale)
            page.goto(f"/g/{CODE}")
            expect(page.locator("html")).to_have_attribute("lang", lang)
            page.click("#stock")
            expect(page.locator("#moves")).to_have_text("1")
            drawn = Game.from_code(CODE)
            drawn.draw()
            expect(page.locator("#waste")).to_have_attribute(
                "aria-label", says(lang, "Waste: %(card)s", card=card_name(lang, drawn.waste))
            )
            # Nothing sticks out sideways, in either direction.
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            for p in (18, 27):
                b = box(page, f'#table [data-position="{p}"]')
                assert b["x"] >= 0 and b["x"] + b["width"] <= viewport["width"], (lang, name, p)
            screenshot(page, f"lang-{lang}-{name}")
            if name == "desktop":
                page.evaluate(AXE.read_text(encoding="utf-8"))
                result = page.evaluate("axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'best-practice']})")
                violations = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]]
                assert violations == [], (lang, violations)
            page.click("#new-game-button")
            expect(page.locator("#new-game")).to_be_visible()
            expect(page.locator("#new-game-title")).to_have_text(says(lang, "New game"))
            dialog = box(page, "#new-game")
            assert dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= viewport["width"], (lang, name)
            screenshot(page, f"lang-{lang}-new-game-{name}")
            assert page.js_errors == []


def test_the_picker_switches_language_and_remembers_it(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="en-GB")
    page.goto(f"/g/{CODE}")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator('.lang-choice[value="en"]')).to_have_attribute("aria-current", "true")
    expect(page.locator(".lang-choice").first).to_be_hidden()  # the languages sit behind one button
    # A new deal through htmx pushes its URL; switching language stays on that deal.
    page.click("#new-game-button")
    page.fill("#code-input", "TP1-C-AAAAAAC")
    page.click("#deal")
    expect(page).to_have_url(re.compile(r"/g/TP1-C-AAAAAAC$"))
    page.click(".lang-current")
    page.click('.lang-choice[value="uk"]')
    expect(page.locator("html")).to_have_attribute("lang", "uk")
    expect(page).to_have_url(re.compile(r"/g/TP1-C-AAAAAAC$"))
    expect(page.locator("#new-game-button")).to_have_text("Нова гра")
    expect(page.locator(".rules-tag")).to_have_text("Класичний")
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "uk")
    page.click(".lang-current")
    page.click('.lang-choice[value="he"]')
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator('.lang-choice[value="he"]')).to_have_attribute("aria-current", "true")
    screenshot(page, "lang-picker-he-desktop")
    assert page.js_errors == []


def test_the_picker_works_without_javascript(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(java_script_enabled=False, locale="en-GB")
    page.goto(f"/g/{CODE}")
    page.click(".lang-current")
    page.click('.lang-choice[value="th"]')
    expect(page.locator("html")).to_have_attribute("lang", "th")
    expect(page).to_have_url(re.compile(rf"/g/{CODE}$"))
    expect(page.locator("#undo")).to_have_text("ย้อนกลับ")


def test_a_share_link_opens_in_the_recipients_language(new_page) -> None:  # type: ignore[no-untyped-def]
    sender = new_page(locale="he-IL", permissions=["clipboard-read", "clipboard-write"])
    sender.goto(f"/g/{CODE}")
    sender.click("#share")
    expect(sender.locator("#status")).to_have_text("קישור השיתוף הועתק")
    link = sender.evaluate("navigator.clipboard.readText()")
    assert link.endswith(f"/g/{CODE}")
    recipient = new_page(locale="th-TH")
    recipient.goto(link)
    expect(recipient.locator("html")).to_have_attribute("lang", "th")
    expect(recipient.locator("html")).to_have_attribute("dir", "ltr")
    expect(recipient.locator("#code")).to_have_text(GameCode.parse(CODE).text())
