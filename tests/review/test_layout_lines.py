"""Lines and the review on every layout (issue 25): a line names the positions of its code's
layout (0 to 26 in diamonds, 0 to 29 in the valley, theatre and up-down), a review plays
it and judges every step, and a result keeps it. The win is found by the whole-deal
analysis and checked by playing it on the engine; the review's turning point by the plain
search of tests/solver/test_layout_analysis.py, written from the layouts' tables."""

from __future__ import annotations

import random

import pytest

from app.engine import Game, GameCode, Rules, Status, Variants
from app.engine.layout import LAYOUTS, MOST_POSITIONS, Layout
from app.engine.line import Line, LineError, LineProblem
from app.engine.search.analysis import analyse
from app.engine.search.review import review
from app.store.memory import MemoryStore
from tests.support.layout_tables import plain


def a_win(layout: Layout, rules: Rules = Rules.EASY) -> tuple[GameCode, Line]:
    """The first winnable deal of the layout and a winning line of it."""
    for number in range(50):
        code = GameCode(rules, number, Variants(), layout)
        analysis = analyse(code)
        found = analysis.winning_line(0, 0, analysis.waste_after[0])
        if found is not None:
            return code, Line(tuple(found))
    raise AssertionError(f"no winnable deal among the first 50 of {layout.word}")


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_a_winning_line_of_every_layout_reads_back_and_wins(word: str) -> None:
    layout = LAYOUTS[word]
    code, line = a_win(layout)
    text = line.text()
    removals = sorted(int(token) for token in text.split(".") if token != "d")
    assert removals == list(range(layout.count))  # every position once, 28 and 29 too
    for parsed in (Line.parse(text), Line.parse(text, layout.count)):
        assert parsed == line
        games = parsed.games(code)
        assert games[-1].status is Status.WON and games[-1].removed_mask == layout.all_mask


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_a_position_beyond_the_layout_is_a_bad_token_naming_its_range(word: str) -> None:
    layout = LAYOUTS[word]
    code = GameCode(Rules.EASY, 0, Variants(), layout)
    beyond = f"d.{layout.count}"
    with pytest.raises(LineError) as caught:
        Line.parse(beyond, layout.count)
    error = caught.value
    assert (error.problem, error.token, error.index) == (LineProblem.UNKNOWN_TOKEN, str(layout.count), 1)
    assert f"0 to {layout.count - 1}" in str(error) and error.positions == layout.count
    if layout.count < MOST_POSITIONS:  # read for any layout, refused when played on this one
        with pytest.raises(LineError) as played:
            Line.parse(beyond).games(code)
        assert (played.value.problem, played.value.index) == (LineProblem.UNKNOWN_TOKEN, 1)
        assert f"0 to {layout.count - 1}" in str(played.value)
    with pytest.raises(LineError):
        Line.parse(f"d.{MOST_POSITIONS}")  # beyond every layout


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_the_review_judges_every_step_of_a_thrown_game_on_every_layout(word: str) -> None:
    layout, rng = LAYOUTS[word], random.Random(word)
    code, win = a_win(layout, Rules.CLASSIC)
    won = review(code, win)
    assert won.won and won.point_of_no_return is None
    assert won.par == analyse(code).start().best_score == won.steps[0].best_score
    assert won.final.game.score <= won.par
    # A random game from the same deal until it ends: most are lost under classic rules.
    thrown = None
    for _ in range(40):
        game = Game(code)
        while game.status is Status.PLAYING:
            moves = game.playable_positions() + ([-1] if game.can_draw() else [])
            game.replay([rng.choice(moves)])
        if game.status is Status.BLOCKED:
            thrown = Line.of(game)
            break
    assert thrown is not None
    found = review(code, Line.parse(thrown.text(), layout.count))
    assert len(found.steps) == len(thrown) + 1 and not found.won
    analysis = analyse(code)
    for step in found.steps:
        assert step.winnable is analysis.of(step.game).winnable
        assert step.best_score == analysis.of(step.game).best_score
    point = found.point_of_no_return
    assert point is not None  # the deal was winnable at the start and the game is lost
    before, after = found.steps[point.step - 1].game, found.steps[point.step].game
    for game, expected in ((before, True), (after, False)):
        if game.cards_left() <= layout.count // 2 + 4:  # the plain search is quick late in a game
            position = (game.removed_mask, game.drawn, game.waste.rank)
            assert plain(code, *position)[0] is expected
    assert point.instead is not None
    kept = before.copy()
    kept.play(point.instead)
    assert analysis.of(kept).winnable


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_a_result_keeps_the_line_of_a_game_on_every_layout(word: str) -> None:
    layout = LAYOUTS[word]
    code, win = a_win(layout, Rules.CLASSIC)
    ended = win.games(code)[-1]
    store = MemoryStore()
    saved = store.save(store.create(Game(code), "p1"), ended)
    result = store.result(saved.id)
    assert result is not None and result.line == win.text() and result.won
    kept = GameCode.parse(result.code)
    assert kept == code and kept.layout == layout
    again = Line.parse(result.line).games(kept)[-1]
    assert again.status is Status.WON and again.removed_mask == layout.all_mask
    assert again.score == result.score == ended.score
    record = store.deal_record(code)  # the deal's record is kept per code, so per layout
    assert record is not None and record.wins == 1 and record.best_score == ended.score
    assert store.deal_record(GameCode(Rules.CLASSIC, code.number)) is None or layout.letter == ""
