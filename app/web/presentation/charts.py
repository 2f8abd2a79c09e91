"""The statistics page's charts, drawn on the server as SVG from the player's results.

Three charts of the player's last :data:`CHART_GAMES` results (the same rows as the page's
tables, :meth:`~app.store.GameStore.recent_results`), oldest first:

* the score history: one bar per game, a won game's bar in the won colour with a dot above it
  (a shape as well as a colour);
* the win rate over time: after each game, the share of those games won so far;
* the spread of the longest run of each game: how many games had each longest run.

Each is an ``<svg role="img">`` with a sentence that says what it shows (its text
alternative, also under it in the page). No style attribute: every colour and size is a class
in ``static/charts.css`` (dark mode and forced colours there too). Right to left, time runs
from right to left: the x coordinates are mirrored here, the labels' anchors swapped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from markupsafe import Markup, escape

from app.i18n import Locale, current_locale
from app.store.base import GameResult

CHART_GAMES: Final = 50
WIDTH: Final = 400
HEIGHT: Final = 170
LEFT: Final = 46  # room for the y axis's labels, "100%" whole at 14 px (on the right, right to left)
RIGHT: Final = 10
TOP: Final = 12
BOTTOM: Final = 24  # room for the x axis's labels


@dataclass(frozen=True, slots=True)
class Chart:
    id: str
    title: str
    summary: str
    """The chart in one or two sentences: its text alternative."""
    svg: Markup


class _Canvas:
    """Coordinates of the plotting area, mirrored for a right-to-left page."""

    def __init__(self, rtl: bool) -> None:
        self.rtl = rtl
        self.parts: list[str] = []

    def x(self, x: float, width: float = 0.0) -> float:
        """The left edge of something ``width`` wide that starts at ``x`` (left to right)."""
        return WIDTH - x - width if self.rtl else x

    def anchor(self, anchor: str) -> str:
        if not self.rtl or anchor == "middle":
            return anchor
        return "start" if anchor == "end" else "end"

    def rect(self, x: float, y: float, width: float, height: float, kind: str) -> None:
        self.parts.append(
            f'<rect class="{kind}" x="{self.x(x, width):.1f}" y="{y:.1f}" '
            f'width="{width:.1f}" height="{max(height, 0.0):.1f}"/>'
        )

    def line(self, x1: float, y1: float, x2: float, y2: float, kind: str) -> None:
        self.parts.append(
            f'<line class="{kind}" x1="{self.x(x1):.1f}" y1="{y1:.1f}" x2="{self.x(x2):.1f}" y2="{y2:.1f}"/>'
        )

    def circle(self, x: float, y: float, r: float, kind: str) -> None:
        self.parts.append(f'<circle class="{kind}" cx="{self.x(x):.1f}" cy="{y:.1f}" r="{r}"/>')

    def path(self, points: Sequence[tuple[float, float]], kind: str) -> None:
        d = " ".join(f"{'M' if i == 0 else 'L'}{self.x(x):.1f} {y:.1f}" for i, (x, y) in enumerate(points))
        self.parts.append(f'<path class="{kind}" d="{d}"/>')

    def text(self, x: float, y: float, text: str, anchor: str = "middle", kind: str = "label") -> None:
        self.parts.append(
            f'<text class="{kind}" x="{self.x(x):.1f}" y="{y:.1f}" text-anchor="{self.anchor(anchor)}">'
            f"{escape(text)}</text>"
        )

    def y_axis(self, top_label: str, middle_label: str | None = None) -> None:
        """The frame's baseline and guide lines, with the y axis's labels beside them."""
        bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
        self.line(LEFT, TOP, right, TOP, "guide")
        if middle_label is not None:
            middle = (TOP + bottom) / 2
            self.line(LEFT, middle, right, middle, "guide")
            self.text(LEFT - 5, middle + 4, middle_label, "end")
        self.line(LEFT, bottom, right, bottom, "axis")
        self.text(LEFT - 5, TOP + 4, top_label, "end")
        self.text(LEFT - 5, bottom + 4, "0" if middle_label is None else "0%", "end")

    def svg(self, chart_id: str) -> Markup:
        body = "".join(self.parts)
        return Markup(
            f'<svg class="chart" id="{chart_id}-svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-labelledby="{chart_id}-title {chart_id}-summary" focusable="false" '
            f'xmlns="http://www.w3.org/2000/svg">{body}</svg>'
        )


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def _slots(count: int) -> tuple[float, float]:
    """The width of one game's slot along the x axis, and of its bar."""
    slot = (WIDTH - LEFT - RIGHT) / max(count, 1)
    return slot, max(slot * 0.7, 1.0)


def score_history(results: Sequence[GameResult], words: Locale) -> Chart:
    canvas, bottom = _Canvas(words.direction == "rtl"), HEIGHT - BOTTOM
    high = max(max(r.score for r in results), 1)
    canvas.y_axis(str(high))
    slot, bar = _slots(len(results))
    for i, result in enumerate(results):
        height = (bottom - TOP - 8) * max(result.score, 0) / high
        x = LEFT + i * slot + (slot - bar) / 2
        canvas.rect(x, bottom - height, bar, height, "bar won" if result.won else "bar")
        if result.won:
            canvas.circle(x + bar / 2, bottom - height - 5, min(3.0, bar / 2 + 0.5), "dot won")
    canvas.text(LEFT, HEIGHT - 6, words.gettext("oldest"), "start")
    canvas.text(WIDTH - RIGHT, HEIGHT - 6, words.gettext("latest"), "end")
    won = sum(r.won for r in results)
    summary = words.ngettext(
        "Your last %(count)s game: %(won)s won. Highest score %(high)s, latest %(latest)s.",
        "Your last %(count)s games: %(won)s won. Highest score %(high)s, latest %(latest)s.",
        len(results),
    ) % {"count": len(results), "won": won, "high": high, "latest": results[-1].score}
    return Chart("score-chart", words.gettext("Score history"), summary, canvas.svg("score-chart"))


def win_rate(results: Sequence[GameResult], words: Locale) -> Chart:
    canvas, bottom = _Canvas(words.direction == "rtl"), HEIGHT - BOTTOM
    canvas.y_axis("100%", "50%")
    slot, _ = _slots(len(results))
    points, won = [], 0
    for i, result in enumerate(results):
        won += result.won
        share = won / (i + 1)
        points.append((LEFT + i * slot + slot / 2, bottom - (bottom - TOP) * share))
    if len(points) == 1:  # one game: a short level line, so there is something to see
        (x, y) = points[0]
        points = [(x - slot / 4, y), (x + slot / 4, y)]
    canvas.path(points, "rate")
    canvas.circle(*points[-1], 3.5, "dot rate-end")
    canvas.text(LEFT, HEIGHT - 6, words.gettext("oldest"), "start")
    canvas.text(WIDTH - RIGHT, HEIGHT - 6, words.gettext("latest"), "end")
    first = 1.0 if results[0].won else 0.0
    summary = words.ngettext(
        "Your win rate over your last %(count)s game: %(first)s after the first, %(last)s now.",
        "Your win rate over your last %(count)s games: %(first)s after the first, %(last)s now.",
        len(results),
    ) % {"count": len(results), "first": _percent(first), "last": _percent(won / len(results))}
    return Chart("rate-chart", words.gettext("Win rate over time"), summary, canvas.svg("rate-chart"))


def run_spread(results: Sequence[GameResult], words: Locale) -> Chart | None:
    runs = Counter(r.longest_run for r in results if r.longest_run is not None)
    if not runs:
        return None
    canvas, bottom = _Canvas(words.direction == "rtl"), HEIGHT - BOTTOM
    most_games = max(runs.values())
    canvas.y_axis(str(most_games))
    longest = max(runs)
    slot, bar = _slots(longest + 1)
    every = 1 if longest < 14 else 2 if longest < 28 else 5
    for run in range(longest + 1):
        x = LEFT + run * slot + (slot - bar) / 2
        height = (bottom - TOP) * runs.get(run, 0) / most_games
        canvas.rect(x, bottom - height, bar, height, "bar")
        if run % every == 0 or run == longest:
            canvas.text(x + bar / 2, bottom + 14, str(run))
    common = max(runs, key=lambda run: (runs[run], run))
    summary = words.ngettext(
        "Longest run in each game: most often %(run)s (%(count)s game); the longest %(longest)s.",
        "Longest run in each game: most often %(run)s (%(count)s games); the longest %(longest)s.",
        runs[common],
    ) % {"run": common, "count": runs[common], "longest": longest}
    return Chart("run-chart", words.gettext("Longest run in each game"), summary, canvas.svg("run-chart"))


def stats_charts(
    results_of: Callable[[int], Sequence[GameResult]],
) -> list[Chart]:
    """The page's charts from the player's latest results (``results_of(limit)``, newest first);
    none for a player with no result yet."""
    results = list(reversed(results_of(CHART_GAMES)))
    if not results:
        return []
    words = current_locale()
    charts = [score_history(results, words), win_rate(results, words), run_spread(results, words)]
    return [chart for chart in charts if chart is not None]
