"""The solver against its own answers from before the whole-deal analysis (reference_answers/today.csv.gz).

The file holds, for each deal it covers, whether the solver of commit 49e54bd (a
depth-first search with a counting bound, checked then against an independent plain
search) found it winnable and, for part of the deals, the best score it found
(``reference_answers/make_today.py`` made it).
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import pytest
from solver_helpers import replays_to

from app.engine.analysis import analyse
from app.engine.deal import GameCode, Rules
from app.engine.game import Game
from app.engine.solver import solve

DATA = Path(__file__).parent / "reference_answers" / "today.csv.gz"
# docs/solvability.md: winnable deals among 0 - 9,999.
DOCUMENTED = {Rules.EASY: 9_708, Rules.CLASSIC: 7_353}


def _rows() -> list[tuple[Rules, int, bool, int | None]]:
    with gzip.open(DATA, "rt", newline="") as source:
        return [
            (Rules(row["rules"]), int(row["number"]), row["winnable"] == "1",
             int(row["best"]) if row["best"] else None)
            for row in csv.DictReader(source)
        ]


ROWS = _rows()


def test_the_file_covers_deals_in_both_rule_sets() -> None:
    for rules in Rules:
        numbers = [n for r, n, _, _ in ROWS if r is rules]
        assert len(numbers) >= 1000 and numbers == list(range(len(numbers)))
        if len(numbers) == 10_000:  # the whole first 10,000: the documented share
            assert sum(w for r, _, w, _ in ROWS if r is rules) == DOCUMENTED[rules]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # about 20 s a rule set on a free machine; a loaded one is slower
@pytest.mark.parametrize("rules", list(Rules))
def test_every_deal_is_judged_as_before_and_its_line_wins(rules: Rules) -> None:
    for _, number, winnable, _ in (row for row in ROWS if row[0] is rules):
        game = Game(GameCode(rules, number))
        solution = solve(game)
        assert solution.winnable == winnable, number
        if winnable:
            end = replays_to(game, solution.line)
            assert end.is_over and end.score == solution.score, number


@pytest.mark.parametrize("rules", list(Rules))
def test_best_scores_are_as_before(rules: Rules) -> None:
    # A sample (the analysis with scores takes about 0.1 s a deal): every 40th deal known.
    known = [row for row in ROWS if row[0] is rules and row[3] is not None]
    assert len(known) >= 500
    for _, number, winnable, best in known[::40]:
        start = analyse(GameCode(rules, number)).start()
        assert (start.winnable, start.best_score) == (winnable, best), number
