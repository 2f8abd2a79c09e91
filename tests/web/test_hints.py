"""Hints, winnable deals and what a deal allowed, on the game page (the solver behind them)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.engine import DRAW, Game, GameCode, Rules
from app.engine.solver import solve
from app.store import MemoryStore
from tests.support import blocked_by_drawing
from tests.web.conftest import HX, game_id_of, text_of

CODE = "TP1-E-AAAAAAB"


def test_a_hint_marks_a_move_on_a_winning_line_and_is_counted(client: TestClient, store: MemoryStore) -> None:
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    response = client.post(f"/games/{game_id}/hint", headers=HX)
    assert response.status_code == 200
    hinted = re.findall(r'class="card face [^"]*hinted[^"]*" id="card-(\d+)"', response.text)
    stock_hinted = 'class="pile stock hinted"' in response.text
    assert len(hinted) + stock_hinted == 1
    game = Game.from_code(CODE)
    if hinted:
        position = int(hinted[0])
        assert text_of(response.text, "status") == f"Hint: play the {game.deal.tableau[position].words()}."
        game.remove(position)
    else:
        assert text_of(response.text, "status") == "Hint: draw from the stock."
        game.draw()
    assert solve(game).winnable  # the hinted move keeps a win in reach
    assert text_of(response.text, "hints") == "1"
    stored = store.get(game_id)
    assert stored is not None and stored.game.hints == 1 and stored.game.moves == 0


def test_following_hints_wins_the_game(client: TestClient) -> None:
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    for _ in range(60):
        response = client.post(f"/games/{game_id}/hint", headers=HX)
        if "You won!" in response.text:
            break
        hinted = re.findall(r'class="card face [^"]*hinted[^"]*" id="card-(\d+)"', response.text)
        if hinted:
            response = client.post(f"/games/{game_id}/remove", data={"position": hinted[0]}, headers=HX)
        else:
            response = client.post(f"/games/{game_id}/draw", headers=HX)
        assert response.status_code == 200
        if "You won!" in response.text:
            break
    page = client.get(f"/g/{CODE}").text
    assert "You won!" in page
    assert re.search(r"With \d+ hints\.", page)
    best = solve(Game.from_code(CODE), best=True).score
    assert f"The best possible score on this deal is {best}." in page


def test_no_winning_line_says_how_many_undos(client: TestClient) -> None:
    code = blocked_by_drawing()
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for _ in range(23):
        client.post(f"/games/{game_id}/draw", headers=HX)
    response = client.post(f"/games/{game_id}/hint", headers=HX)
    status = text_of(response.text, "status")
    if solve(Game(code)).winnable:
        assert re.fullmatch(r"No winning line from here: undo \d+ moves? to get back to one\.", status)
        undos = int(re.search(r"undo (\d+)", status).group(1))  # type: ignore[union-attr]
        game = Game(code)
        game.replay([DRAW] * (23 - undos))
        assert solve(game).winnable
        later = Game(code)
        later.replay([DRAW] * (23 - undos + 1))
        assert not solve(later).winnable
    else:
        assert status == "No one could win this deal."
    blocked_page = client.get(f"/g/{code.text()}").text
    assert 'id="outlook"' in blocked_page


def test_a_deal_no_one_can_win_says_so() -> None:
    lost = next(
        GameCode(Rules.CLASSIC, n) for n in range(1, 400) if not solve(Game(GameCode(Rules.CLASSIC, n))).winnable
    )
    from app.web.solving import deal_outlook

    assert deal_outlook(lost).winnable is False and deal_outlook(lost).best_score is None


def test_winnable_deals_only(client: TestClient) -> None:
    for _ in range(8):
        response = client.post("/new", data={"rules": "classic", "winnable_only": "true"}, headers=HX)
        code = response.headers["hx-push-url"].rsplit("/", 1)[1]
        assert code.startswith("TP1-C-")
        assert solve(Game.from_code(code)).winnable


def test_hint_after_a_win_is_refused(client: TestClient) -> None:
    from tests.support import won_deal

    code, line = won_deal(Rules.EASY)
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for action in line:
        if action == DRAW:
            client.post(f"/games/{game_id}/draw", headers=HX)
        else:
            client.post(f"/games/{game_id}/remove", data={"position": action}, headers=HX)
    response = client.post(f"/games/{game_id}/hint", headers=HX)
    assert response.status_code == 409 and text_of(response.text, "status") == "The game is over"


def test_ending_a_game_leaves_the_outlook_to_its_own_request(client: TestClient) -> None:
    code = blocked_by_drawing()
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    assert client.get(f"/games/{game_id}/outlook").status_code == 409  # not over yet
    for _ in range(23):
        response = client.post(f"/games/{game_id}/draw", headers=HX)
    assert f'hx-get="/games/{game_id}/outlook" hx-trigger="load"' in response.text
    outlook = client.get(f"/games/{game_id}/outlook", headers=HX)
    assert outlook.status_code == 200 and outlook.text.lstrip().startswith('<p id="outlook"')
    expected = "This deal could be won" if solve(Game(code)).winnable else "No one could win this deal."
    assert expected in outlook.text
    assert "hx-trigger" not in outlook.text
