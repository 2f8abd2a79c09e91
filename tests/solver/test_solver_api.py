"""The solver's API: hints, limits, tables, the bound, the command line."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from functools import cache

import pytest

from app.cli import main
from app.engine.actions import Action
from app.engine.deal import GameCode, Rules
from app.engine.game import Game
from app.engine.search.bound import hall_holds, rank_unit
from app.engine.search.hints import Hint, hint
from app.engine.search.solver import SearchLimitExceeded, reachable_removed_sets, solve, solve_code
from tests.support.positions import random_action, replays_to, small_positions
from tests.support.reference import brute_force, brute_force_best, plain_best
from tests.support.three_peaks import COVER_MASKS


def test_reachable_removed_sets() -> None:
    sets = reachable_removed_sets()
    assert len(sets) == 22_932
    assert 0 in sets and (1 << 28) - 1 in sets
    # A set is reachable exactly when every removed card had its covering cards removed.
    for removed in random.Random(5).sample(sorted(sets), 500):
        for p in range(28):
            if removed >> p & 1:
                assert removed & COVER_MASKS[p] == COVER_MASKS[p]


# Counts checked against the plain search of tests/support/reference.py (and two other solvers'
# runs): how many of the first 200 deal numbers can be won.
@pytest.mark.parametrize(("rules", "winnable"), [(Rules.EASY, 195), (Rules.CLASSIC, 138)])
def test_winnable_count_of_the_first_deals(rules: Rules, winnable: int) -> None:
    assert sum(solve(Game(GameCode(rules, n))).winnable for n in range(200)) == winnable


def _max_flow(demand: list[int], supply: list[int], rules: Rules) -> int:
    """Cards of rank r (demand) onto cards of adjacent rank (supply), each supply used once:
    the largest number served, by augmenting paths on the unit graph."""
    left = [r for r in range(1, 14) for _ in range(demand[r])]
    right = [r for r in range(1, 14) for _ in range(supply[r])]
    match: list[int | None] = [None] * len(right)

    def fits(a: int, b: int) -> bool:
        return abs(a - b) == 1 or (rules is Rules.EASY and {a, b} == {1, 13})

    def augment(i: int, seen: set[int]) -> bool:
        for j, rank in enumerate(right):
            if j in seen or not fits(left[i], rank):
                continue
            seen.add(j)
            owner = match[j]
            if owner is None or augment(owner, seen):
                match[j] = i
                return True
        return False

    return sum(augment(i, set()) for i in range(len(left)))


@pytest.mark.parametrize("rules", [Rules.EASY, Rules.CLASSIC])
def test_counting_bound_never_refuses_what_a_matching_serves(rules: Rules) -> None:
    rng = random.Random(8)
    refused = 0
    for _ in range(1500):
        demand = [0] + [rng.choice((0, 0, 1, 1, 2, 3)) for _ in range(13)]
        supply = [0] + [demand[r] + rng.choice((0, 0, 0, 1)) for r in range(1, 14)]
        packed_demand = sum(rank_unit(r, rules) * demand[r] for r in range(1, 14))
        packed_supply = sum(rank_unit(r, rules) * supply[r] for r in range(1, 14))
        holds = hall_holds(packed_demand, packed_supply)
        feasible = _max_flow(demand, supply, rules) == sum(demand)
        # Sound: when every card can be served, the bound holds.
        assert holds or not feasible, (demand, supply)
        refused += not holds
    assert refused > 100  # and it does refuse often


def test_node_limit() -> None:
    game = Game.from_code("TP1-C-AAAAAAI")  # no win: the whole search is needed
    with pytest.raises(SearchLimitExceeded):
        solve(game, node_limit=50)
    assert not solve(game).winnable


def test_solve_code() -> None:
    solution = solve_code("tp1-e-aaaaaab")
    assert solution.winnable
    assert replays_to(Game.from_code("TP1-E-AAAAAAB"), solution.line).is_over


def test_hint_on_a_winnable_game_keeps_the_win() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    while not game.is_over:
        advice = hint(game)
        assert advice.undos_to_winnable == 0
        assert isinstance(advice.action, Action)
        game.play(advice.action)
    assert hint(game) == Hint(None, 0)


def _prefix(game: Game, length: int) -> Game:
    """The game after the first ``length`` actions of its line."""
    return replays_to(Game(game.code), game.line[:length])


def test_hint_agrees_with_brute_force_on_small_positions() -> None:
    for game in small_positions(51, Rules.CLASSIC, 60, most_left=5):
        advice = hint(game)
        if brute_force(game):
            assert advice.undos_to_winnable == 0 and advice.action is not None
            after = game.copy()
            after.play(advice.action)
            assert brute_force(after)
        else:
            assert advice.action is None
            k = advice.undos_to_winnable
            assert k is not None and k > 0  # these games followed a winning line
            back = _prefix(game, len(game.line) - k)
            assert solve(back).winnable
            one_less = _prefix(game, len(game.line) - k + 1)
            assert not solve(one_less).winnable


def test_hint_when_the_deal_was_never_winnable() -> None:
    game = Game.from_code("TP1-C-AAAAAAI")
    rng = random.Random(3)
    for _ in range(6):
        action = random_action(game, rng)
        assert action is not None
        game.play(action)
    advice = hint(game)
    assert (advice.action, advice.undos_to_winnable) == (None, None)
    start = hint(Game.from_code("TP1-C-AAAAAAI"))
    assert (start.action, start.undos_to_winnable) == (None, None)
    assert start.towards_best is not None  # the best score still possible is above 0 moves'


def test_once_the_win_is_lost_the_hint_leads_to_the_best_score_still_possible() -> None:
    """Checked against an exhaustive search: the move keeps the best score reachable, and
    there is none only when no move raises the score."""
    lost = 0
    for game in small_positions(77, Rules.CLASSIC, 80, most_left=6):
        advice = hint(game)
        if advice.undos_to_winnable == 0 or game.is_over:
            continue
        lost += 1
        assert advice.action is None
        _, reach = brute_force_best(game)
        if advice.towards_best is None:
            assert reach == game.score
            continue
        after = game.copy()
        after.play(advice.towards_best)
        assert brute_force_best(after)[1] == reach
    assert lost >= 10  # enough of the positions had no win left


def test_cli_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "tp1-e-aaaaaab", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"code", "winnable", "moves", "score"}
    assert data["code"] == "TP1-E-AAAAAAB" and data["winnable"] is True
    game = Game.from_code(data["code"])
    for move in data["moves"]:
        game.play(Action.parse(move))
    assert game.is_over and game.score == data["score"]


def test_cli_solve_words_and_best(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "TP1-C-AAAAAAI"]) == 0
    assert "Not winnable" in capsys.readouterr().out
    assert main(["solve", "TP1-C-AAAAAAI", "--best", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["winnable"] is False
    assert data["score"] == reference_best(GameCode.parse("TP1-C-AAAAAAI"))[1] == 661  # the highest reached
    assert main(["solve", "TP1-E-AAAAAAB"]) == 0
    out = capsys.readouterr().out
    assert "Winnable" in out and "draw:" in out and "remove" in out


def test_cli_solve_refuses_a_bad_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "nonsense"]) == 2
    assert "TP1-E-AAAAAAB" in capsys.readouterr().err


@cache
def reference_best(code: GameCode) -> tuple[int | None, int]:
    return plain_best(code.deal(), code.rules)


STATS_DEALS = [GameCode(Rules.CLASSIC, n) for n in (7, 8, 9)]  # 8 has no win (the reference says)


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for k successes in n, in per cent."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return 100 * (centre - half), 100 * (centre + half)


def test_cli_stats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--rules", "classic", "--deals", "3", "--start", "7"]) == 0
    out = capsys.readouterr().out
    assert "classic rules, deals 7 to 9 (3 deals)" in out
    won = sum(reference_best(code)[0] is not None for code in STATS_DEALS)
    assert won == 2
    low, high = wilson(won, 3)
    assert f"winnable: {won} of 3 = {100 * won / 3:.2f}% (95% interval {low:.2f}% to {high:.2f}%)" in out
    times = re.search(r"time per deal, ms: mean ([\d.]+), median ([\d.]+), 90th percentile ([\d.]+), "
                      r"99th percentile ([\d.]+), max ([\d.]+) \(deal (\d+)\)", out)
    assert times, out
    mean, median, p90, p99, most = map(float, times.groups()[:5])
    ordered = [median, p90, p99, most]  # printed to 4 figures: 61.03 may be followed by 61.0
    assert median > 0 and all(a <= b + 0.1 for a, b in itertools.pairwise(ordered))
    assert mean <= most + 0.1 and int(times.group(6)) in (7, 8, 9)


def histogram(out: str, heading: str) -> dict[str, int]:
    """The rows (label, count) of a histogram the stats print under ``heading``."""
    rows = out.split(heading, 1)[1].split(":", 1)[1].splitlines()[1:]
    found = {}
    for row in rows:
        match = re.fullmatch(r"\s+([\d-]+)\s+(\d+) #*\s*", row)
        if not match:
            break
        found[match.group(1)] = int(match.group(2))
    return found


def test_cli_stats_parallel_with_best(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--rules", "classic", "--deals", "3", "--start", "7", "--jobs", "2", "--best"]) == 0
    out = capsys.readouterr().out
    wins = [w for w, _ in map(reference_best, STATS_DEALS) if w is not None]
    lost = [reached for w, reached in map(reference_best, STATS_DEALS) if w is None]
    shown = histogram(out, "best scores of the winnable deals")
    assert shown == {str(s): wins.count(s) for s in range(min(wins), max(wins) + 1)}
    reached = histogram(out, "best scores reachable in the deals with no win")
    assert sum(reached.values()) == len(lost) == 1
    (label,) = [label for label, count in reached.items() if count]
    low, high = map(int, label.split("-"))
    assert low <= lost[0] <= high
