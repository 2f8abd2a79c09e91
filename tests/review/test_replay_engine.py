"""The line and the review (app.engine.line, app.engine.search.review), checked against the suite's
independent reference searches (tests/support/reference.py), not the solver itself."""

from __future__ import annotations

import random

import pytest

from app.engine import Game, GameCode, Rules
from app.engine.line import MAX_ACTIONS, Line, LineError, LineProblem
from app.engine.search.review import DealAnalysisAdapter, Difficulty, Review, playout_share, rate
from app.engine.search.solver import solve
from tests.support.reference import brute_force_best, plain_search

CODE = GameCode.parse("TP1-E-AAAAAAB")
THROWN = Line.parse(
    "22.19.21.d.12.18.d.d.d.d.20.d.d.d.10.d.11.d.d.9.23.25.d.3.d.13.d.d.d.d.d.d.d.d.d.4.0.d.27"
)
"""A line on TP1-E-AAAAAAB that ends blocked; chosen in advance: the draw at step 23 lost the win."""
THROWN_AT = 23


def reference_winnable(game: Game) -> bool:
    if game.is_over:
        return True
    return plain_search(game.deal, game.rules, game.removed_mask, game.drawn, game.waste.rank)


# -- the line --------------------------------------------------------------------------------


def test_a_line_parses_and_writes_itself() -> None:
    line = Line.parse("d.18.27.d.21")
    assert [a.text() for a in line.actions] == ["draw", "18", "27", "draw", "21"]
    assert line.text() == "d.18.27.d.21" and str(line) == line.text() and len(line) == 5
    assert repr(line) == "Line.parse('d.18.27.d.21')"
    assert Line.parse("") == Line() and Line().text() == "" and len(Line()) == 0


def test_a_line_is_a_game_s_actions_in_effect() -> None:
    game = Game(CODE)
    game.draw()
    game.remove(game.playable_positions()[0]) if game.playable_positions() else game.draw()
    game.draw()
    game.undo()  # undone: not in the line
    assert Line.of(game) == Line(game.line) and len(Line.of(game)) == 2
    assert Line.of(game).games(CODE)[-1].removed_mask == game.removed_mask


@pytest.mark.parametrize(
    ("text", "token", "index"),
    [
        ("x", "x", 0),
        ("d.18.D", "D", 2),
        ("18.30", "30", 1),  # beyond every layout (28 is refused when played on three peaks)
        ("07", "07", 0),  # one spelling per line
        ("18..27", "", 1),
        ("18.", "", 1),
        (" 18", " 18", 0),
        ("d.-1", "-1", 1),
        ("d.draw", "draw", 1),
        ("١٨", "١٨", 0),  # digits, but not ASCII ones
    ],
)
def test_an_unknown_token_is_named_with_its_index(text: str, token: str, index: int) -> None:
    with pytest.raises(LineError) as caught:
        Line.parse(text)
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.problem, error.token, error.index) == (LineProblem.UNKNOWN_TOKEN, token, index)
    assert f"action {index + 1}" in str(error)


def test_more_than_200_actions_is_refused_at_the_201st() -> None:
    assert len(Line.parse(".".join(["d"] * MAX_ACTIONS))) == MAX_ACTIONS
    with pytest.raises(LineError) as caught:
        Line.parse(".".join(["d"] * (MAX_ACTIONS + 1)))
    assert (caught.value.problem, caught.value.index) == (LineProblem.TOO_LONG, MAX_ACTIONS)


def test_an_action_the_rules_refuse_is_named_with_its_index() -> None:
    game = Game(CODE)
    blocked = 0  # a peak top: covered at the start
    with pytest.raises(LineError) as caught:
        Line.parse(f"d.{blocked}").games(CODE)
    assert (caught.value.problem, caught.value.token, caught.value.index) == (LineProblem.REFUSED, "0", 1)
    assert caught.value.refusal is not None and caught.value.refusal.value == "card_blocked"
    wrong = next(p for p in range(18, 28) if game.refusal_for_remove(p) is not None)
    with pytest.raises(LineError) as caught:
        Line.parse(str(wrong)).games(CODE)
    assert caught.value.refusal is not None and caught.value.refusal.value == "rank_mismatch"
    with pytest.raises(LineError) as caught:  # 24 draws: the stock has 23 cards
        Line.parse(".".join(["d"] * 24)).games(CODE)
    assert (caught.value.index, caught.value.refusal and caught.value.refusal.value) == (23, "stock_empty")


def test_nothing_after_a_win() -> None:
    win = Line(solve(Game(CODE)).line)
    with pytest.raises(LineError) as caught:
        Line.parse(win.text() + ".d").games(CODE)
    assert caught.value.index == len(win) and caught.value.refusal and caught.value.refusal.value == "game_over"


# -- the review ------------------------------------------------------------------------------


def test_a_winning_line_is_winnable_at_every_step() -> None:
    win = Line(solve(Game(CODE)).line)
    review = Review.build(CODE, win, DealAnalysisAdapter(CODE))
    assert review.won and all(step.winnable for step in review.steps)
    assert review.point_of_no_return is None
    assert [reference_winnable(step.game) for step in review.steps[::7]] == [True] * len(review.steps[::7])
    assert review.par is not None and review.final.game.score <= review.par
    assert review.steps[0].best_score == review.par
    # A win below par: the first step where a better line existed lowered the best in reach.
    assert (review.first_worse is None) == (review.final.game.score == review.par)
    if review.first_worse is not None:
        k = review.first_worse.step
        assert review.steps[k - 1].best_score == review.par and (review.steps[k].best_score or 0) < review.par


def test_a_line_that_throws_the_win_away_marks_the_step_where_the_verdict_turns() -> None:
    games = THROWN.games(CODE)
    # The reference search, independently: winnable before the step chosen in advance, lost after.
    assert reference_winnable(games[THROWN_AT - 1]) and not reference_winnable(games[THROWN_AT])
    assert reference_winnable(games[0])
    review = Review.build(CODE, THROWN, DealAnalysisAdapter(CODE))
    point = review.point_of_no_return
    assert point is not None and point.step == THROWN_AT and point.action.is_draw
    assert [s.winnable for s in review.steps] == [i < THROWN_AT for i in range(len(review.steps))]
    # The action it names kept the win, by the reference search.
    assert point.instead is not None
    kept = games[THROWN_AT - 1].copy()
    kept.play(point.instead)
    assert reference_winnable(kept)
    assert not review.won and review.first_worse is None


@pytest.mark.parametrize(("rules", "number", "seed"), [(Rules.EASY, 7, 1), (Rules.CLASSIC, 3, 2), (Rules.EASY, 41, 3)])
def test_random_lines_agree_with_the_reference_at_every_step(rules: Rules, number: int, seed: int) -> None:
    code = GameCode(rules, number)
    rng = random.Random(seed)
    game = Game(code)
    while game.status.value == "playing":
        choices = [*game.playable_positions(), *([-1] if game.can_draw() else [])]
        pick = rng.choice(choices)
        game.draw() if pick == -1 else game.remove(pick)
    review = Review.build(code, Line.of(game), DealAnalysisAdapter(code))
    for step in review.steps:
        assert step.winnable == reference_winnable(step.game), step.index
        if step.game.cards_left() <= 7 or step.game.stock_count <= 3:  # small enough to search exhaustively
            win, reach = brute_force_best(step.game)
            assert step.best_score == (win if win is not None else reach), step.index
    first_lost = next((s.index for s in review.steps if not s.winnable), None)
    expected = first_lost if review.steps[0].winnable else None
    assert (review.point_of_no_return.step if review.point_of_no_return else None) == expected


def test_difficulty_rating() -> None:
    assert rate(False, 0.9) is Difficulty.IMPOSSIBLE
    assert [rate(True, share) for share in (0.9, 0.5, 0.2, 0.05, 0.049)] == [
        Difficulty.EASY, Difficulty.EASY, Difficulty.MEDIUM, Difficulty.HARD, Difficulty.EXPERT,
    ]
    share = playout_share(CODE, 50)
    assert 0.0 <= share <= 1.0 and share == playout_share(CODE, 50)  # seeded by the deal


@pytest.mark.parametrize("rules", list(Rules))
def test_playouts_follow_the_game_s_rules(rules: Rules) -> None:
    # The playouts run on the deal's masks; here the same player plays real games, drawing
    # the same random numbers: the shares must be the same.
    from app.engine.search.review import _splitmix

    def with_games(code: GameCode, playouts: int) -> float:
        numbers = _splitmix(code.number * 2 + (code.rules is Rules.CLASSIC))
        won = 0
        for _ in range(playouts):
            game = Game(code)
            while not game.is_over:
                playable = game.playable_positions()
                if playable:
                    game.remove(playable[next(numbers) % len(playable)])
                elif game.can_draw():
                    game.draw()
                else:
                    break
            won += game.is_over
        return won / playouts

    rng = random.Random(5)
    for number in [0, 1, 2, *(rng.randrange(1 << 30) for _ in range(12))]:
        code = GameCode(rules, number)
        assert playout_share(code, 40) == with_games(code, 40), code.text()
