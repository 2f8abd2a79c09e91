"""Screenshots of a race in every language at 1280x800, 390x844 and 844x390: the lobby, the
countdown, a race in progress and the finish (test-output/screenshots/race-*.png), and what
each must show."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import screenshot
from tests.support.deals import won_deal

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844},
         "landscape": {"width": 844, "height": 390}}  # fmt: skip
TITLES = {"en": "Race", "he": "מרוץ", "uk": "Перегони", "th": "การแข่ง"}


BOARD = """() => ['#peaks', '#stock', '#waste'].map(s => { const r = document.querySelector(s).getBoundingClientRect();
  return [s, ...[r.x, r.y, r.width, r.height].map(Math.round)]; })"""
"""Where the peaks, the stock and the waste are, and how big: the same from the start to the finish."""

IN_VIEW = """(selectors) => selectors.filter(s => { const e = document.querySelector(s); if (!e) return true;
  const r = e.getBoundingClientRect(); return r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth; })"""
"""Which of the race's controls are not wholly in the viewport (none may be)."""

CONTROLS = ["#undo", "#hint", "#peaks", "#stock"]
"""A race's board has no Restart (issue 42): it would leave the race waiting."""


def api_play(page: Page, game_id: str, actions: tuple[int, ...]) -> None:
    for action in actions:
        if action < 0:
            answer = page.request.post(f"/api/games/{game_id}/draw")
        else:
            answer = page.request.post(f"/api/games/{game_id}/remove", data={"position": action})
        assert answer.ok, answer.text()


@pytest.mark.parametrize("lang", ["en", "he", "uk", "th"])
def test_race_screens_in_every_language(new_page, lang: str) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal()
    pages = {size: new_page(viewport=view, extra_http_headers={"Accept-Language": lang}) for size, view in SIZES.items()}
    maker = pages["desktop"]
    maker.goto("/how-to-play")  # read: the offer to read it stays away
    made = maker.request.post("/races", form={"code": code.text()}, max_redirects=0)
    race_url = made.headers["location"]
    race_id = race_url.rsplit("/", 1)[1]
    maker.goto(race_url)
    for page in pages.values():
        if page is not maker:
            page.goto("/how-to-play")
            page.goto(race_url)
            page.click("#race-join")
    for size, page in pages.items():
        expect(page.locator("#race-lobby-list li")).to_have_count(3)
        expect(page.locator("#race-title")).to_contain_text(TITLES[lang])
        assert page.locator("html").get_attribute("dir") == ("rtl" if lang == "he" else "ltr")
        screenshot(page, f"race-lobby-{lang}-{size}")

    maker.click("#race-start")
    for size, page in pages.items():
        expect(page.locator("#race-countdown")).to_be_visible()
        page.screenshot(path=str(screenshot.__globals__["SCREENSHOTS"] / f"race-countdown-{lang}-{size}.png"))
    games = {}
    for size, page in pages.items():
        expect(page.locator("#table")).to_be_visible(timeout=8000)
        games[size] = page.locator("#game").get_attribute("data-game-id")
    api_play(pages["phone"], games["phone"], line[:10])
    api_play(pages["landscape"], games["landscape"], line[:4])
    api_play(maker, games["desktop"], line[:20])
    for size, page in pages.items():
        page.reload(wait_until="domcontentloaded", timeout=30_000)
        expect(page.locator("#race-strip .racer")).to_have_count(3)
        screenshot(page, f"race-running-{lang}-{size}")
    running = {size: page.evaluate(BOARD) for size, page in pages.items()}
    # Issue 42: every control of the race in view without scrolling (a phone held sideways too).
    assert {size: page.evaluate(IN_VIEW, [*CONTROLS, "#race-leave"]) for size, page in pages.items()} == {size: [] for size in SIZES}
    assert all(page.locator("#restart").count() == 0 for page in pages.values())

    for size, page in pages.items():
        done = {"desktop": 20, "phone": 10, "landscape": 4}[size]
        api_play(page, games[size], line[done:])
    for size, page in pages.items():
        page.reload(wait_until="domcontentloaded", timeout=30_000)
        expect(page.locator("#race-finish tbody tr")).to_have_count(3, timeout=15_000)
        screenshot(page, f"race-finish-{lang}-{size}")
    expect(maker.locator("#race-again")).to_be_visible()
    # The board keeps its size and place from the start to the finish; the controls stay in view.
    assert {size: page.evaluate(BOARD) for size, page in pages.items()} == running
    assert {size: page.evaluate(IN_VIEW, CONTROLS) for size, page in pages.items()} == {size: [] for size in SIZES}
    # Mid-race cards are (nearly) as large as a normal game's: the race's band takes the room
    # the deal's record line and the spare height leave.
    normal = new_page(viewport=SIZES["desktop"], extra_http_headers={"Accept-Language": lang})
    normal.goto("/how-to-play")
    normal.goto(f"/g/{code.text()}")
    stock = normal.evaluate(BOARD)[1]
    assert running["desktop"][1][3] >= 0.95 * stock[3], (running["desktop"], stock)
    assert race_id
