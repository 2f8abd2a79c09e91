"""The Display choice in a real browser: each card back, table and the four-colour deck render,
keep their contrast on pixels in light, dark and forced colours, and read in every language."""

from __future__ import annotations

import base64

from playwright.sync_api import Page, expect

from tests.support.browser import (
    BROWSER_LOCALES,
    DESKTOP,
    PHONE,
    low_contrast,
    reach,
    run_axe,
    says,
    screenshot,
)

BACKS = ("blue", "red", "lattice")
TABLES = ("green", "blue", "wine")
SIZES = {"1280x800": DESKTOP, "390x844": PHONE, "844x390": {"width": 844, "height": 390}}

# Pixels of a screenshot: a top peak's face-down card against the table just above it. Its edge
# and its middle (a 7x7 patch) are each compared with the table; the better is the card's contrast.
BACK_CONTRAST = """async ([shot, box]) => {
  const img = new Image(); img.src = 'data:image/png;base64,' + shot; await img.decode();
  const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
  const g = c.getContext('2d'); g.drawImage(img, 0, 0);
  const at = (x, y, r = 0) => {
    const d = g.getImageData(Math.round(x) - r, Math.round(y) - r, 2 * r + 1, 2 * r + 1).data, n = d.length / 4;
    let s = [0, 0, 0]; for (let i = 0; i < d.length; i += 4) { s[0] += d[i]; s[1] += d[i + 1]; s[2] += d[i + 2]; }
    return s.map(v => v / n);
  };
  const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const lum = ([r, gg, b]) => 0.2126 * lin(r) + 0.7152 * lin(gg) + 0.0722 * lin(b);
  const ratio = (p, q) => { const [a, b] = [lum(p), lum(q)].sort((x, y) => y - x); return (a + 0.05) / (b + 0.05); };
  const cx = box.x + box.width / 2, table = at(cx, box.y - 5, 1);
  return Math.max(ratio(at(cx, box.y + box.edge / 2), table), ratio(at(cx, box.y + box.height / 2, 3), table));
}"""


def choose(page: Page, back: str, table: str, deck: str = "two") -> None:
    page.goto("/display")
    for field, value in (("back", back), ("table", table), ("deck", deck)):
        page.check(f"input[name={field}][value={value}]")
    page.click("#save-display")
    expect(page.locator("#display-saved")).to_be_visible()


def back_contrast(page: Page) -> float:
    card = page.locator("#peaks .card.back.pos-0")
    box = card.bounding_box()
    assert box is not None
    box["edge"] = card.evaluate("e => parseFloat(getComputedStyle(e).borderTopWidth)")
    assert box["edge"] >= 3  # (measured on a desktop's cards: a phone's edge is a pixel or two)
    shot = base64.b64encode(page.screenshot(animations="disabled")).decode()
    return float(page.evaluate(BACK_CONTRAST, [shot, box]))


def test_each_back_and_table_keeps_its_contrast_in_light_and_dark(new_page) -> None:  # type: ignore[no-untyped-def]
    low = []
    for scheme in ("light", "dark"):
        page = new_page(bypass_csp=True, color_scheme=scheme)
        for back, table in zip(BACKS, TABLES, strict=True):
            for other in TABLES:  # each back on every table, the texts on each table
                choose(page, back, other)
                reach(page, "mid")
                assert page.evaluate("document.documentElement.className") == f"back-{back} table-{other} deck-two"
                ratio = back_contrast(page)
                if ratio < 3:
                    low.append((scheme, back, other, "back", round(ratio, 2)))
                if other == table:
                    page.set_viewport_size(PHONE)
                    low.extend((scheme, back, other, *t) for t in low_contrast(page))
                    page.set_viewport_size(DESKTOP)
                    page.reload()
    assert low == [], "\n".join(map(str, low))


def test_in_forced_colours_every_back_stays_a_solid_card(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(forced_colors="active")
    for back in BACKS:
        choose(page, back, "wine")
        reach(page, "mid")
        image = page.locator("#peaks .card.back").first.evaluate("e => getComputedStyle(e).backgroundImage")
        assert "gradient" in image and (back != "lattice" or "lattice.svg" in image)
        assert back_contrast(page) >= 3, back
    screenshot(page, "display-forced-lattice")


def test_more_contrast_thickens_the_cards_and_the_buttons_edges(new_page) -> None:  # type: ignore[no-untyped-def]
    """``prefers-contrast: more``: 2 px edges on the cards and the buttons, 1 px otherwise."""
    widths = "e => getComputedStyle(e).borderTopWidth"
    for contrast, width in (("no-preference", "1px"), ("more", "2px")):
        page = new_page(contrast=contrast)
        reach(page, "mid")
        assert page.locator(".waste .card").last.evaluate(widths) == width, contrast
        assert page.locator("#new-game-button").evaluate(widths) == width, contrast
    screenshot(page, "display-more-contrast")


def test_the_four_colour_deck_colours_diamonds_and_clubs_with_contrast(new_page) -> None:  # type: ignore[no-untyped-def]
    for scheme in ("light", "dark"):
        page = new_page(color_scheme=scheme)
        reach(page, "start")
        colour = "e => getComputedStyle(e).color"
        two = {s: page.locator(f'#peaks .card.face[data-s="{s}"]').first.evaluate(colour) for s in "♦♣♥♠"}
        choose(page, "blue", "green", "four")
        reach(page, "start")
        four = {s: page.locator(f'#peaks .card.face[data-s="{s}"]').first.evaluate(colour) for s in "♦♣♥♠"}
        assert four["♥"] == two["♥"] == two["♦"] and four["♠"] == two["♠"] == two["♣"]
        assert len({four["♦"], four["♣"], four["♥"], four["♠"]}) == 4  # four colours
        card = page.locator("#peaks .card.face").first.evaluate("e => getComputedStyle(e).backgroundColor")
        for suit in "♦♣":
            ratio = page.evaluate(
                """([a, b]) => {
                  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
                  const lin = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
                  const lum = ([r, g, b2]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b2);
                  const [l1, l2] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p);
                  return (l1 + 0.05) / (l2 + 0.05); }""",
                [four[suit], card],
            )
            assert ratio >= 4.5, (scheme, suit, ratio)


def test_the_display_page_in_every_language_and_the_look_at_three_sizes(new_page) -> None:  # type: ignore[no-untyped-def]
    found = []
    for lang, locale in BROWSER_LOCALES.items():
        page = new_page(locale=locale)
        page.goto("/g/TP1-E-AAAAAAB")
        page.click("#new-game-button")
        page.click("#display-link")
        expect(page.locator("#display h1")).to_have_text(says(lang, "Display"))
        found.extend((lang, v) for v in run_axe(page))
        for back, table in zip(BACKS, TABLES, strict=True):
            choose(page, back, table, "four" if back != "blue" else "two")
            found.extend((lang, back, v) for v in run_axe(page))
            reach(page, "mid")
            found.extend((lang, back, table, v) for v in run_axe(page))
            for size, viewport in SIZES.items():
                page.set_viewport_size(viewport)
                screenshot(page, f"display-{lang}-{back}-{table}-{size}")
            page.set_viewport_size(DESKTOP)
        page.goto("/display")
        screenshot(page, f"display-page-{lang}")
    assert found == []
