"""state_of / game_from_state: identical games back, forged states refused."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.engine import DRAW, Game, StateError
from app.engine.state import game_from_state, state_of
from app.engine.words import describe_board
from tests.support.games import new_game, snapshot, winning_line

DEAL_1 = "TP1-E-AAAAAAB"


def games() -> list[Game]:
    line = winning_line(DEAL_1, 23)
    undone = new_game(DEAL_1, line[:10])
    for _ in range(4):
        undone.undo()
    return [
        Game.from_code(DEAL_1),
        Game.from_code("TP1-C-ZZZZZZZ"),
        new_game(DEAL_1, line[:30]),
        new_game(DEAL_1, line[:-1]),
        new_game(DEAL_1, line),  # won
        new_game("TP1-E-AAAAAAA", [DRAW] * 23),  # blocked
        undone,
    ]


@pytest.mark.parametrize("game", games(), ids=repr)
def test_round_trip(game: Game) -> None:
    data = state_of(game)
    assert json.loads(json.dumps(data)) == data
    back = game_from_state(json.loads(json.dumps(data)))
    assert back == game
    assert hash(back) == hash(game)
    assert snapshot(back) == snapshot(game)
    assert back.status is game.status
    assert back.peaks_cleared == game.peaks_cleared
    assert [back.refusal_for_remove(p) for p in range(28)] == [game.refusal_for_remove(p) for p in range(28)]
    assert back.refusal_for_draw() == game.refusal_for_draw()
    assert back.refusal_for_undo() == game.refusal_for_undo()


def test_to_dict_shape() -> None:
    game = new_game("tp1-n-aaaaaab", [21, DRAW])
    game.undo()
    game.draw()
    assert state_of(game) == {"code": "TP1-E-AAAAAAB", "line": [21, -1], "moves": 3, "undo": 2}


def test_round_trip_then_play_on_alike() -> None:
    game = new_game(DEAL_1, [21, 19, DRAW])
    back = game_from_state(state_of(game))
    for g in (game, back):
        g.undo()
        g.remove(18)
    assert back == game and describe_board(back) == describe_board(game)


def valid() -> dict[str, Any]:
    return {"code": DEAL_1, "line": [21, 19, -1], "moves": 5, "undo": 3}


def forged(**changes: Any) -> dict[str, Any]:
    data = valid()
    data.update(changes)
    return data


def without(key: str) -> dict[str, Any]:
    data = valid()
    del data[key]
    return data


BAD_STATES = {
    "blocked card in line": forged(line=[0]),
    "rank mismatch in line": forged(line=[18]),
    "removed twice": forged(line=[21, 21]),
    "24 draws": forged(line=[DRAW] * 24, moves=24, undo=24),
    "move after the win": forged(line=[*winning_line(DEAL_1), DRAW], moves=60, undo=51),
    "position 28": forged(line=[28]),
    "position -2": forged(line=[-2]),
    "moves below the line": forged(moves=2),
    "negative moves": forged(moves=-1, line=[], undo=0),
    "undo above the line": forged(undo=4),
    "negative undo": forged(undo=-1),
    "moves as text": forged(moves="5"),
    "undo as float": forged(undo=3.0),
    "moves as bool": forged(line=[], moves=True, undo=0),
    "line as tuple": forged(line=(21, 19, -1)),
    "line as text": forged(line="21,19,-1"),
    "line with text": forged(line=["21"]),
    "line with float": forged(line=[21.0]),
    "line with bool": forged(line=[True], moves=1, undo=1),
    "line with None": forged(line=[None]),
    "bad code": forged(code="TP9-E-AAAAAAB"),
    "code as number": forged(code=1),
    "code missing": without("code"),
    "line missing": without("line"),
    "moves missing": without("moves"),
    "undo missing": without("undo"),
}


@pytest.mark.parametrize("data", BAD_STATES.values(), ids=BAD_STATES.keys())
def test_forged_states_are_refused(data: dict[str, Any]) -> None:
    with pytest.raises(StateError):
        game_from_state(data)


@pytest.mark.parametrize("data", [None, [], "TP1-E-AAAAAAB", 5, b"{}", {}])
def test_non_states_are_refused(data: Any) -> None:
    with pytest.raises(StateError):
        game_from_state(data)


def test_valid_forms_are_accepted() -> None:
    assert state_of(game_from_state(valid())) == valid()
    legacy = game_from_state(forged(code="tp1-n-aaaaaab"))
    assert legacy.code_text() == DEAL_1
    assert issubclass(StateError, ValueError)


def test_hints_are_counted_kept_and_change_nothing_on_the_board() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    game.draw()
    before = describe_board(game)
    game.count_hint()
    game.count_hint()
    assert game.hints == 2 and describe_board(game) == before and game.moves == 1
    again = game_from_state(state_of(game))
    assert again == game and again.hints == 2
    assert "hints" not in state_of(Game.from_code("TP1-E-AAAAAAB"))  # old states stay as they were
    for bad in (-1, "2", 1.5):
        with pytest.raises(StateError):
            game_from_state({**state_of(game), "hints": bad})
