"""Statistics and How to play in a real browser: no sideways scroll at any size in any
language, 0 axe violations, columns under their headings; the run, the clock, the daily
deal's label and the first-visit offer on the game page. Screenshots go to
test-output/screenshots (``extra-*``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.engine import DRAW, Game, Rules
from app.i18n import get_locale
from tests.support.browser import DESKTOP, PHONE, no_sideways_scroll, not_fitting, screenshot
from tests.support.deals import won_deal

AXE = next((Path(__file__).parent / "vendor").glob("axe-*.min.js"))
BROWSER_LOCALES = {"en": "en-GB", "he": "he-IL", "uk": "uk-UA", "th": "th-TH"}
LANDSCAPE = {"width": 844, "height": 390}
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE, "landscape": LANDSCAPE}
CODE = "TP1-E-AAAABCD"  # a deal of its own (other browser tests play TP1-E-AAAAAAB)
OWN_DEALS = 300
"""Where the deals these tests win are looked for: other browser tests want to be the first
to win theirs on the session's one server."""


def axe_violations(page: Page) -> list[tuple[str, list[object]]]:
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'best-practice']})")
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]]


def win_through_the_pages(page: Page) -> None:
    """Win a game as this browser's player (its cookies), by posting the moves as the forms do."""
    code, line = won_deal(Rules.EASY, OWN_DEALS)
    page.goto(f"/g/{code.text()}")
    game_id = page.locator("#game").get_attribute("data-game-id")
    for action in line:
        if action == DRAW:
            response = page.request.post(f"/games/{game_id}/draw", max_redirects=0)
        else:
            response = page.request.post(
                f"/games/{game_id}/remove", form={"position": str(action)}, max_redirects=0
            )
        assert response.status in (200, 303), response.status


@pytest.mark.parametrize("lang", list(BROWSER_LOCALES))
def test_statistics_fit_every_size_and_pass_axe(new_page, lang: str) -> None:  # type: ignore[no-untyped-def]
    words = get_locale(lang)
    page = new_page(viewport=DESKTOP, locale=BROWSER_LOCALES[lang])
    win_through_the_pages(page)
    for name, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.goto("/stats")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("#stats-easy")).to_have_text(words.gettext("Easy"))
        expect(page.locator("#stats-won td").first).to_have_text("1")
        expect(page.locator("#stats-fastest-win td").first).to_have_text(re.compile(r"^\d+:\d\d$"))
        no_sideways_scroll(page, viewport["width"])
        # The table stays on its card: no figure over the green felt (black on dark green).
        table, card = page.locator("#stats-table").bounding_box(), page.locator("#stats").bounding_box()
        assert table is not None and card is not None
        assert card["x"] <= table["x"] and table["x"] + table["width"] <= card["x"] + card["width"] + 0.5
        # Every figure lines up with its rule set's heading: their text ends at the same edge.
        edges = page.evaluate(
            """() => {
              const rtl = document.documentElement.dir === 'rtl';
              const end = el => { const r = document.createRange(); r.selectNodeContents(el);
                                  const b = r.getBoundingClientRect(); return rtl ? b.left : b.right; };
              const heads = [...document.querySelectorAll('#stats-table thead th')].map(end);
              return [...document.querySelectorAll('#stats-table tbody tr')]
                .map(tr => [...tr.querySelectorAll('td')].map((td, i) => Math.abs(end(td) - heads[i])));
            }"""
        )
        assert all(len(row) == 2 and max(row) <= 1.5 for row in edges), (lang, name, edges)
        screenshot(page, f"extra-stats-{lang}-{name}")
        assert axe_violations(page) == [], (lang, name)


@pytest.mark.parametrize("lang", list(BROWSER_LOCALES))
def test_how_to_play_fits_every_size_and_passes_axe(new_page, lang: str) -> None:  # type: ignore[no-untyped-def]
    words = get_locale(lang)
    page = new_page(viewport=DESKTOP, locale=BROWSER_LOCALES[lang])
    for name, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.goto("/how-to-play")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("h1")).to_have_text(words.gettext("How to play"))
        expect(page.locator("#howto-offer")).to_have_count(0)  # the rules are read here
        no_sideways_scroll(page, viewport["width"])
        screenshot(page, f"extra-howto-{lang}-{name}")
        assert axe_violations(page) == [], (lang, name)


def test_a_first_visit_is_offered_how_to_play(new_page) -> None:  # type: ignore[no-untyped-def]
    # On a phone held upright it is one strip (its words beside its button), in every language,
    # and the game still fits with it shown (test_fit.py looks at every state with it too).
    for lang, locale in BROWSER_LOCALES.items():
        page = new_page(viewport=PHONE, locale=locale)
        page.goto(f"/g/{CODE}")
        offer = page.locator("#howto-offer")
        expect(offer).to_be_visible()
        box = offer.bounding_box()
        assert box is not None and box["height"] <= 56, (lang, box)
        assert not_fitting(page) == [], lang
    no_sideways_scroll(page, PHONE["width"])
    screenshot(page, "extra-offer-phone")
    page.click("#howto-dismiss")
    expect(offer).to_have_count(0)
    page.reload()
    expect(page.locator("#game")).to_be_visible()
    expect(offer).to_have_count(0)  # remembered
    # The top bar still leads to the rules.
    page.click("#howto-link")
    expect(page).to_have_url(re.compile(r"/how-to-play$"))

    other = new_page(viewport=DESKTOP)
    other.goto(f"/g/{CODE}")
    other.click("#howto-offer a")
    expect(other.locator("h1")).to_have_text("How to play")
    other.go_back()
    expect(other.locator("#game")).to_be_visible()
    expect(other.locator("#howto-offer")).to_have_count(0)  # read: not offered again


def test_the_run_grows_and_the_clock_ticks(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport=DESKTOP)
    page.goto(f"/g/{CODE}")
    expect(page.locator("#run")).to_have_text("0")
    expect(page.locator("#clock")).to_have_text("0:00")
    page.wait_for_timeout(1500)
    expect(page.locator("#clock")).to_have_text("0:00")  # not before the first move
    game = Game.from_code(CODE)
    first = game.playable_positions()[0]
    page.click(f'#table [data-position="{first}"]')
    game.remove(first)
    expect(page.locator("#run")).to_have_text("1")
    expect(page.locator("#clock")).to_have_text("0:02", timeout=4000)  # counts on by itself
    following = game.playable_positions()[0]
    page.click(f'#table [data-position="{following}"]')
    expect(page.locator("#run")).to_have_text("2")
    page.click("#stock")
    expect(page.locator("#run")).to_have_text("0")
    page.click("#undo")
    expect(page.locator("#run")).to_have_text("2")
    page.wait_for_timeout(1200)
    page.reload()  # the server keeps the clock: a reload goes on from where it was
    expect(page.locator("#clock")).to_have_text(re.compile(r"^0:0[3-9]$"))
    screenshot(page, "extra-run-clock-desktop")
    assert page.js_errors == []


@pytest.mark.parametrize("lang", list(BROWSER_LOCALES))
def test_the_daily_deal_is_labelled(new_page, lang: str) -> None:  # type: ignore[no-untyped-def]
    words = get_locale(lang)
    for name in ("desktop", "phone"):
        page = new_page(viewport=VIEWPORTS[name], locale=BROWSER_LOCALES[lang])
        page.goto("/daily")
        label = page.locator("#daily-label")
        expect(label).to_contain_text(words.gettext("Daily deal"))
        expect(page.locator("#daily-next")).to_be_visible()
        no_sideways_scroll(page, VIEWPORTS[name]["width"])
        screenshot(page, f"extra-daily-{lang}-{name}")


def test_a_won_game_shows_its_longest_run_and_time(new_page) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal(Rules.EASY, OWN_DEALS)
    page = new_page(viewport=DESKTOP)
    page.goto(f"/g/{code.text()}")
    for moves, action in enumerate(line, 1):
        page.click("#stock" if action == DRAW else f'#table [data-position="{action}"]')
        expect(page.locator("#moves")).to_have_text(str(moves))
    expect(page.locator("#result-tally")).to_be_visible()
    game = Game(code)
    game.replay(line)
    expect(page.locator("#result-tally")).to_contain_text(f"Longest run: {game.longest_run}")
    expect(page.locator("#result-tally")).to_contain_text(re.compile(r"Time: \d+:\d\d"))
    expect(page.locator("#clock")).not_to_have_attribute("data-running", re.compile(".*"))
    screenshot(page, "extra-won-desktop")
