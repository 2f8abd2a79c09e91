"""What the play-experience tests share: the five views, the page's states, the catalogs' words.

A state is reached through real HTTP in the page's own browser context (its cookies, so the
player's own game): the moves are posted as plain forms, then the page is loaded whole.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, Final

from babel.messages.pofile import read_po
from playwright.sync_api import Browser, Page, expect

from app.engine import DRAW, Game, GameCode, Rules
from tests.support.deals import blocked_by_drawing, won_deal
from tests.support.store import Clock

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("TRIPEAKS_CHROMIUM", "/usr/bin/chromium")


@contextmanager
def launched_chromium() -> Iterator[Browser]:
    """Debian's Chromium under Playwright, as every browser test runs it (skips without it)."""
    import shutil

    import pytest
    from playwright.sync_api import sync_playwright

    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: install Debian's chromium (.ci/run does)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-gpu"],
        )
        yield chromium
        chromium.close()

SCREENSHOTS = ROOT / "test-output" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
HERE = ROOT / "tests" / "browser"
CONTRAST = (HERE / "contrast.js").read_text(encoding="utf-8")
TEXTS = (HERE / "texts.js").read_text(encoding="utf-8")
HIDE_TEXT = (
    "*, *::before, *::after { color: transparent !important; -webkit-text-fill-color: transparent !important;"
    " text-shadow: none !important; transition: none !important; }"
)
CATALOGS = ROOT / "app" / "i18n" / "locales"
AXE = next((HERE / "vendor").glob("axe-*.min.js"))
CODE = "TP1-E-AAAAAAB"
MID_CODE = "TP1-E-AAAAAAD"
"""The deal of the game under way (not the won deal's nor the blocked deal's)."""

VIEWS: dict[str, dict[str, int]] = {
    "1280x800": {"width": 1280, "height": 800},
    "1366x768": {"width": 1366, "height": 768},
    "390x844": {"width": 390, "height": 844},
    "844x390": {"width": 844, "height": 390},
    # 1280x800 at 200 % zoom: the page lays out in 640x400 CSS pixels (the media queries and
    # the layout are those of the zoomed page; only the pixels per CSS pixel differ).
    "1280x800-zoom200": {"width": 640, "height": 400},
}
BROWSER_LOCALES = {"en": "en-GB", "he": "he-IL", "uk": "uk-UA", "th": "th-TH"}
STATES = ("start", "mid", "won", "blocked", "new-game")


@cache
def catalog(lang: str) -> dict[str, Any]:
    """A language's catalog as its .po file says it (read with babel, not the app's gettext)."""
    with (CATALOGS / lang / "LC_MESSAGES" / "messages.po").open("rb") as file:
        messages = read_po(file, locale=lang)
    return {
        (m.id if isinstance(m.id, str) else m.id[0]): (m.string or m.id)
        for m in messages
        if m.id and not (m.context)
    }


def says(lang: str, msgid: str, **values: object) -> str:
    """The catalog's own wording of a message, with its values filled in."""
    text = catalog(lang)[msgid]
    if isinstance(text, tuple):  # plural forms: the tests use the singular's id only for checks
        text = text[0]
    return text % values if values else text


def card_name(lang: str, c) -> str:  # type: ignore[no-untyped-def]
    """A card in words as the catalog writes it: its rank and suit words, in its card format."""
    with (CATALOGS / lang / "LC_MESSAGES" / "messages.po").open("rb") as file:
        messages = {(m.context, m.id): m.string or m.id for m in read_po(file, locale=lang) if m.id}
    ranks = {1: ("rank", "ace"), 11: ("rank", "jack"), 12: ("rank", "queen"), 13: ("rank", "king")}
    rank = messages[ranks[c.rank]] if c.rank in ranks else str(c.rank)
    suit = messages[("suit", {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[c.suit.letter])]
    return str(messages[("card", "%(rank)s of %(suit)s")]) % {"rank": rank, "suit": suit}


def refusal(status: int, method: str, path: str) -> tuple[str, str]:
    """The faults a page sees when the server refuses a request on purpose (``path``: a regular
    expression of its path), for ``page.faults.expect(*refusal(409, "POST", "/games/.*/remove"))``:
    the answer, and Chromium's console line about it."""
    return (
        rf"^response {status} {method} https?://[^/]+{path}$",
        rf"^console error: Failed to load resource: the server responded with a status of {status} .* at https?://[^/]+{path}$",
    )


REFUSED_MOVES: Final = refusal(409, "POST", "/games/[^/]+/(remove|draw|undo|hint)")
"""A move (or hint) the rules refuse, as a test makes one on purpose: 409 and its console line."""
OFFLINE: Final = (r"net::ERR_INTERNET_DISCONNECTED", r"FetchEvent.*network error", r"^response 5\d\d GET ")
"""What a page offline sees (``context.set_offline(True)``): failed requests, the service worker's
network errors, its offline answer."""


def record_errors(page: Page) -> Page:
    """Keep the page's script errors, and what its Content-Security-Policy refused, in
    ``page.js_errors`` (a test asserts it is empty at the end)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.js_errors = errors  # type: ignore[attr-defined]
    return page


def game_id(page: Page) -> str:
    found = page.locator("#game").get_attribute("data-game-id")
    assert found
    return found


def post_line(
    page: Page, line: tuple[int, ...] | list[int], *, clock: Clock | None = None, step: float = 2.0
) -> None:
    """Play actions as plain form posts from the page's own context (its cookie, its game), each
    ``step`` seconds of ``clock`` after the last when a clock is given."""
    gid = game_id(page)
    for action in line:
        if clock is not None:
            clock.advance(step)
        if action == DRAW:
            response = page.request.post(f"/games/{gid}/draw", max_redirects=0)
        else:
            response = page.request.post(f"/games/{gid}/remove", form={"position": str(action)}, max_redirects=0)
        assert response.status == 303, (action, response.status)


def play_by_keys(page: Page, action: int) -> None:
    """One action as a keyboard player makes it: D draws; a card is focused and Enter plays it."""
    if action == DRAW:
        page.keyboard.press("d")
    else:
        page.locator(f'#peaks [data-position="{action}"]').focus()
        page.keyboard.press("Enter")


def play_line_by_clicks(page: Page, line: tuple[int, ...] | list[int], pace_ms: int = 200) -> None:
    """A whole line by mouse (the stock, or the card), ``pace_ms`` apart, each action seen on the
    page (the move count) before the next."""
    for number, action in enumerate(line, start=1):
        page.wait_for_timeout(pace_ms)
        if action == DRAW:
            page.click("#stock")
        else:
            page.locator(f'#table [data-position="{action}"]').click()
        expect(page.locator("#moves")).to_have_text(str(number))


def play_line_by_keys(page: Page, line: tuple[int, ...] | list[int]) -> None:
    """A whole line by keyboard, each action seen on the page (the move count) before the next."""
    for number, action in enumerate(line, start=1):
        play_by_keys(page, action)
        expect(page.locator("#moves")).to_have_text(str(number))


def mid_line() -> list[int]:
    """A removal that turns cards face up, and a draw: a game under way."""
    game = Game.from_code(MID_CODE)
    return [game.playable_positions()[0], DRAW]


def reach(page: Page, state: str) -> None:
    """Open the game page in one of the states the tests look at."""
    if state == "start":
        page.goto(f"/g/{GameCode(Rules.EASY, 7).text()}")
    elif state == "mid":
        page.goto(f"/g/{MID_CODE}")
        if page.locator("#moves").inner_text() == "0":
            post_line(page, mid_line())
        page.goto(f"/g/{MID_CODE}")
    elif state == "won":
        code, line = won_deal(Rules.EASY)
        page.goto(f"/g/{code.text()}")
        if not page.locator("#result.won").count():
            post_line(page, line)
            page.goto(f"/g/{code.text()}", timeout=60_000)  # the first page of a won game asks the solver
        expect(page.locator("#result.won")).to_be_visible()
    elif state == "blocked":
        code = blocked_by_drawing()
        page.goto(f"/g/{code.text()}")
        if not page.locator("#result.blocked").count():
            post_line(page, [DRAW] * 23)
            page.goto(f"/g/{code.text()}")
        expect(page.locator("#result.blocked")).to_be_visible()
    elif state == "new-game":
        reach(page, "mid")
        page.click("#new-game-button")
        expect(page.locator("#new-game")).to_be_visible()
    else:  # pragma: no cover - a typo in a test
        raise ValueError(state)
    settle(page)


def settle(page: Page) -> None:
    """Wait until the parts a page loads on its own (a result box's outlook and difficulty,
    hx-trigger="load") have come and no animation or view transition runs."""
    page.wait_for_function(
        """() => !document.querySelector('[hx-trigger="load"], .htmx-request')
                 && document.getAnimations().every(a => a.playState !== 'running')"""
    )


def run_axe(page: Page) -> list[tuple[str, list[Any]]]:
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))  # evaluated by the test, not loaded by the page
    result = page.evaluate("axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice']})")
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]]


OUTSIDE = """(selectors) => {
  const w = innerWidth, h = innerHeight, bad = [];
  for (const selector of selectors) {
    const found = [...document.querySelectorAll(selector)].filter(e => e.getClientRects().length);
    if (!found.length) bad.push([selector, 'missing']);
    for (const e of found) {
      const r = e.getBoundingClientRect();
      const name = selector + (e.id ? '#' + e.id : '');
      if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5) {
        bad.push([name, 'outside', [r.left, r.top, r.right, r.bottom].map(Math.round)]);
        continue;
      }
      // Nothing covers it: the middle of its box and a point near each corner hit it.
      // A card on the peaks may lie under its right-hand neighbour's edge (phones: issue 30);
      // its left part, with its corner index, must be in view.
      const points = e.closest('#peaks') ? [[.4, .5], [.15, .15], [.15, .85]] : [[.5, .5], [.2, .2], [.8, .2], [.2, .8], [.8, .8]];
      for (const [fx, fy] of points) {
        const hit = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
        if (!hit || !(hit === e || e.contains(hit) || hit.contains(e))) {
          bad.push([name, 'covered', hit && (hit.id || hit.className)]);
          break;
        }
      }
    }
  }
  return bad;
}"""
"""Which of the elements are not wholly in the viewport, or are covered by something else."""

PLAYED = [
    "#peaks button.card.face", "#stock", "#waste", "#undo", "#hint", "#new-game-button",
]


def not_fitting(page: Page, selectors: list[str] | None = None) -> list[Any]:
    result: list[Any] = page.evaluate(OUTSIDE, selectors or PLAYED)
    return result


def sideways(page: Page) -> list[Any]:
    """Anything that makes the page scroll sideways."""
    result: list[Any] = page.evaluate(
        """() => {
          const w = document.documentElement.clientWidth, bad = [];
          if (document.documentElement.scrollWidth > w) bad.push(['page', document.documentElement.scrollWidth]);
          const main = document.querySelector('main');
          if (main && main.scrollWidth > main.clientWidth + 1) bad.push(['main', main.scrollWidth, main.clientWidth]);
          return bad;
        }"""
    )
    return result


def in_each_language(make_page: Callable[..., Page], viewport: dict[str, int], **options: Any):  # type: ignore[no-untyped-def]
    for lang, locale in BROWSER_LOCALES.items():
        yield lang, make_page(viewport=viewport, locale=locale, **options)


def screenshot(page: Page, name: str) -> Path:
    """The whole page in ``test-output/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.wait_for_timeout(400)  # let the card animations finish
    page.screenshot(path=str(path), full_page=True, caret="initial")  # "hide" injects a style CSP refuses
    return path


def low_contrast(page: Page) -> list[tuple[str, float]]:
    """The texts on screen under 4.5:1 (3:1 when large) against the pixels behind them."""
    texts = page.evaluate(TEXTS)
    assert len(texts) > 10
    page.add_style_tag(content=HIDE_TEXT)
    shot = base64.b64encode(page.screenshot(animations="disabled")).decode()
    return [
        (t["text"], round(t["ratio"], 2))
        for t in page.evaluate(CONTRAST, [shot, texts])
        if t["ratio"] < (3 if t["large"] else 4.5)
    ]


def no_sideways_scroll(page: Page, width: int) -> None:
    scroll = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(scroll) <= width, scroll
    # Nothing pokes out either (an overflow that is clipped would still hide text).
    widest = page.evaluate(
        """() => Math.max(...[...document.querySelectorAll('main *')]
            .map(e => e.getBoundingClientRect().right))"""
    )
    assert widest <= width + 0.5, widest
