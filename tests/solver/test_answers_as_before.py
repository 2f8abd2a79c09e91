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

from app.engine.deal import GameCode, Rules
from app.engine.game import Game
from app.engine.search.analysis import analyse
from app.engine.search.solver import solve
from tests.support.positions import replays_to

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


def test_the_file_covers_deals_0_to_9999_in_both_rule_sets_with_the_documented_shares() -> None:
    for rules in Rules:
        assert [n for r, n, _, _ in ROWS if r is rules] == list(range(10_000))
        assert sum(w for r, _, w, _ in ROWS if r is rules) == DOCUMENTED[rules]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # about 60 s a rule set on a free machine; a loaded one is slower
@pytest.mark.parametrize("rules", list(Rules))
def test_every_deal_is_judged_as_before_and_its_line_wins(rules: Rules) -> None:
    # Both ways the app answers: solve() (the quick search, then the whole-deal pass when
    # the search is undecided) and the whole-deal pass itself, which the hints use.
    for _, number, winnable, _ in (row for row in ROWS if row[0] is rules):
        code = GameCode(rules, number)
        game = Game(code)
        solution = solve(game)
        assert solution.winnable == winnable, number
        analysis = analyse(code, scores=False)
        assert analysis.winnable(0, 0, analysis.waste_after[0]) == winnable, number
        if winnable:
            end = replays_to(game, solution.line)
            assert end.is_over and end.score == solution.score, number
            line = analysis.winning_line(0, 0, analysis.waste_after[0])
            assert line is not None and replays_to(game, tuple(line)).cards_left() == 0, number


@pytest.mark.parametrize("rules", list(Rules))
def test_best_scores_are_as_before(rules: Rules) -> None:
    # A sample (the analysis with scores takes about 0.1 s a deal): every 40th deal known.
    known = [row for row in ROWS if row[0] is rules and row[3] is not None]
    assert len(known) >= 500
    for _, number, winnable, best in known[::40]:
        start = analyse(GameCode(rules, number)).start()
        assert (start.winnable, start.best_score) == (winnable, best), number
