"""Hints, winnable deals and what a deal allowed, on the game page.

The oracle is the suite's plain exhaustive search (tests/support/reference.py, through
tests/support/deals.py), never the app's solver; the positions are chosen here in advance, and the
reference checks each one is what the test needs before the page is asked about it.
"""

from __future__ import annotations

import re
import time
from functools import cache

from fastapi.testclient import TestClient

from app.engine import DRAW, Game, GameCode, Rules, Status
from app.store import MemoryStore
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.deals import after_draws, best_scores, can_win, won_deal
from tests.support.pages import HX, game_id_of, text_of

CODE = "TP1-E-AAAAAAB"
WINNABLE_BLOCKED_BY_DRAWING = GameCode.parse("TP1-E-AAAAAAH")
"""A deal some line wins, blocked after drawing all 23 stock cards without removing any."""
LOST_BLOCKED_BY_DRAWING = GameCode.parse("TP1-C-AAAAAAP")
"""A deal no line wins, blocked after drawing all 23 stock cards."""
HINTED = re.compile(r'class="card face [^"]*hinted[^"]*" id="card-(\d+)"')


def blocked_by_drawing(client: TestClient, code: GameCode) -> tuple[str, str]:
    """A game of ``code`` with all 23 cards drawn (blocked, checked here): its id and last page."""
    assert after_draws(code, 23).status is Status.BLOCKED
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for _ in range(23):
        response = client.post(f"/games/{game_id}/draw", headers=HX)
        assert response.status_code == 200
    return game_id, response.text


def test_a_hint_marks_a_move_on_a_winning_line_and_is_counted(client: TestClient, store: MemoryStore) -> None:
    game = Game.from_code(CODE)
    assert can_win(game)
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    response = client.post(f"/games/{game_id}/hint", headers=HX)
    assert response.status_code == 200
    hinted = HINTED.findall(response.text)
    stock_hinted = 'class="pile stock hinted"' in response.text
    assert len(hinted) + stock_hinted == 1
    if hinted:  # which one the page chose: either must keep a win in reach
        position = int(hinted[0])
        assert text_of(response.text, "status") == f"Hint: play the {game.deal.tableau[position].words()}."
        game.remove(position)  # a legal move (the engine refuses any other)
    else:
        assert text_of(response.text, "status") == "Hint: draw from the stock."
        game.draw()
    assert can_win(game)  # the hinted move keeps a win in reach
    assert text_of(response.text, "hints") == "1"
    stored = store.get(game_id)
    assert stored is not None and stored.game.hints == 1 and stored.game.moves == 0


def test_the_hint_is_the_one_move_that_keeps_a_win(client: TestClient) -> None:
    """One move short of being lost: drawing again loses, and only a removal still wins."""
    code = WINNABLE_BLOCKED_BY_DRAWING
    undos = undos_to_a_win(code)
    game = after_draws(code, 23 - undos)  # the last position of the line that can still win
    keeps = [p for p in game.playable_positions() if can_win(after(game, p))]
    assert not can_win(after(game, DRAW)) and len(keeps) == 1
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for _ in range(23 - undos):
        client.post(f"/games/{game_id}/draw", headers=HX)
    response = client.post(f"/games/{game_id}/hint", headers=HX)
    assert HINTED.findall(response.text) == [str(keeps[0])]
    assert 'class="pile stock hinted"' not in response.text


def after(game: Game, action: int) -> Game:
    later = game.copy()
    later.replay([action])
    return later


@cache
def undos_to_a_win(code: GameCode) -> int:
    """After all 23 cards are drawn: the fewest draws to undo to get back to a winnable position.

    The positions along a line that can still win are a prefix of it (a position that can
    reach a winnable one is winnable), so the reference checks the two sides of the edge."""
    return next(u for u in range(1, 24) if can_win(after_draws(code, 23 - u)))


def test_following_hints_wins_the_game(client: TestClient) -> None:
    best, _ = best_scores(GameCode.parse(CODE))
    assert best is not None
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    for _ in range(60):
        response = client.post(f"/games/{game_id}/hint", headers=HX)
        if "You won!" in response.text:
            break
        hinted = HINTED.findall(response.text)
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
    assert f"The best possible score on this deal is {best}." in page


def test_no_winning_line_says_how_many_undos(client: TestClient) -> None:
    code = WINNABLE_BLOCKED_BY_DRAWING
    undos = undos_to_a_win(code)
    assert undos > 1 and not can_win(after_draws(code, 23 - undos + 1))
    game_id, _ = blocked_by_drawing(client, code)
    response = client.post(f"/games/{game_id}/hint", headers=HX)
    assert text_of(response.text, "status") == f"No winning line from here: undo {undos} moves to get back to one."
    assert 'id="outlook"' in client.get(f"/g/{code.text()}").text


def test_a_deal_no_one_can_win_says_so(client: TestClient) -> None:
    code = LOST_BLOCKED_BY_DRAWING
    assert not can_win(Game(code))
    game_id, _ = blocked_by_drawing(client, code)
    response = client.post(f"/games/{game_id}/hint", headers=HX)
    assert text_of(response.text, "status") == "No one could win this deal."
    outlook = client.get(f"/games/{game_id}/outlook", headers=HX)
    assert outlook.status_code == 200 and "No one could win this deal." in outlook.text


def test_once_no_win_is_left_the_hints_lead_to_the_best_score_still_possible(client: TestClient) -> None:
    code = LOST_BLOCKED_BY_DRAWING
    _, highest = best_scores(code)
    game = Game(code)
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for _ in range(80):
        response = client.post(f"/games/{game_id}/hint", headers=HX)
        status = text_of(response.text, "status")
        assert status.startswith("No one could win this deal.")
        hinted = HINTED.findall(response.text)
        if hinted:
            card = game.deal.tableau[int(hinted[0])].words()
            assert status.endswith(f" For the best score still possible, play the {card}.")
            client.post(f"/games/{game_id}/remove", data={"position": hinted[0]}, headers=HX)
            game.remove(int(hinted[0]))
        elif 'class="pile stock hinted"' in response.text:
            assert status.endswith(" For the best score still possible, draw from the stock.")
            client.post(f"/games/{game_id}/draw", headers=HX)
            game.draw()
        else:
            assert status == "No one could win this deal."
            break
    assert game.score == highest > 0
    assert text_of(client.get(f"/g/{code.text()}").text, "score") == str(highest)


def test_undo_words_and_the_move_towards_the_best_score_in_each_language(client: TestClient) -> None:
    from tests.support.catalogs import po, po_plural

    code = WINNABLE_BLOCKED_BY_DRAWING
    undos = undos_to_a_win(code)
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for _ in range(23 - undos + 1):  # one draw past the last position that could win
        client.post(f"/games/{game_id}/draw", headers=HX)
    game = after_draws(code, 23 - undos + 1)
    assert not can_win(game) and game.status is Status.PLAYING
    for lang in ("en", "he", "uk", "th"):
        client.cookies.set("tp_lang", lang)
        response = client.post(f"/games/{game_id}/hint", headers=HX)
        status = text_of(response.text, "status")
        undo_words = po_plural(lang, "No winning line from here: undo %(count)s move to get back to one.", 1)
        assert status.startswith(undo_words % {"count": 1}), (lang, status)
        hinted = HINTED.findall(response.text)
        assert hinted or 'class="pile stock hinted"' in response.text, "a move towards the best score is marked"
        if hinted:
            best_words = po(lang, "For the best score still possible, play the %(card)s.").split("%(card)s")[0]
        else:
            best_words = po(lang, "For the best score still possible, draw from the stock.")
        assert best_words.strip() in status, (lang, status)
    client.cookies.set("tp_lang", "en")


def test_winnable_deals_only(client: TestClient) -> None:
    for _ in range(5):
        response = client.post("/new", data={"rules": "classic", "winnable_only": "true"}, headers=HX)
        code = response.headers["hx-push-url"].rsplit("/", 1)[1]
        assert code.startswith("TP1-C-")
        assert can_win(Game.from_code(code))


def playouts_won(code: GameCode, playouts: int = 200) -> float:
    """The difficulty's measure (docs/solvability.md) played with real games: the share of
    200 playouts seeded by the deal (the player removes a random playable card, else draws)."""
    from app.engine.search.review import _splitmix

    numbers = _splitmix(code.number * 2 + (code.rules is Rules.CLASSIC))
    won = 0
    for _ in range(playouts):
        game = Game(code)
        while not game.is_over and (game.playable_positions() or game.can_draw()):
            playable = game.playable_positions()
            if playable:
                game.remove(playable[next(numbers) % len(playable)])
            else:
                game.draw()
        won += game.is_over
    return won / playouts


def test_winnable_deals_only_of_a_difficulty(client: TestClient) -> None:
    page = client.get("/new").text
    assert '<select name="difficulty" id="difficulty">' in page
    assert '<option value="expert">Expert</option>' in page
    for rules, word, share_ok in (
        ("easy", "expert", lambda share: share < 0.05),  # winnable, but 1 playout in 20 or fewer wins
        ("classic", "easy", lambda share: share >= 0.5),
        ("easy", "medium", lambda share: 0.2 <= share < 0.5),
    ):
        data = {"rules": rules, "winnable_only": "true", "difficulty": word}
        response = client.post("/new", data=data, headers=HX)
        assert response.status_code == 200
        code = GameCode.parse(response.headers["hx-push-url"].rsplit("/", 1)[1])
        assert code.rules is Rules.from_word(rules)
        assert can_win(Game(code)), code.text()
        assert share_ok(playouts_won(code)), (code.text(), word)


def test_a_difficulty_that_is_no_rating_is_refused(client: TestClient) -> None:
    response = client.post("/new", data={"winnable_only": "true", "difficulty": "impossible"}, headers=HX)
    assert 400 <= response.status_code < 500


def test_hint_after_a_win_is_refused(client: TestClient) -> None:
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
    code = WINNABLE_BLOCKED_BY_DRAWING
    best, _ = best_scores(code)
    assert best is not None
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    assert client.get(f"/games/{game_id}/outlook").status_code == 409  # not over yet
    for _ in range(23):
        response = client.post(f"/games/{game_id}/draw", headers=HX)
    assert f'hx-get="/games/{game_id}/outlook" hx-trigger="load"' in response.text
    outlook = client.get(f"/games/{game_id}/outlook", headers=HX)
    assert outlook.status_code == 200 and outlook.text.lstrip().startswith('<p id="outlook"')
    assert f"This deal could be won: the best possible score is {best}." in outlook.text
    assert "hx-trigger" not in outlook.text


def test_a_hint_s_solver_time_is_in_the_metrics(app_settings: Settings, store: MemoryStore) -> None:
    from tests.support.apps import sample

    code = GameCode(Rules.CLASSIC, 4_321_987)  # a deal no other test analyses: the worker makes it
    settings = app_settings.model_copy(update={"metrics": True})
    with TestClient(create_app(settings, store=store)) as client:
        before = client.get("/metrics").text
        game_id = game_id_of(client.get(f"/g/{code.text()}").text)
        assert client.post(f"/games/{game_id}/hint", headers=HX).status_code == 200
        after = client.get("/metrics").text
        for _ in range(50):  # the worker's time is reported as its job is done, maybe just after
            if sample(after, "tripeaks_solver_seconds_count", kind="analysis") > sample(
                before, "tripeaks_solver_seconds_count", kind="analysis"
            ):
                break
            time.sleep(0.1)
            after = client.get("/metrics").text

    def grew(name: str, kind: str) -> float:
        return sample(after, name, kind=kind) - sample(before, name, kind=kind)

    assert grew("tripeaks_solver_seconds_count", "hint") == 1
    assert grew("tripeaks_solver_seconds_sum", "hint") > 0
    assert grew("tripeaks_solver_seconds_count", "analysis") == 1  # the worker's CPU time, reported back
    assert grew("tripeaks_solver_seconds_sum", "analysis") > 0
