"""Every click counts (issue 30): whole games played by mouse at full speed, cards still flying.

A player clicks 100 ms after each answer, while the last move's cards still fly (a move's View
Transition runs for about a quarter of a second). Chromium hit-tests the board under a running
transition as if its named cards were not there, so such a click once reached the board
(#peaks), not the card: nothing happened, and focus was left on the board, where the arrows do
nothing. Now a press lands the flight and its click reaches the card under it
(static/tripeaks.js, "land").
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from app.engine import DRAW
from tests.support.browser import settle
from tests.support.deals import won_deal

GAP_MS = 100
"""The player's pace: the time from an answer on the screen to the next click."""

WATCH = """() => {
  window.pressedInFlight = 0;
  // On window, in the capture phase: before the page's own listeners land the flight.
  window.addEventListener('pointerdown', () => {
    if (document.getAnimations().some(a => (a.effect && a.effect.pseudoElement || '').startsWith('::view-transition')))
      window.pressedInFlight += 1;
  }, true);
}"""


HOLD = """async () => {
  for (let i = 0; i < 600; i++) {
    const flying = document.getAnimations().filter(a => (a.effect && a.effect.pseudoElement || '').startsWith('::view-transition'));
    if (flying.length) { flying.forEach(a => a.pause()); return true; }
    await new Promise(r => requestAnimationFrame(r));
  }
  return false;
}"""


def click_centre(page: Page, selector: str) -> None:
    """A mouse click where the player sees the control: its box's centre, no waiting for it."""
    box = page.locator(selector).bounding_box()
    assert box, selector
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def play_fast(page: Page, line: tuple[int, ...]) -> list[tuple[int, str]]:
    """Play a line by mouse at the player's pace; return the clicks that did not land."""
    lost: list[tuple[int, str]] = []
    for number, action in enumerate(line, start=1):
        selector = "#stock" if action == DRAW else f"#card-{action}"
        click_centre(page, selector)
        try:
            # A lost click never lands; a landed one may take seconds on a loaded machine.
            page.locator("#moves").filter(has_text=str(number)).wait_for(timeout=15_000)
        except Exception:  # the click was lost: note it, and play the move so the game goes on
            lost.append((number, selector))
            page.locator(selector).click()
            expect(page.locator("#moves")).to_have_text(str(number))
        page.wait_for_timeout(GAP_MS)  # the player's own pause, not a wait for the page
        focused = page.evaluate("document.activeElement && document.activeElement.id")
        assert focused not in ("peaks", "", None), (number, focused)  # never on the board or the body
    return lost


def test_every_click_lands_at_full_speed_with_motion_on(new_page) -> None:  # type: ignore[no-untyped-def]
    in_flight = 0
    for start in (1, 41):
        code, line = won_deal(start=start)
        page = new_page()
        page.goto(f"/g/{code.text()}")
        assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches") is False
        page.evaluate(WATCH)
        assert play_fast(page, line) == []
        expect(page.locator("#result.won")).to_be_visible()
        in_flight += page.evaluate("window.pressedInFlight")
    # The games were played while cards flew: a test that never clicked during a flight would
    # prove nothing.
    assert in_flight >= 10, in_flight


def test_a_click_during_a_flight_focuses_the_card_not_the_board(new_page) -> None:  # type: ignore[no-untyped-def]
    """The press that lands a flight moves focus to the card it hits, so the arrow keys go on
    from there; a press on the board between cards never takes focus either."""
    code, line = won_deal(start=1)
    page = new_page()
    page.goto(f"/g/{code.text()}")
    first = line[0]
    page.evaluate(WATCH)
    click_centre(page, "#stock" if first == DRAW else f"#card-{first}")
    # The first move's cards held in mid-flight (their animations paused), so the press below
    # comes during the flight however busy the machine is.
    assert page.evaluate(HOLD), "no flight for the first move"
    expect(page.locator("#moves")).to_have_text("1")
    second = next(a for a in line[1:] if a != DRAW)
    box = page.locator(f"#card-{second}").bounding_box()
    assert box
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    focused = page.evaluate("document.activeElement.id")
    page.mouse.up()
    assert page.evaluate("window.pressedInFlight") == 1, "the press came after the flight: the test proves nothing"
    assert focused == f"card-{second}"
    # A press on the board's empty top corner: focus stays where it was.
    settle(page)
    before = page.evaluate("document.activeElement.id")
    peaks = page.locator("#peaks").bounding_box()
    assert peaks
    page.mouse.click(peaks["x"] + 2, peaks["y"] + 2)
    assert page.evaluate("document.activeElement.id") == before
