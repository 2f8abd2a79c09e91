"""Cards travel: View Transitions move a removed card to the waste, a drawn card from the stock,
and nothing moves when the player asks for reduced motion."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from app.engine import Game
from tests.support.browser import MID_CODE, play_by_keys, post_line, settle
from tests.support.deals import won_deal

CODE = "TP1-E-AAAAAAJ"

MIDWAY = """async (name) => {
  const pseudo = `::view-transition-group(${name})`;
  let group;
  for (let i = 0; i < 400 && !group; i++) {
    group = document.getAnimations().find(a => a.effect && a.effect.pseudoElement === pseudo);
    if (!group) await new Promise(r => requestAnimationFrame(r));
  }
  if (!group) return null;
  const all = document.getAnimations().filter(a => a.effect && (a.effect.pseudoElement || '').startsWith('::view-transition'));
  const duration = group.effect.getComputedTiming().duration;
  // A quarter of the time in: the flight eases out, so the card is about halfway along.
  for (const a of all) { a.pause(); a.currentTime = duration / 4; }
  const style = getComputedStyle(document.documentElement, pseudo);
  const m = new DOMMatrix(style.transform);
  const box = [m.e, m.f, parseFloat(style.width), parseFloat(style.height)];
  for (const a of all) a.finish();
  return box;
}"""
"""The box of a view-transition group halfway through its animation: [x, y, width, height]."""


def centre(box: Any) -> tuple[float, float]:
    if isinstance(box, dict):
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def between(a: float, middle: float, b: float) -> bool:
    low, high = min(a, b), max(a, b)
    return low + 0.1 * (high - low) < middle < high - 0.1 * (high - low)


def fresh(page: Page, code: str) -> Game:
    page.goto(f"/g/{code}")
    if page.locator("#moves").inner_text() != "0":
        page.click("#restart")
        expect(page.locator("#moves")).to_have_text("0")
    settle(page)
    return Game.from_code(code)


def test_a_removed_card_flies_to_the_waste_and_a_drawn_card_from_the_stock(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    game = fresh(page, CODE)
    position = next(p for p in game.playable_positions() if p in (18, 19, 20, 25, 26, 27))
    moving = game.deal.tableau[position]
    place = centre(page.locator(f"#card-{position}").bounding_box())
    waste = centre(page.locator("#waste").bounding_box())
    page.locator(f"#card-{position}").click()
    middle = page.evaluate(MIDWAY, f"c-{moving.text()}")
    assert middle is not None, "no view transition for the removed card"
    x, y = centre(middle)
    assert between(place[0], x, waste[0]) and between(place[1], y, waste[1]), (place, (x, y), waste)
    expect(page.locator("#moves")).to_have_text("1")
    settle(page)
    # A draw: the stock's top card (named by the stock's count) flies to the waste.
    stock = centre(page.locator("#stock").bounding_box())
    page.click("#stock")
    middle = page.evaluate(MIDWAY, "s-23")
    assert middle is not None, "no view transition for the drawn card"
    x, _ = centre(middle)
    assert between(stock[0], x, waste[0]), (stock, x, waste)
    expect(page.locator("#moves")).to_have_text("2")
    # Undo flies the card back: from the waste toward the stock.
    settle(page)
    page.click("#undo")
    middle = page.evaluate(MIDWAY, "s-23")
    assert middle is not None, "no view transition for the undone draw"
    x, _ = centre(middle)
    assert between(waste[0], x, stock[0])
    expect(page.locator("#stock-count")).to_have_text("23")
    # The waste card does not fade in when the page loads.
    page.reload()
    assert page.locator("#waste .card").evaluate("e => getComputedStyle(e).animationName") == "none"


def test_nothing_moves_under_reduced_motion(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(reduced_motion="reduce")
    game = fresh(page, MID_CODE)
    page.evaluate(
        """() => { window.moved = [];
          const look = () => { for (const a of document.getAnimations()) window.moved.push(String(a.effect && (a.effect.pseudoElement || a.animationName || a.id)));
                               requestAnimationFrame(look); };
          look(); }"""
    )
    page.locator(f"#card-{game.playable_positions()[0]}").click()
    expect(page.locator("#moves")).to_have_text("1")
    page.click("#stock")
    expect(page.locator("#moves")).to_have_text("2")
    page.click("#undo")
    expect(page.locator("#stock-count")).to_have_text("23")
    page.wait_for_timeout(300)
    assert page.evaluate("window.moved") == []
    assert page.evaluate("document.activeViewTransition ?? null") is None


def test_a_flight_starts_with_the_request_and_the_board_updates_as_it_starts(new_page) -> None:  # type: ignore[no-untyped-def]
    """The old board is captured while the server works (the transition is already running
    when the answer comes), and the board changes inside the transition, not after its motion:
    the motion never delays the update (docs/performance.md, "Browser")."""
    page = new_page()
    game = fresh(page, CODE)
    page.evaluate(
        """() => { window.seen = {};
          document.addEventListener('htmx:after:request', () => {
            if (!('atAnswer' in window.seen)) window.seen.atAnswer = !!document.activeViewTransition; });
          new MutationObserver(() => {
            if (!('atUpdate' in window.seen)) window.seen.atUpdate = !!document.activeViewTransition;
          }).observe(document.getElementById('peaks'), {subtree: true, childList: true}); }"""
    )
    page.locator(f"#card-{game.playable_positions()[0]}").click()
    expect(page.locator("#moves")).to_have_text("1")
    assert page.evaluate("window.seen") == {"atAnswer": True, "atUpdate": True}


AT = """async ([names, fraction]) => {
  // Wait for the flight, hold every animation of it at a fraction of its time, and read the
  // pictures' styles: z-index of each group, opacity and transform of the old and new images.
  let all = [];
  for (let i = 0; i < 400 && !all.length; i++) {
    all = document.getAnimations().filter(a => (a.effect && a.effect.pseudoElement || '').startsWith('::view-transition'));
    if (!all.length) await new Promise(r => requestAnimationFrame(r));
  }
  if (!all.length) return null;
  for (const a of all) { a.pause(); a.currentTime = 220 * fraction; }
  const out = {};
  for (const name of names) {
    const read = (part) => { const s = getComputedStyle(document.documentElement, `::view-transition-${part}(${name})`);
                             return {z: s.zIndex, opacity: s.opacity, transform: s.transform}; };
    out[name] = {group: read('group'), old: read('old'), new: read('new')};
  }
  for (const a of all) a.finish();
  return out;
}"""


def test_a_card_travels_on_top_of_the_waste_and_a_drawn_card_turns_over(new_page) -> None:  # type: ignore[no-untyped-def]
    """Issue 30: the card coming to the waste flies above the card already there (once it slid
    under it and jumped on top at the end), and a drawn card leaves the stock face down and
    turns over on its way, never half transparent."""
    page = new_page()
    game = fresh(page, CODE)
    waste = f"c-{game.waste.text()}" if game.waste else ""
    position = game.playable_positions()[0]
    moving = f"c-{game.deal.tableau[position].text()}"
    page.locator(f"#card-{position}").click()
    seen = page.evaluate(AT, [[moving, waste], 0.5])
    assert seen is not None, "no flight"
    assert int(seen[moving]["group"]["z"]) > int(seen[waste]["group"]["z"]), seen
    expect(page.locator("#moves")).to_have_text("1")
    settle(page)
    # A draw: early in the flight the back narrows (the face not shown yet); late, the face
    # opens, wholly opaque.
    count = int(page.locator("#stock-count").inner_text())
    name = f"s-{count}"
    page.click("#stock")
    early = page.evaluate(AT, [[name], 0.25])
    assert early is not None, "no flight for the draw"
    assert early[name]["new"]["transform"] in ("matrix(0, 0, 0, 1, 0, 0)",), early
    assert early[name]["old"]["transform"] not in ("none", "matrix(1, 0, 0, 1, 0, 0)"), early
    expect(page.locator("#moves")).to_have_text("2")
    settle(page)
    page.click("#undo")
    expect(page.locator("#stock-count")).to_have_text(str(count))
    settle(page)
    page.click("#stock")
    late = page.evaluate(AT, [[name], 0.8])
    assert late is not None
    assert float(late[name]["new"]["opacity"]) == 1.0, late
    assert late[name]["new"]["transform"] != "matrix(0, 0, 0, 1, 0, 0)", late


CASCADE = """() => [...document.querySelectorAll('.celebration span')].map(e => {
  const a = e.getAnimations()[0];
  return a ? [a.animationName, a.playState, getComputedStyle(e).transform] : null;
})"""
"""Each falling card of a win's celebration: its animation's name and state, and where it is now."""


def test_a_win_cascades_the_cards_off_the_table_and_nothing_falls_under_reduced_motion(new_page) -> None:  # type: ignore[no-untyped-def]
    """Issue 30: a win is celebrated by cards falling off the table one after another, turning;
    under reduced motion nothing falls. The falling cards never catch a click."""
    code, line = won_deal()
    for motion in ("no-preference", "reduce"):
        page = new_page(reduced_motion=motion)
        fresh(page, code.text())
        post_line(page, line[:-1])
        page.reload()
        settle(page)
        expect(page.locator(".celebration")).to_have_count(0)  # no celebration before the win
        play_by_keys(page, line[-1])
        expect(page.locator("#result-title")).to_be_visible()
        celebration = page.locator(".celebration")
        expect(celebration).to_have_count(1)
        if motion == "reduce":
            expect(celebration).to_be_hidden()
            assert page.evaluate("document.querySelector('.celebration').getAnimations({subtree: true}).length") == 0
            continue
        assert celebration.evaluate("e => getComputedStyle(e).pointerEvents") == "none"
        first = page.evaluate(CASCADE)
        assert len(first) == 12 and all(f is not None and f[0] == "cascade" for f in first), first
        page.wait_for_timeout(400)
        later = page.evaluate(CASCADE)
        # The cards fall one after another: some have moved since, and not all at once.
        moved = [a[2] != b[2] for a, b in zip(first, later, strict=True) if a and b]
        assert any(moved), (first, later)
        # The last card falls last: its delay (11 steps of .11 s) keeps it still at first.
        delays = page.evaluate("() => [...document.querySelectorAll('.celebration span')].map(e => e.getAnimations()[0].effect.getTiming().delay)")
        assert len(set(delays)) == 12 and max(delays) > 1000, delays
        # Issue 42: no card is cut at the table's edge: at every moment of its fall (each
        # animation held at 0 %, a third, two thirds and 95 %), it is inside the celebration's box.
        outside = page.evaluate(INSIDE)
        assert outside == [], outside


INSIDE = """() => {
  const box = document.querySelector('.celebration').getBoundingClientRect();
  const out = [];
  for (const f of [0, 1/3, 2/3, .95]) {
    document.querySelectorAll('.celebration span').forEach((e, i) => {
      const a = e.getAnimations()[0];
      a.pause();
      a.currentTime = a.effect.getTiming().delay + f * a.effect.getTiming().duration;
      const r = e.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.push([i, f, Math.round(r.left - box.left), Math.round(box.right - r.right),
                  Math.round(r.top - box.top), Math.round(box.bottom - r.bottom)]);
    });
  }
  return out;
}"""
"""Each falling card outside the celebration's box (which clips it) at some moment of its fall."""
