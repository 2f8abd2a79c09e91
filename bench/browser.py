"""In the browser: the time from pointer-down on a card or the stock until the board has updated.

Plays whole won games by clicking (Playwright driving Debian's Chromium against a live
uvicorn server on a temporary SQLite store) and measures, in the page, from the
``pointerdown`` event to the first change of the table (its cards, stock and waste: a
MutationObserver on their elements, text and card attributes; not on classes, which htmx sets on
the clicked element while the request runs, nor on the game clock, which ticks on its own). Runs with motion (View Transitions) and with reduced motion, so the transitions'
cost on the update shows. Then plays the same games fast, with motion: each click 100 ms after
the previous answer, where the player sees the card (a mouse click at its centre, no waiting for
the last move's cards to land), counting the clicks that were lost (issue 30: a click during a
flight once hit the board, not the card). Target: median under 50 ms, p90 under 100 ms; no
click lost.

    python -m bench.browser [--games 3]

The machine's load is printed beside the figures: on a shared machine they are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from app.engine import DRAW
from tests.support.deals import won_deal
from tests.support.servers import live_server

CHROMIUM = os.environ.get("TRIPEAKS_CHROMIUM", "/usr/bin/chromium")

WATCH = """() => {
  window.updates = []; let down = null;
  document.addEventListener('pointerdown', () => { down = performance.now(); }, true);
  const board = (r) => {
    const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    return el && el.closest('#table') && (r.type !== 'attributes' || r.attributeName !== 'class');
  };
  new MutationObserver((records) => {
    if (down !== null && records.some(board)) { window.updates.push(performance.now() - down); down = null; }
  }).observe(document.getElementById('main'), {subtree: true, childList: true, characterData: true,
                                               attributes: true, attributeFilter: ['aria-label', 'data-r', 'data-s']});
}"""


def play(page, code: str, line: tuple[int, ...]) -> list[float]:  # type: ignore[no-untyped-def]
    page.goto(f"/g/{code}")
    page.evaluate(WATCH)
    for number, action in enumerate(line, start=1):
        page.click("#stock" if action == DRAW else f"#card-{action}")
        page.locator("#moves").filter(has_text=str(number)).wait_for()
        page.wait_for_function("() => !document.activeViewTransition")
    times: list[float] = page.evaluate("window.updates")
    return times


def play_fast(page, code: str, line: tuple[int, ...], gap_ms: int = 100) -> tuple[list[float], int]:  # type: ignore[no-untyped-def]
    """The line by mouse at a player's pace: a click ``gap_ms`` after each answer, cards still flying."""
    page.goto(f"/g/{code}")
    page.evaluate(WATCH)
    lost = 0
    for number, action in enumerate(line, start=1):
        selector = "#stock" if action == DRAW else f"#card-{action}"
        box = page.locator(selector).bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        try:
            page.locator("#moves").filter(has_text=str(number)).wait_for(timeout=3_000)
        except Exception:  # lost: counted, then played again so the game goes on
            lost += 1
            page.locator(selector).click()
            page.locator("#moves").filter(has_text=str(number)).wait_for()
        page.wait_for_timeout(gap_ms)
    times: list[float] = page.evaluate("window.updates")
    return times, lost


def figures(times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"median {statistics.median(ordered):.1f} ms, p90 {p90:.1f} ms over {len(ordered)} actions"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    games = parser.parse_args().games
    from playwright.sync_api import sync_playwright

    deals = [won_deal(start=1 + 40 * i) for i in range(games)]
    with tempfile.TemporaryDirectory() as folder, live_server(Path(folder), timeout=180) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for motion in ("no-preference", "reduce"):
            times: list[float] = []
            for code, line in deals:
                context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 800}, reduced_motion=motion)
                times += play(context.new_page(), code.text(), line)
                context.close()
            label = "with motion" if motion == "no-preference" else "reduced motion"
            print(f"pointer-down to board updated, {label}: {figures(times)}")
        times, lost, clicks = [], 0, 0
        for code, line in deals:
            context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 800})
            got, missed = play_fast(context.new_page(), code.text(), line)
            times += got
            lost += missed
            clicks += len(line)
            context.close()
        print(f"pointer-down to board updated, fast play (100 ms after each answer, with motion): {figures(times)};"
              f" clicks lost: {lost} of {clicks}")
        browser.close()
    print("load average:", " ".join(f"{x:.2f}" for x in os.getloadavg()), f"on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
