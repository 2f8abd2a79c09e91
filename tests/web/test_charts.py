"""The statistics page's charts: drawn on the server as SVG from the player's results."""

from __future__ import annotations

import datetime as dt
import re

from fastapi.testclient import TestClient

from app.engine import Rules
from app.i18n import get_locale
from app.store.base import GameResult
from app.web.presentation.charts import HEIGHT, LEFT, WIDTH, run_spread, score_history, stats_charts, win_rate
from tests.support.deals import blocked_by_drawing, won_deal
from tests.support.pages import win_by_clicks

AT = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def result(score: int, won: bool, run: int | None) -> GameResult:
    return GameResult("g", "p", "TP1-E-AAAAAAB", won, score, 0 if won else 5, 30, frozenset(), AT, run)


GAMES = [result(400, False, 3), result(1200, True, 9), result(800, False, 3), result(1600, True, 12)]


def bars(svg: str) -> list[tuple[str, float, float, float]]:
    """(class, x, y, height) of each bar."""
    return [
        (kind, float(x), float(y), float(h))
        for kind, x, y, h in re.findall(r'<rect class="([^"]+)" x="([\d.]+)" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"', svg)
    ]


def test_the_score_history_has_a_bar_a_game_its_height_the_score_and_wins_marked() -> None:
    chart = score_history(GAMES, get_locale("en"))
    drawn = bars(str(chart.svg))
    assert [kind for kind, *_ in drawn] == ["bar", "bar won", "bar", "bar won"]
    heights = [h for *_, h in drawn]
    assert heights[3] == max(heights) and abs(heights[0] / heights[3] - 400 / 1600) < 0.01
    assert str(chart.svg).count('class="dot won"') == 2  # a shape marks a win, not only a colour
    xs = [x for _, x, _, _ in drawn]
    assert xs == sorted(xs) and xs[0] >= LEFT  # oldest first, left to right
    assert chart.summary == "Your last 4 games: 2 won. Highest score 1600, latest 1600."
    assert 'role="img"' in str(chart.svg) and 'aria-labelledby="score-chart-title score-chart-summary"' in str(chart.svg)
    assert "style=" not in str(chart.svg)  # the CSP forbids inline styles: classes only


def test_right_to_left_time_runs_from_the_right() -> None:
    hebrew = bars(str(score_history(GAMES, get_locale("he")).svg))
    english = bars(str(score_history(GAMES, get_locale("en")).svg))
    assert [x for _, x, _, _ in hebrew] == sorted((x for _, x, _, _ in hebrew), reverse=True)
    widths = re.findall(r'<rect class="bar[^"]*" x="[\d.]+" y="[\d.]+" width="([\d.]+)"', str(score_history(GAMES, get_locale("he")).svg))
    for (_, x_he, _, _), (_, x_en, _, _), width in zip(hebrew, english, widths, strict=True):
        assert abs(x_he - (WIDTH - x_en - float(width))) < 0.11


def test_the_win_rate_line_and_the_spread_of_runs() -> None:
    rate = win_rate(GAMES, get_locale("en"))
    points = [tuple(map(float, p)) for p in re.findall(r"[ML]([\d.]+) ([\d.]+)", str(rate.svg))]
    assert len(points) == 4
    # 0 of 1, 1 of 2, 1 of 3, 2 of 4: the y of 0% is the baseline, 50% halfway up.
    ys = [y for _, y in points]
    assert ys[0] > ys[2] > ys[1] == ys[3]
    assert rate.summary == "Your win rate over your last 4 games: 0% after the first, 50% now."
    runs = run_spread([*GAMES, result(100, False, None)], get_locale("en"))
    assert runs is not None
    heights = [h for *_, h in bars(str(runs.svg))]
    assert len(heights) == 13  # runs 0 to 12
    assert heights[3] == max(heights) and heights[9] == heights[12] == heights[3] / 2 and heights[5] == 0
    assert runs.summary == "Longest run in each game: most often 3 (2 games); the longest 12."
    assert run_spread([result(100, False, None)], get_locale("en")) is None
    assert all(0 <= y <= HEIGHT for _, y in points)


def test_no_result_no_chart() -> None:
    assert stats_charts(lambda limit: []) == []


def test_the_page_draws_them_from_the_same_results_as_its_tables(client: TestClient) -> None:
    assert 'id="stats-charts"' not in client.get("/stats").text
    code, line = won_deal(Rules.EASY)
    win_by_clicks(client, code, line)
    page = client.get(f"/g/{blocked_by_drawing().text()}")
    game_id = re.search(r'data-game-id="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    for _ in range(23):
        client.post(f"/games/{game_id}/draw")
    html = client.get("/stats").text
    section = re.search(r'<section id="stats-charts".*?</section>', html, re.S)
    assert section is not None
    assert section.group(0).count("<svg") == 3
    score = re.search(r'<figure class="chart-figure" id="score-chart">.*?</figure>', section.group(0), re.S)
    assert score is not None and [k for k, *_ in bars(score.group(0))] == ["bar won", "bar"]
    assert "Your last 2 games: 1 won." in score.group(0)
    assert re.search(r'<tr id="stats-won"><th[^>]*>.*?</th><td>1</td>', html)
    assert 'href="/static/charts.css?v=' in html
    # In Ukrainian, its words are Ukrainian.
    client.post("/settings/language", data={"lang": "uk"})
    ukrainian = client.get("/stats").text
    assert "Your last 2 games" not in ukrainian and 'id="score-chart-summary"' in ukrainian
