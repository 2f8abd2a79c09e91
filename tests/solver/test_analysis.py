"""The whole-deal analysis and the search against the unpruned plain search, on random
positions late in games; its lookups, lines, memory and cache."""

from __future__ import annotations

import random

import pytest

from app.engine.deal import DEAL_COUNT, GameCode, Rules
from app.engine.game import Game
from app.engine.search import bound
from app.engine.search.analysis import WON_MIN_SCORE, AnalysisCache, analyse, score_of
from app.engine.search.hints import hint
from app.engine.search.solver import DealSolver, solve
from app.engine.state import state_of
from tests.support.positions import random_action, replays_to, small_positions
from tests.support.reference import brute_force_best, plain_search

RULES = [Rules.EASY, Rules.CLASSIC]


def late_positions(seed: int, rules: Rules, count: int) -> list[Game]:
    """Positions late in games: half follow a winning line to 4-14 cards left and then stray
    (so many can still be won), half are random play to 6-16 cards left (mostly lost)."""
    games = list(small_positions(seed, rules, count // 2, most_left=14))
    rng = random.Random(seed + 1)
    while len(games) < count:
        game = Game(GameCode(rules, rng.randrange(DEAL_COUNT)))
        left = rng.randint(6, 16)
        while game.cards_left() > left and (action := random_action(game, rng)) is not None:
            game.play(action)
        if game.cards_left() <= left and not game.is_over:
            games.append(game)
    return games


@pytest.mark.parametrize("rules", RULES)
def test_verdicts_agree_with_the_unpruned_search_late_in_games(rules: Rules) -> None:
    # The plain search tries every exact position once: no bound, no keys, no tables.
    outcomes = {True: 0, False: 0}
    for game in late_positions(61 if rules is Rules.EASY else 62, rules, 90):
        expected = plain_search(game.deal, rules, game.removed_mask, game.drawn, game.waste.rank)
        outcomes[expected] += 1
        removed, drawn, waste = game.removed_mask, game.drawn, game.waste.rank
        just_drew = not game.line or game.line[-1].is_draw
        # The depth-first search alone, with its counting bound, never handed over.
        line, _ = DealSolver.for_game(game).find_win(removed, drawn, waste, just_drew)
        assert (line is not None) == expected, state_of(game)
        # The whole-deal analysis, and solve() (the search, then the analysis).
        analysis = analyse(game.code, scores=False)
        assert analysis.winnable(removed, drawn, waste) == expected, state_of(game)
        solution = solve(game)
        assert solution.winnable == expected
        if expected:
            assert replays_to(game, solution.line).is_over
            found = analysis.winning_line(removed, drawn, waste)
            assert found is not None and replays_to(game, tuple(found)).is_over
    assert outcomes[True] >= 20 and outcomes[False] >= 20, outcomes


@pytest.mark.parametrize("rules", RULES)
def test_the_counting_bound_never_cuts_a_win_late_in_games(rules: Rules) -> None:
    # Wherever the search checks it (right after a draw), the bound refuses only positions
    # the plain search finds lost; and it does refuse some.
    rng = random.Random(7)
    refused = 0
    for game in late_positions(71 if rules is Rules.EASY else 72, rules, 80):
        solver = DealSolver.for_game(game)
        for drawn in range(game.drawn, 24, rng.choice((1, 2, 3))):
            demand = solver.demand(game.removed_mask)
            supply = demand + solver.stock_supply(23)[drawn]
            if not bound.hall_holds(demand, supply):
                refused += 1
                assert not plain_search(game.deal, rules, game.removed_mask, drawn, solver.after_draw[drawn])
    assert refused >= 20


def test_the_bound_is_the_search_s_own() -> None:
    # The search calls the readable check itself: breaking the check changes the search.
    game = Game.from_code("TP1-C-AAAAAAI")  # no win: every position is searched
    honest = DealSolver.for_game(game).find_win(0, 0, game.waste.rank, True)[1]
    original = bound.hall_holds
    try:
        bound.hall_holds = lambda demand, supply: True  # no bound at all
        unbounded = DealSolver.for_game(game).find_win(0, 0, game.waste.rank, True)[1]
    finally:
        bound.hall_holds = original
    assert unbounded > honest


@pytest.mark.parametrize("rules", RULES)
def test_best_scores_and_moves_agree_with_brute_force(rules: Rules) -> None:
    for game in small_positions(81 if rules is Rules.EASY else 82, rules, 16, most_left=5):
        best_win, best_reach = brute_force_best(game)
        verdict = analyse(game.code).of(game)
        expected = best_win if best_win is not None else best_reach
        assert verdict.best_score == expected, state_of(game)
        assert verdict.winnable == (best_win is not None)
        if verdict.move is not None:  # the move keeps the best score in reach
            after = game.copy()
            after.play(verdict.move)
            assert brute_force_best(after)[0 if best_win is not None else 1] == expected
        else:
            assert game.score == expected


def test_a_winning_score_and_a_lost_one_never_meet() -> None:
    # A win scores 772 less its draws (>= 747: at most 25 draws, with the joker and an empty
    # waste); a game not won has at most two peaks cleared.
    assert score_of((1 << 28) - 1, 25) == WON_MIN_SCORE
    from app.engine.layout import PEAK_MASKS

    two_peaks = PEAK_MASKS[0] | PEAK_MASKS[1] | 1 << 27 | 1 << 26 | 1 << 25 | 1 << 24 | 1 << 17 | 1 << 16
    assert score_of(two_peaks, 0) < WON_MIN_SCORE


def test_lookups_follow_a_game_step_by_step() -> None:
    code = GameCode.parse("TP1-E-AAAAAAB")
    analysis = analyse(code)
    game = Game(code)
    par = analysis.start().best_score
    assert par == solve(game, best=True).score and analysis.start().winnable
    while not game.is_over:
        verdict = analysis.of(game)
        assert verdict.winnable and verdict.best_score == par and verdict.move is not None
        game.play(verdict.move)
    assert game.score == par
    assert analysis.of(game).best_score == par


def test_bad_positions_are_refused() -> None:
    analysis = analyse(GameCode.parse("TP1-C-AAAAAAA"))
    with pytest.raises(ValueError, match="0x1"):
        analysis.winnable(1, 0, 5)  # a peak top cannot go first
    with pytest.raises(ValueError):
        analysis.best_score(0, 24, 5)
    with pytest.raises(ValueError):
        analysis.of(Game.from_code("TP1-C-AAAAAAB"))
    with pytest.raises(ValueError):
        analyse(GameCode.parse("TP1-C-AAAAAAA"), scores=False).best_score(0, 0, 5)


def test_memory_and_the_cache_bound() -> None:
    codes = [GameCode(Rules.EASY, n) for n in range(5)]
    first = analyse(codes[0])
    assert first.nbytes <= 2 << 20  # at most 2 MiB a deal
    cache = AnalysisCache(3 * first.nbytes)
    for code in codes:
        cache.get(code)
    assert len(cache) == 3 and cache.nbytes <= 3 * first.nbytes
    assert cache.peek(codes[0]) is None and cache.peek(codes[4]) is not None


def test_winning_first_moves_count_the_opening_actions_that_keep_a_win() -> None:
    code = GameCode.parse("TP1-C-AAAAAAA")
    analysis = analyse(code)
    game = Game(code)
    expected = 0
    for position in game.playable_positions():
        child = game.copy()
        child.remove(position)
        expected += solve(child).winnable
    child = game.copy()
    child.draw()
    expected += solve(child).winnable
    assert analysis.winning_first_moves() == expected


def test_hint_uses_the_analysis_given() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    with pytest.raises(ValueError):
        hint(game, analysis=analyse(GameCode.parse("TP1-E-AAAAAAC")))
    quick = hint(game, analysis=analyse(game.code, scores=False))
    assert quick.undos_to_winnable == 0 and quick.action is not None
    after = game.copy()
    after.play(quick.action)
    assert solve(after).winnable
