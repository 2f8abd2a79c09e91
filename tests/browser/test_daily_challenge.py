"""The daily challenge in real browsers: three players play the day's deal on a server of their
own; one wins without hints, one wins with a hint, one is blocked. Each then sees the day's
leaderboard in that order; the share text has no card in it. Screenshots of the daily page,
the leaderboard and the calendar at three sizes in every language; axe finds nothing."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from app.engine import Game, Status
from app.engine.search.daily import daily_code
from tests.support.browser import (
    DESKTOP,
    PHONE,
    no_sideways_scroll,
    play_line_by_clicks,
    run_axe,
    screenshot,
    settle,
)
from tests.support.deals import winning_line
from tests.support.servers import SECRET
from tests.support.servers import live_server as serve
from tests.support.store import greedy, line_of

LANDSCAPE = {"width": 844, "height": 390}
SIZES = {"desktop": DESKTOP, "phone": PHONE, "landscape": LANDSCAPE}
LANGUAGES = ("en", "he", "uk", "th")
PACE_MS = 200
"""Between two actions: slower than the quickest a person plays (docs/deals.md: 150 ms)."""


@pytest.fixture(scope="module")
def daily_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own: the day's leaderboard holds only this test's players."""
    with serve(tmp_path_factory.mktemp("daily")) as server:
        yield server.url


@pytest.fixture
def player(browser, daily_server):  # type: ignore[no-untyped-def]
    contexts = []

    def make(name: str, viewport: dict[str, int] = DESKTOP, lang: str = "en") -> Page:
        context = browser.new_context(viewport=viewport, base_url=daily_server)
        context.set_default_timeout(15_000)
        contexts.append(context)
        if name:
            assert context.request.put("/api/players/me/name", data={"name": name}).ok
        assert context.request.post("/settings/language", form={"lang": lang}, max_redirects=0).status in (200, 303)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        page.js_errors = errors  # type: ignore[attr-defined]
        return page

    yield make
    for context in contexts:
        for page in context.pages:
            assert not page.js_errors, page.js_errors  # type: ignore[attr-defined]
        context.close()


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def leaderboard_names(page: Page) -> list[str]:
    rows = page.locator("#daily-leaderboard tbody th bdi")
    return [rows.nth(i).inner_text() for i in range(rows.count())]


def test_three_players_see_the_day_s_leaderboard_in_order(player) -> None:  # type: ignore[no-untyped-def]
    code = daily_code(SECRET.encode(), today())
    won = winning_line(Game(code))
    assert won is not None
    blocked = greedy(code, prefer_draw=True)
    assert blocked.status is Status.BLOCKED

    clean, hinted, stuck = player("Ada"), player("Bo <i>"), player("Cy")
    for page in (clean, hinted, stuck):
        page.goto("/daily")
        expect(page.locator("#daily-label")).to_contain_text("Daily deal")
        assert page.url.endswith(f"/daily/{today().isoformat()}")
        assert page.locator("#watch-record").count() == 0  # never one click from the answer
    play_line_by_clicks(clean, won, PACE_MS)
    # The day's board comes in the result box on its own request (it asks the solver for par).
    expect(clean.locator("#result #daily-standing")).to_contain_text("1st of 1", timeout=60_000)
    hinted.click("#hint")
    expect(hinted.locator("#hints")).to_have_text("1")
    play_line_by_clicks(hinted, won, PACE_MS)
    play_line_by_clicks(stuck, line_of(blocked), PACE_MS)
    expected = ["Ada", "Cy", "Bo <i>"]
    for page, standing in ((clean, "1st of 3"), (hinted, "3rd of 3"), (stuck, "2nd of 3")):
        page.reload()
        expect(page.locator("#daily-standing")).to_contain_text(standing, timeout=60_000)
        assert leaderboard_names(page) == expected
        expect(page.locator("#daily-own-row")).to_have_count(1)
        share = page.locator("#daily-share-text").input_value()
        assert share.startswith("TriPeaks daily · ") and f"/daily/{today().isoformat()}" in share
        assert not re.search(r"\b(10|[2-9JQKA])[♠♥♦♣CDHS]\b|[♠♥♦♣]", share), share  # no card in it
    assert "1 hint" in hinted.locator("#daily-share-text").input_value()
    assert "of a possible" in clean.locator("#daily-par").inner_text()
    axe_clean(clean)


def axe_clean(page: Page) -> None:
    """axe finds no violations (the project's rules: WCAG 2.1 AA and best practice)."""
    settle(page)
    found = run_axe(page)
    assert found == [], repr(found)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_daily_pages_in_every_language_and_size(player, lang: str) -> None:  # type: ignore[no-untyped-def]
    """One player of each language: the daily page before the attempt, then once it has
    ended (the result box with the day's board), the board's own page and the calendar,
    at every size; nothing scrolls sideways, and axe finds nothing on a phone."""
    code = daily_code(SECRET.encode(), today())
    blocked = line_of(greedy(code, prefer_draw=True))
    for size, viewport in SIZES.items():  # before the attempt has ended
        page = player("", viewport, lang)
        page.goto("/daily")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("html")).to_have_attribute("dir", "rtl" if lang == "he" else "ltr")
        expect(page.locator("#daily-label")).to_be_visible()
        screenshot(page, f"daily-page-{lang}-{size}")
        no_sideways_scroll(page, viewport["width"])
        # The day's line (three lines long in Ukrainian on a phone) never lies over the peaks.
        label, peaks = page.locator("#daily-label").bounding_box(), page.locator("#peaks").bounding_box()
        assert label and peaks
        apart = (label["y"] + label["height"] <= peaks["y"] + 1 or label["x"] + label["width"] <= peaks["x"] + 1
                 or peaks["x"] + peaks["width"] <= label["x"] + 1)
        assert apart, (size, label, peaks)
    page = player(f"Screen {lang}", DESKTOP, lang)
    page.goto("/daily")
    play_line_by_clicks(page, blocked, PACE_MS)
    expect(page.locator("#daily-board")).to_be_visible(timeout=60_000)
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.goto(f"/daily/{today().isoformat()}")
        expect(page.locator("#result #daily-leaderboard")).to_be_visible(timeout=60_000)
        expect(page.locator("#result #daily-own-row")).to_have_count(1)
        screenshot(page, f"daily-result-{lang}-{size}")
        # Issue 42: one scroll, the box's (its scrollbar seen), never a box in the box; its heading in view.
        assert page.locator("#result .daily-table-wrap").evaluate("e => e.scrollHeight <= e.clientHeight + 1"), size
        assert page.locator("#result").evaluate("e => getComputedStyle(e).scrollbarWidth") == "thin"
        title, box = page.locator("#result-title").bounding_box(), page.locator("#result").bounding_box()
        assert title and box and box["y"] <= title["y"] and title["y"] + title["height"] <= box["y"] + box["height"]
        no_sideways_scroll(page, viewport["width"])
        if size == "phone":
            axe_clean(page)
        page.goto(f"/daily/{today().isoformat()}/board")
        expect(page.locator("#daily-leaderboard")).to_be_visible()
        expect(page.locator("#daily-own-row")).to_have_count(1)
        screenshot(page, f"daily-board-{lang}-{size}")
        # The result to share is in view whole, its link too, in every language and size.
        assert page.locator("#daily-share-text").evaluate("e => e.scrollHeight <= e.clientHeight + 1"), size
        no_sideways_scroll(page, viewport["width"])
        if size == "phone":
            axe_clean(page)
        page.goto("/daily/calendar")
        expect(page.locator("#daily-calendar")).to_be_visible()
        expect(page.locator(f"td:has(#day-{today().isoformat()})")).to_have_class(re.compile(r"state-blocked"))
        screenshot(page, f"daily-calendar-{lang}-{size}")
        no_sideways_scroll(page, viewport["width"])
        if size == "phone":
            axe_clean(page)


def test_restart_of_the_attempt_offers_its_choice_by_keyboard(player) -> None:  # type: ignore[no-untyped-def]
    """Restart (and New game with the day's code) on the attempt under way: the choice comes in the
    game's place with focus on "Keep playing my attempt"; Enter takes the attempt up again; the
    other button, reached by Tab, ends it and deals the practice game, which says so."""
    code = daily_code(SECRET.encode(), today())
    page = player("")
    page.goto("/daily")
    attempt = page.locator("#game").get_attribute("data-game-id")
    page.locator("#stock").focus()
    page.keyboard.press("d")
    expect(page.locator("#moves")).to_have_text("1")
    page.locator("#restart").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#attempt-choice")).to_be_visible()
    expect(page.locator("#keep-attempt")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#attempt-choice")).to_have_count(0)
    expect(page.locator("#game")).to_have_attribute("data-game-id", attempt or "")
    page.keyboard.press("n")  # the New game window, the day's code typed
    page.locator("#code-input").fill(code.text())
    page.keyboard.press("Enter")
    expect(page.locator("#attempt-choice")).to_be_visible()
    expect(page.locator("#keep-attempt")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#end-attempt")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#daily-practice")).to_be_visible()
    assert page.locator("#game").get_attribute("data-game-id") != attempt
    expect(page.locator("#resume")).to_be_visible()  # the way back: to a game that no longer counts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_attempt_s_choice_in_every_language_and_size(player, lang: str) -> None:  # type: ignore[no-untyped-def]
    page = player("", DESKTOP, lang)
    page.goto("/daily")
    page.click("#stock")
    expect(page.locator("#moves")).to_have_text("1")
    page.click("#restart")
    expect(page.locator("#attempt-choice")).to_be_visible()
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.locator("#keep-attempt").focus()  # (where the swap put focus: the page scrolls to it)
        expect(page.locator("#keep-attempt")).to_be_in_viewport()
        expect(page.locator("#end-attempt")).to_be_in_viewport()
        screenshot(page, f"daily-attempt-choice-{lang}-{size}")
        no_sideways_scroll(page, viewport["width"])
        if size == "phone":
            axe_clean(page)


def test_a_past_day_s_page_deals_on_the_player_s_own_click(player) -> None:  # type: ignore[no-untyped-def]
    page = player("")
    yesterday = (today() - dt.timedelta(days=1)).isoformat()
    page.goto(f"/daily/{yesterday}")
    expect(page.locator("#play-day")).to_be_visible()
    expect(page.locator("#daily-play-note")).to_be_visible()
    assert page.locator("#game").count() == 0  # nothing dealt by opening it
    screenshot(page, "daily-past-day-en-desktop")
    page.locator("#play-day").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#daily-late-tag")).to_be_visible()
