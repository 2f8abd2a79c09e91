"""Properties over random action sequences (Hypothesis)."""

from __future__ import annotations

import contextlib
from collections import Counter

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from app.engine import DEAL_COUNT, DECK, DRAW, Card, Game, GameCode, RefusedAction, Rules
from app.engine.state import game_from_state, state_of
from tests.support.games import snapshot

UNDO = -2

codes = st.builds(
    GameCode,
    st.sampled_from(list(Rules)),
    st.one_of(st.integers(0, 50), st.integers(0, DEAL_COUNT - 1)),
)

# An action is ("legal", i): the i-th playable position (or a draw when none);
# ("any", p): remove position p, legal or not; "draw"; or "undo".
KINDS = ["legal"] * 5 + ["any", "draw", "draw", "undo"]
"""Legal removals are the likeliest, so that games get somewhere (won or blocked)."""

steps = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 27)), max_size=150)


@st.composite
def long_steps(draw: st.DrawFn) -> list[tuple[str, int]]:
    """Long plans (up to a few hundred actions) made by a seeded generator Hypothesis picks."""
    rnd = draw(st.randoms(use_true_random=False))
    return [(rnd.choice(KINDS), rnd.randrange(28)) for _ in range(draw(st.integers(0, 300)))]


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def choose(game: Game, kind: str, index: int) -> int:
    if kind == "legal":
        playable = game.playable_positions()
        return playable[index % len(playable)] if playable else DRAW
    if kind == "any":
        return index
    return DRAW if kind == "draw" else UNDO


def act(game: Game, action: int) -> None:
    if action == UNDO:
        game.undo()
    elif action == DRAW:
        game.draw()
    else:
        game.remove(action)


def cards_everywhere(game: Game) -> list[Card]:
    """Board + waste + stock + the cards under the waste, worked out from the line."""
    deal = game.deal
    board = [deal.tableau[p] for p in range(28) if not game.is_removed(p)]
    stock = list(deal.stock[game.drawn :])
    put_on_waste = [deal.waste]
    drawn = 0
    for action in game.line:
        if action.position is None:
            put_on_waste.append(deal.stock[drawn])
            drawn += 1
        else:
            put_on_waste.append(deal.tableau[action.position])
    assert drawn == game.drawn
    assert put_on_waste[-1] == game.waste
    return board + stock + put_on_waste


@SETTINGS
@given(codes, st.one_of(steps, long_steps()))
def test_random_play_keeps_every_invariant(code: GameCode, plan: list[tuple[str, int]]) -> None:
    game = Game(code)
    score_before: list[int] = []  # score_before[i]: the score before the line's i-th action
    for kind, index in plan:
        action = choose(game, kind, index)
        before = snapshot(game)
        before_moves = game.moves
        mirror = game.copy()
        try:
            act(game, action)
        except RefusedAction:
            # A refused action changes nothing.
            assert snapshot(game) == before
            assert game == mirror
            continue
        # The move counter never goes down; removals and draws count one.
        assert game.moves == before_moves + (action != UNDO)
        # The score, move by move (SPEC 6): -1 for a removal or draw, +100 more for each peak it
        # empties; an undo gives back exactly the score before that action.
        emptied = sum(game.peaks_cleared) - sum(mirror.peaks_cleared)
        if action == UNDO:
            assert game.score == score_before[len(game.line)]
        else:
            assert game.score == mirror.score - 1 + 100 * emptied and emptied >= 0
            score_before[len(game.line) - 1 :] = [mirror.score]
        # The 52 cards are all there, each exactly once.
        cards = cards_everywhere(game)
        assert Counter(cards) == Counter(DECK)
        # Serialising gives back an identical game.
        back = game_from_state(state_of(game))
        assert back == game and snapshot(back) == snapshot(game)
        # Undo after any accepted removal or draw restores the identical state.
        if action != UNDO and not game.is_over:
            undone = game.copy()
            undone.undo()
            assert snapshot(undone, with_moves=False) == snapshot(mirror, with_moves=False)
            assert undone.moves == game.moves
    event(f"ended {game.status.value}")


@SETTINGS
@given(codes, steps)
def test_refusals_are_predicted_and_change_nothing(code: GameCode, plan: list[tuple[str, int]]) -> None:
    game = Game(code)
    for kind, index in plan:
        action = choose(game, kind, index)
        if action == UNDO:
            expected = game.refusal_for_undo()
        elif action == DRAW:
            expected = game.refusal_for_draw()
        else:
            expected = game.refusal_for_remove(action)
        before = snapshot(game)
        try:
            act(game, action)
        except RefusedAction as refused:
            assert refused.refusal is expected
            assert snapshot(game) == before
        else:
            assert expected is None


@SETTINGS
@given(codes, st.one_of(steps, long_steps()))
def test_status_and_score_follow_the_line(code: GameCode, plan: list[tuple[str, int]]) -> None:
    game = Game(code)
    moves = []
    for kind, index in plan:
        with contextlib.suppress(RefusedAction):
            act(game, choose(game, kind, index))
        moves.append(game.moves)
        removed = sum(1 for a in game.line if a.position is not None)
        assert game.cards_left() == 28 - removed
        assert game.stock_count == 23 - (len(game.line) - removed)
        assert game.score == 500 - len(game.line) + 100 * sum(game.peaks_cleared)
        assert 0 <= game.undo_available <= len(game.line) <= game.moves
        won = game.cards_left() == 0
        blocked = not won and game.stock_count == 0 and not game.playable_positions()
        assert game.is_over is won
        assert game.status.value == ("won" if won else "blocked" if blocked else "playing")
        for p in game.playable_positions():
            assert game.refusal_for_remove(p) is None
    assert moves == sorted(moves)


@settings(max_examples=300, deadline=None)
@given(codes)
def test_code_text_round_trip(code: GameCode) -> None:
    assert GameCode.parse(code.text()) == code
    assert GameCode.parse(f"  {code.text().lower()} ") == code
    assert GameCode.parse(f"https://example.org/g/{code.text()}?s=1") == code


@settings(max_examples=300, deadline=None)
@given(st.integers(0, DEAL_COUNT - 1))
def test_every_deal_is_a_permutation(number: int) -> None:
    deal = GameCode(Rules.EASY, number).deal()
    assert Counter([*deal.tableau, deal.waste, *deal.stock]) == Counter(DECK)
