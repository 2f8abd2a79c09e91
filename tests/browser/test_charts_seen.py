"""The statistics page's charts in a real browser: every language, right to left, dark mode and
forced colours; axe, text contrast on pixels, and the bars' own contrast against the sheet."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.support.browser import (
    BROWSER_LOCALES,
    PHONE,
    VIEWS,
    low_contrast,
    reach,
    run_axe,
    says,
    screenshot,
    settle,
)

SIZES = {view: VIEWS[view] for view in ("1280x800", "390x844", "844x390")}
CONTRAST_OF = """([a, b]) => {
  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lin = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const lum = ([r, g, b2]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b2);
  const [l1, l2] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p);
  return (l1 + 0.05) / (l2 + 0.05);
}"""
LABELS_OUTSIDE = """() => [...document.querySelectorAll('#stats-charts svg')].flatMap(svg => {
  const frame = svg.getBoundingClientRect();
  return [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()])
    .filter(([, r]) => r.left < frame.left - 0.5 || r.right > frame.right + 0.5)
    .map(([text, r]) => [svg.id, text, Math.round(r.left - frame.left)]); })"""
"""The charts' labels that run past their chart's edge (and are cut there)."""


def played(page: Page) -> None:
    """A won game and a blocked one, then the statistics page."""
    reach(page, "won")
    reach(page, "blocked")
    page.goto("/stats")
    settle(page)


def marks_contrast(page: Page) -> list[tuple[str, float]]:
    """Each kind of mark (bar, won bar, the rate's line) against the sheet behind it: at least 3:1."""
    sheet = page.locator("#stats").evaluate("e => getComputedStyle(e).backgroundColor")
    found = []
    for selector, prop in ((".bar:not(.won)", "fill"), (".bar.won", "fill"), (".rate", "stroke")):
        colour = page.locator(f"#stats-charts {selector}").first.evaluate(f"e => getComputedStyle(e).{prop}")
        found.append((selector, round(page.evaluate(CONTRAST_OF, [colour, sheet]), 2)))
    return found


def test_the_charts_read_in_every_language_with_their_text_alternatives(new_page) -> None:  # type: ignore[no-untyped-def]
    for lang, locale in BROWSER_LOCALES.items():
        page = new_page(locale=locale)
        played(page)
        charts = page.locator("#stats-charts svg[role=img]")
        expect(charts).to_have_count(3)
        expect(page.locator("#score-chart-title")).to_have_text(says(lang, "Score history"))
        for chart_id in ("score-chart", "rate-chart", "run-chart"):
            svg = page.locator(f"#{chart_id}-svg")
            assert svg.get_attribute("aria-labelledby") == f"{chart_id}-title {chart_id}-summary"
            assert page.locator(f"#{chart_id}-summary").inner_text().strip()
            box = svg.bounding_box()
            assert box is not None and box["width"] > 300 and box["height"] > 100
        # Two games, one won: two bars, one marked won, with its dot.
        expect(page.locator("#score-chart .bar")).to_have_count(2)
        expect(page.locator("#score-chart .bar.won")).to_have_count(1)
        expect(page.locator("#score-chart .dot.won")).to_have_count(1)
        oldest, latest = (page.locator("#score-chart .bar").nth(i).bounding_box() for i in (0, 1))
        assert oldest and latest
        # Time runs the way the page reads: right to left in Hebrew.
        assert (oldest["x"] > latest["x"]) == (lang == "he")
        assert run_axe(page) == []
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            assert page.evaluate(LABELS_OUTSIDE) == [], (lang, size)  # issue 42: none clipped (Hebrew, a phone)
            screenshot(page, f"stats-charts-{lang}-{size}")


def test_the_charts_keep_their_contrast_in_light_and_dark(new_page) -> None:  # type: ignore[no-untyped-def]
    low = []
    for scheme in ("light", "dark"):
        for lang in ("en", "he"):
            page = new_page(viewport=PHONE, locale=BROWSER_LOCALES[lang], bypass_csp=True, color_scheme=scheme)
            played(page)
            low.extend((scheme, lang, *t) for t in low_contrast(page))
            low.extend((scheme, lang, *m) for m in marks_contrast(page) if m[1] < 3)
        screenshot(page, f"stats-charts-he-{scheme}")
    assert low == [], "\n".join(map(str, low))


def test_in_forced_colours_the_charts_take_the_systems_colours(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(forced_colors="active")
    played(page)
    text = page.locator("#stats").evaluate("e => getComputedStyle(e).color")
    bar = page.locator("#score-chart .bar:not(.won)").evaluate("e => getComputedStyle(e).fill")
    won = page.locator("#score-chart .bar.won").evaluate("e => getComputedStyle(e).fill")
    assert bar == text and won != bar
    run_axe(page)  # loads axe; then only the charts: (axe, forced colours, the top bar's offer line)
    found = page.evaluate("axe.run('#stats-charts', {runOnly: ['wcag2a', 'wcag2aa', 'best-practice']})")
    assert found["violations"] == []
    screenshot(page, "stats-charts-forced")
