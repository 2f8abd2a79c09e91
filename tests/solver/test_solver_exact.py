"""The solver against independent searches, and every line it returns replayed by the engine."""

from __future__ import annotations

import pytest

from app.engine.actions import Action
from app.engine.deal import Deal, GameCode, Rules
from app.engine.game import Game
from app.engine.search.solver import DealSolver, solve
from app.engine.state import state_of
from tests.support.positions import replays_to, small_positions
from tests.support.reference import brute_force, brute_force_best, plain_search

RULES = [Rules.EASY, Rules.CLASSIC]


@pytest.mark.parametrize("rules", RULES)
def test_agrees_with_brute_force_on_small_positions(rules: Rules) -> None:
    outcomes = {True: 0, False: 0}
    for game in small_positions(11 if rules is Rules.EASY else 12, rules, 150):
        expected = brute_force(game)
        solution = solve(game)
        assert solution.winnable == expected, state_of(game)
        outcomes[expected] += 1
        if expected:
            end = replays_to(game, solution.line)
            assert end.is_over
            assert solution.score == end.score
        else:
            assert solution.line == ()
            assert solution.score is None
    # Both answers are exercised.
    assert outcomes[True] >= 20 and outcomes[False] >= 20, outcomes


@pytest.mark.parametrize("rules", RULES)
def test_best_score_agrees_with_brute_force(rules: Rules) -> None:
    for game in small_positions(21 if rules is Rules.EASY else 22, rules, 60, most_left=5):
        best_win, best_reach = brute_force_best(game)
        solution = solve(game, best=True)
        end = replays_to(game, solution.line)
        assert solution.best
        assert solution.score == end.score
        if best_win is not None:
            assert solution.winnable and end.is_over
            assert solution.score == best_win, state_of(game)
        else:
            assert not solution.winnable and not end.is_over
            assert solution.score == best_reach, state_of(game)


@pytest.mark.parametrize("rules", RULES)
def test_agrees_with_plain_search_on_larger_positions(rules: Rules) -> None:
    # Up to 10 cards left: too many for the engine-driven brute force, not for the plain one.
    for game in small_positions(31 if rules is Rules.EASY else 32, rules, 60, most_left=10):
        line = game.line
        expected = plain_search(
            game.deal, rules, game.removed_mask, game.drawn, game.waste.rank
        )
        assert solve(game).winnable == expected, (line, game.code_text())


# Whole deals that the plain search (exact positions, no bound, no shared tables)
# decided once; some with a win, some without.
WHOLE_DEALS = [
    (Rules.CLASSIC, 2),
    (Rules.CLASSIC, 8),
    (Rules.CLASSIC, 16),
    (Rules.EASY, 1),
    (Rules.EASY, 28),
]


@pytest.mark.parametrize(("rules", "number"), WHOLE_DEALS)
def test_whole_deals_against_plain_search(rules: Rules, number: int) -> None:
    deal = Deal.from_number(number)
    assert solve(Game(GameCode(rules, number))).winnable == plain_search(deal, rules)


@pytest.mark.parametrize("rules", RULES)
def test_every_line_replays_to_a_win(rules: Rules) -> None:
    for number in range(120):
        game = Game(GameCode(rules, number))
        solution = solve(game)
        if not solution.winnable:
            continue
        end = replays_to(game, solution.line)
        assert end.is_over, number
        draws = sum(action.is_draw for action in solution.line)
        assert solution.score == end.score == 772 - draws
        assert solution.line[-1].position is not None
        assert game.moves == 0  # the game given is left as it was


@pytest.mark.parametrize("rules", RULES)
def test_best_lines_replay_and_beat_the_first_line(rules: Rules) -> None:
    for number in range(8):
        game = Game(GameCode(rules, number))
        plain, best = solve(game), solve(game, best=True)
        end = replays_to(game, best.line)
        assert best.winnable == plain.winnable == end.is_over
        assert best.score == end.score
        if plain.winnable:
            assert plain.score is not None and best.score is not None
            assert best.score >= plain.score


def test_solves_a_game_in_progress_from_where_it_is() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    full = solve(game)
    assert full.winnable
    for action in full.line[:20]:
        game.play(action)
    before = state_of(game)
    solution = solve(game)
    assert solution.winnable
    assert state_of(game) == before
    assert replays_to(game, solution.line).is_over
    assert solution.score == replays_to(game, solution.line).score


def test_a_won_game_is_solved_by_nothing() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    for action in solve(game).line:
        game.play(action)
    solution = solve(game)
    assert solution.winnable and solution.line == () and solution.score == game.score


def test_tables_reused_across_positions_give_the_same_answers() -> None:
    # One DealSolver asked about many positions of a deal answers as fresh ones do.
    for game in small_positions(41, Rules.CLASSIC, 30, most_left=12):
        shared = DealSolver.for_game(game)
        first = solve(game, solver=shared)
        again = solve(game, solver=shared)
        assert first.winnable == again.winnable == solve(game).winnable
        if again.winnable:
            assert replays_to(game, again.line).is_over


def test_a_solver_for_another_deal_is_refused() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    other = DealSolver.for_game(Game.from_code("TP1-E-AAAAAAC"))
    with pytest.raises(ValueError):
        solve(game, solver=other)


def test_actions_are_engine_actions() -> None:
    solution = solve(Game.from_code("TP1-C-AAAAAAA"))
    assert all(isinstance(action, Action) for action in solution.line)
    assert solution.moves() == [action.text() for action in solution.line]
