"""The runs to beat in a real browser (issue 39): Dana plays the day's deal at a pace of her own;
Ann ends her attempt, opens the day's board, presses "Race this run" on Dana's row (by
keyboard), and sees the ghost move in the live strip at Dana's recorded pace, from her own
first action; the lead is told politely. On the browser tests' shared server.
Screenshots of the board and of the race at three sizes in every language; axe finds nothing."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from app.engine import DRAW, Game
from app.engine.search.daily import daily_code
from tests.support.browser import DESKTOP, PHONE, no_sideways_scroll, run_axe, settle
from tests.support.deals import winning_line
from tests.support.pages import game_id_of
from tests.support.servers import SECRET

PACE = 1.0
"""The server's ``ghost_pace``: its own."""
GAPS = (0.0, 0.35, 0.2, 0.5, 0.25, 0.4, 0.2, 0.6)
"""Dana's intervals before each of her actions (seconds)."""
SIZES = {"desktop": DESKTOP, "phone": PHONE, "landscape": {"width": 844, "height": 390}}
LANGUAGES = ("en", "he", "uk", "th")
SHOTS = Path("/tmp/ghost-shots")
WATCH = """() => {
  window.ghostSeen = [];
  const note = () => {
    const run = document.getElementById('ghost-run');
    if (run && run.dataset.n !== '') window.ghostSeen.push([+run.dataset.n, +run.dataset.after, performance.now()]);
  };
  new MutationObserver(note).observe(document.getElementById('ghost'), {childList: true, subtree: true});
  document.addEventListener('click', () => { window.ghostClick = performance.now(); }, {capture: true, once: true});
}"""


def dana_plays(url: str, day: str) -> list[tuple[float, float]]:
    """Dana's attempt: the first actions of a winning line at her pace, then ended as it stands;
    when each of her actions was sent and answered, from her first (the server's time of it
    lies between)."""
    line = winning_line(Game(daily_code(SECRET.encode(), dt.date.fromisoformat(day))))
    assert line is not None
    with httpx.Client(base_url=url, timeout=10) as dana:
        assert dana.put("/api/players/me/name", json={"name": "Dana"}).status_code == 200
        game_id = game_id_of(dana.get(f"/daily/{day}").text)
        times: list[tuple[float, float]] = []
        for gap, position in zip(GAPS, line, strict=False):
            time.sleep(gap)
            sent = time.monotonic()
            if position == DRAW:
                answer = dana.post(f"/api/games/{game_id}/draw")
            else:
                answer = dana.post(f"/api/games/{game_id}/remove", json={"position": position})
            assert answer.status_code == 200
            times.append((sent, time.monotonic()))
        assert dana.post(f"/daily/{day}", data={"end_attempt": "true"}).status_code in (200, 303)
    return [(sent - times[0][1], answered - times[0][0]) for sent, answered in times]


def test_ann_races_danas_run_and_sees_it_move_at_its_pace(browser, live_server: str) -> None:  # type: ignore[no-untyped-def]
    day = dt.datetime.now(dt.UTC).date().isoformat()
    offsets = dana_plays(live_server, day)
    context = browser.new_context(viewport=DESKTOP, base_url=live_server)
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        race(page, day, offsets)
        shots(page, context, day)
        assert not errors, errors
    finally:
        context.close()


def race(page: Page, day: str, offsets: list[tuple[float, float]]) -> None:
    # Ann: before her attempt has ended, no run to race
    page.goto(f"/daily/{day}/board")
    expect(page.locator("#daily-wait")).to_be_visible()
    assert page.locator(".race-run").count() == 0
    page.goto(f"/daily/{day}")
    page.click("#stock")  # her attempt: one draw, then ended as it stands
    expect(page.locator("#moves")).to_have_text("1")
    assert page.request.post(f"/daily/{day}", form={"end_attempt": "true"}).ok
    page.goto(f"/daily/{day}/board")
    button = page.get_by_role("button", name="Race the run of Dana")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#ghost-title")).to_contain_text("Dana")
    expect(page.locator("#ghost-lead")).to_have_text("The run starts with your first move.")
    assert page.locator("#ghost-run").get_attribute("data-n") == ""
    assert run_axe(page) == []
    page.wait_for_timeout(300)  # the stream is open; the ghost waits
    page.evaluate(WATCH)
    page.click("#stock")  # Ann's first action in her practice game: the ghost's clock starts
    last = len(offsets) - 1
    page.wait_for_function(f"() => window.ghostSeen.some(s => s[0] === {last})", timeout=15_000)
    seen: dict[int, tuple[float, float]] = {}
    started = page.evaluate("window.ghostClick")
    for n, after, at in page.evaluate("window.ghostSeen"):
        seen.setdefault(int(n), (after, (at - started) / 1000))
    # Dana's actions, each at the offset she played it (the server kept it), shown at its time
    # on Ann's game clock: never early, and at a steady pace (the clock starts when the server
    # takes Ann's first action, a moment after her click on a busy machine; the actions due
    # before the stream saw it come together, as the first shown; a loaded machine delays some)
    assert list(seen) == sorted(seen) and {n for n in range(last + 1) if offsets[n][0] / PACE > 1.5} <= set(seen)
    lags = []
    for n, (after, shown) in seen.items():
        assert offsets[n][0] - 0.05 <= after <= offsets[n][1] + 0.05, (n, after, offsets[n])
        assert shown >= after / PACE - 0.1, (n, after, shown)
        lags.append(shown - after / PACE)
    assert max(lags) <= 1.5, (lags, seen)  # (the strict timing: tests/web/test_daily_ghost_pace.py)
    first, final = seen[min(seen)], seen[last]
    assert (final[1] - first[1]) == pytest.approx((final[0] - first[0]) / PACE, abs=1.0), seen
    # Who leads, told politely (when it changed hands): as the strip stands now
    you, run = (int(page.locator(f"#ghost-{who} .racer-score").inner_text()) for who in ("you", "run"))
    lead = "You lead by" if you > run else "Dana's run leads by" if run > you else "Level at"
    expect(page.locator("#ghost-news")).to_contain_text(lead)
    assert page.locator("#ghost-news").get_attribute("aria-live") == "polite"
    assert page.locator("#ghost-strip").get_attribute("aria-live") is None  # not every action


def shots(page: Page, context, day: str) -> None:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    race_url = page.url
    for lang in LANGUAGES:
        assert context.request.post("/settings/language", form={"lang": lang}, max_redirects=0).status in (200, 303)
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            page.goto(f"/daily/{day}/board")
            expect(page.locator(".race-run").first).to_be_visible()
            page.screenshot(path=str(SHOTS / f"board-{lang}-{size}.png"), full_page=True)
            no_sideways_scroll(page, viewport["width"])
            page.goto(race_url)
            expect(page.locator("#ghost-run .racer-status")).not_to_have_text("")
            settle(page)
            assert page.locator("html").get_attribute("dir") == ("rtl" if lang == "he" else "ltr")
            page.screenshot(path=str(SHOTS / f"race-{lang}-{size}.png"), full_page=True)
            no_sideways_scroll(page, viewport["width"])
