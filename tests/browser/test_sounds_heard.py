"""Sound in a real browser: what the Web Audio API is asked to play, and when.

An init script (in a context that bypasses the CSP, which would refuse it) watches every sound
source the page starts (``AudioScheduledSourceNode.start``), with its frequency."""

from __future__ import annotations

from itertools import pairwise

from playwright.sync_api import Page, expect

from app.engine import DRAW, Game, GameCode, Rules
from tests.support.browser import REFUSED_MOVES, reach, settle
from tests.support.deals import won_deal

WATCH = """
window.started = [];
for (const Node of [AudioScheduledSourceNode, AudioBufferSourceNode]) {  // the latter has a start of its own
  const start = Node.prototype.start;
  Node.prototype.start = function (...args) {
    window.started.push({kind: this.constructor.name, frequency: this.frequency ? this.frequency.value : null,
                         status: (document.getElementById('status') || {}).dataset?.sound || ''});
    return start.apply(this, args);
  };
}
"""


def watched(new_page) -> Page:  # type: ignore[no-untyped-def]
    page: Page = new_page(bypass_csp=True)
    page.add_init_script(WATCH)
    return page


def started(page: Page) -> list[dict[str, object]]:
    return list(page.evaluate("window.started"))


def sound_script_loaded(page: Page) -> bool:
    return bool(page.evaluate("!!document.querySelector('script[src*=\"/static/sound.js\"]') || !!window.TriPeaksSound"))


def test_nothing_sounds_before_the_first_action_then_each_action_sounds(new_page) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal(Rules.EASY)
    page = watched(new_page)
    page.goto(f"/g/{code.text()}")
    settle(page)
    page.wait_for_timeout(300)
    assert started(page) == [] and not sound_script_loaded(page)  # not even loaded
    assert page.evaluate("typeof AudioContext === 'function'")
    game = Game(code)
    runs = []
    for number, action in enumerate(line[:8], start=1):
        page.click("#stock" if action == DRAW else f"#card-{action}")
        expect(page.locator("#moves")).to_have_text(str(number))
        if action == DRAW:
            game.draw()
        else:
            game.remove(action)
            runs.append(game.run)
        expect(page.locator("#status")).to_have_attribute("data-sound", "draw" if action == DRAW else "take")
        page.wait_for_function("n => window.started.length >= n", arg=number)
    sounds = started(page)
    assert len(sounds) == 8
    # A draw is a burst of noise; a card taken is a note, a semitone higher for each card of the run.
    kinds = ["AudioBufferSourceNode" if a == DRAW else "OscillatorNode" for a in line[:8]]
    assert [s["kind"] for s in sounds] == kinds
    takes = [s["frequency"] for s in sounds if s["kind"] == "OscillatorNode"]
    notes = list(zip(runs, takes, strict=True))
    rising = [(a, b) for a, b in pairwise(notes) if b[0] == a[0] + 1]
    assert rising and all(b[1] > a[1] for a, b in rising)  # type: ignore[operator]
    # The words are still said: a sound never replaces the announcement.
    assert page.locator("#status").inner_text().strip()


def test_a_refusal_an_undo_and_the_end_sound_too(new_page) -> None:  # type: ignore[no-untyped-def]
    page = watched(new_page)
    page.faults.expect(*REFUSED_MOVES)  # the refused moves, on purpose
    reach(page, "start")
    game = Game(GameCode(Rules.EASY, 7))
    face_up = [p for p in range(18, 28) if p not in game.playable_positions()]
    page.click(f"#card-{face_up[0]}")
    expect(page.locator("#status")).to_have_attribute("data-sound", "refused")
    page.click("#stock")
    expect(page.locator("#status")).to_have_attribute("data-sound", "draw")
    page.click("#undo")
    expect(page.locator("#status")).to_have_attribute("data-sound", "undo")
    page.wait_for_function("() => window.started.length >= 4")  # refused, draw, undo (two notes)
    assert [s["status"] for s in started(page)][:3] == ["refused", "draw", "undo"]


def test_the_switch_is_remembered_and_off_means_silent(new_page) -> None:  # type: ignore[no-untyped-def]
    page = watched(new_page)
    reach(page, "start")
    switch = page.locator("#sound")
    expect(switch).to_have_attribute("aria-pressed", "true")  # on by default
    switch.click()
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "false")
    page.reload()
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "false")
    page.click("#stock")
    expect(page.locator("#moves")).to_have_text("1")
    expect(page.locator("#status")).not_to_have_attribute("data-sound", "draw")
    page.wait_for_timeout(300)
    assert started(page) == [] and not sound_script_loaded(page)
    page.locator("#sound").click()
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "true")
    page.click("#stock")
    page.wait_for_function("() => window.started.length >= 1")
