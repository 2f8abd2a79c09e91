"""The game page and its htmx actions, over the ASGI app (TestClient)."""

from __future__ import annotations

import datetime as dt
import re

from fastapi.testclient import TestClient

from app.engine import DRAW, Game, Rules
from app.store import MemoryStore
from tests.support.deals import blocked_by_drawing, won_deal
from tests.support.pages import HX, game_id_of, open_deal, text_of

CODE = "TP1-E-AAAAAAB"


def test_home_deals_a_game_and_sets_a_safe_player_cookie(client: TestClient) -> None:
    response = client.get("/", follow_redirects=False)
    assert response.status_code == 303
    assert re.fullmatch(r"/g/TP1-E-[A-Z]{7}", response.headers["location"])
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("tp_player=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    page = client.get(response.headers["location"])
    assert page.status_code == 200 and page.text.startswith("<!doctype html>")
    # The same player gets the same game back.
    again = client.get("/", follow_redirects=False)
    assert again.headers["location"] == response.headers["location"]
    assert "set-cookie" not in again.headers


def test_full_page_has_the_test_hooks_and_hides_face_down_cards(client: TestClient) -> None:
    _, html = open_deal(client)
    for hook in ('id="stock"', 'id="waste"', 'id="undo"', 'id="score"', 'id="moves"', 'id="status"'):
        assert hook in html
    for p in range(28):
        assert f'data-position="{p}"' in html
    game = Game.from_code(CODE)
    for p in range(28):
        card = game.deal.tableau[p]
        shown = f'aria-label="{card.words()}"' in html
        assert shown == game.is_exposed(p), p
    for card in game.deal.stock:  # the stock is face down too
        assert card.words() not in html
    assert 'aria-live="polite"' in html
    # The 18 face-down cards are not 18 buttons named "hidden card" to a screen reader.
    assert html.count('class="card back') == 18
    assert 'aria-label="hidden card"' not in html
    assert len(re.findall(r'class="card back[^>]*aria-hidden="true"', html)) == 18
    assert "Stock: 23 cards; waste: " in html  # the board in words


def test_lenient_code_in_the_link_redirects_to_the_canonical_one(client: TestClient) -> None:
    response = client.get("/g/tp1-n-aaaaaab", follow_redirects=False)
    assert response.status_code == 308
    assert response.headers["location"] == "/g/TP1-E-AAAAAAB"


def test_a_bad_code_in_the_link_is_a_clear_400(client: TestClient) -> None:
    before = client.get("/", follow_redirects=False).headers["location"]
    response = client.get("/g/TP1-X-HELLO")
    assert response.status_code == 400
    assert "&#39;TP1-X-HELLO&#39; is not a game code" in response.text
    assert "TP1-E-AAAAAAB" in response.text  # the expected form
    assert client.get("/", follow_redirects=False).headers["location"] == before


def test_htmx_action_gets_fragments_and_plain_post_gets_a_redirect(client: TestClient) -> None:
    game_id, _ = open_deal(client)
    response = client.post(f"/games/{game_id}/draw", headers=HX)
    assert response.status_code == 200
    assert response.headers["vary"] == "HX-Request, Accept-Language, Cookie"  # the language comes from both
    html = response.text
    assert "<html" not in html
    assert html.lstrip().startswith('<section id="table"')
    for oob in ("score", "moves", "undo", "status", "words-text"):
        assert re.search(rf'id="{oob}"[^>]*hx-swap-oob="true"', html), oob
    assert text_of(html, "score") == "499" and text_of(html, "moves") == "1"
    assert len(html.encode()) < 8192
    plain = client.post(f"/games/{game_id}/draw", follow_redirects=False)
    assert plain.status_code == 303 and plain.headers["location"] == f"/g/{CODE}"
    page = client.get(f"/g/{CODE}")
    assert text_of(page.text, "moves") == "2"  # a reload shows the same game


def test_remove_turns_cards_and_updates_score(client: TestClient, store: MemoryStore) -> None:
    game_id, _ = open_deal(client)
    game = Game.from_code(CODE)
    position = game.playable_positions()[0]
    response = client.post(f"/games/{game_id}/remove", data={"position": position}, headers=HX)
    assert response.status_code == 200
    assert f'id="card-{position}" data-position="{position}"' in response.text
    assert "to the waste." in text_of(response.text, "status")
    game.remove(position)
    assert text_of(response.text, "score") == str(game.score)
    stored = store.get(game_id)
    assert stored is not None and stored.game == game


def test_refusals_show_the_message_only_with_error_help(client: TestClient, store: MemoryStore) -> None:
    game_id, _ = open_deal(client)
    before = store.get(game_id)
    game = Game.from_code(CODE)
    wrong_rank = next(p for p in range(18, 28) if p not in game.playable_positions())
    blocked = client.post(f"/games/{game_id}/remove", data={"position": 0}, headers=HX)
    assert blocked.status_code == 409
    assert text_of(blocked.text, "status") == "This card is blocked"
    assert 'id="table"' not in blocked.text  # nothing else is swapped
    mismatch = client.post(f"/games/{game_id}/remove", data={"position": wrong_rank}, headers=HX)
    waste = game.waste
    assert waste is not None  # the refusal names it (issue 30)
    assert text_of(mismatch.text, "status") == f"Rank must be one higher or lower. Waste: {waste.words()}."
    # Turn error help off: the switch answers with itself and a remembered cookie.
    toggled = client.post("/settings/error-help", headers=HX)
    assert 'aria-pressed="false"' in toggled.text
    assert "tp_error_help=0" in toggled.headers["set-cookie"]
    quiet = client.post(f"/games/{game_id}/remove", data={"position": 0}, headers=HX)
    assert quiet.status_code == 409 and text_of(quiet.text, "status") == ""
    assert 'aria-pressed="false"' in client.get(f"/g/{CODE}").text
    after = store.get(game_id)
    assert before is not None and after is not None
    assert after.game == before.game and after.version == before.version


def test_undo_button_follows_what_can_be_undone(client: TestClient) -> None:
    game_id, html = open_deal(client)
    assert re.search(r'<button[^>]*id="undo"[^>]*disabled', html)
    drawn = client.post(f"/games/{game_id}/draw", headers=HX)
    assert not re.search(r'<button[^>]*id="undo"[^>]*disabled', drawn.text)
    undone = client.post(f"/games/{game_id}/undo", headers=HX)
    assert undone.status_code == 200
    assert re.search(r'<button[^>]*id="undo"[^>]*disabled', undone.text)
    assert text_of(undone.text, "moves") == "1" and text_of(undone.text, "score") == "500"
    refused = client.post(f"/games/{game_id}/undo", headers=HX)
    assert refused.status_code == 409 and text_of(refused.text, "status") == "Nothing to undo"


def test_out_of_range_or_garbage_positions_are_422_not_500(client: TestClient) -> None:
    game_id, _ = open_deal(client)
    for value in ("28", "-1", "99999999999999999999", "seven", ""):
        response = client.post(f"/games/{game_id}/remove", data={"position": value}, headers=HX)
        assert response.status_code == 422, value
    assert client.post(f"/games/{game_id}/remove", headers=HX).status_code == 422


def test_the_position_is_read_from_a_url_encoded_or_a_multipart_form(client: TestClient) -> None:
    """The remove reads its form by hand (app.web.deps.form_position): as browsers send it
    (URL-encoded), as a multipart form, with spaces around the number; not given twice."""
    game_id, _ = open_deal(client)
    game = Game.from_code(CODE)
    first = game.playable_positions()[0]
    spaced = client.post(f"/games/{game_id}/remove", data={"position": f" {first} "}, headers=HX)
    assert spaced.status_code == 200 and f'data-position="{first}"' in spaced.text
    game.remove(first)
    second = game.playable_positions()[0]
    body = (
        f'--b\r\nContent-Disposition: form-data; name="position"\r\n\r\n{second}\r\n--b--\r\n'
    ).encode()
    multipart = client.post(
        f"/games/{game_id}/remove", content=body,
        headers={**HX, "content-type": "multipart/form-data; boundary=b"},
    )
    assert multipart.status_code == 200, multipart.text
    game.remove(second)
    twice = client.post(
        f"/games/{game_id}/remove", content=b"position=1&position=2",
        headers={**HX, "content-type": "application/x-www-form-urlencoded"},
    )
    assert twice.status_code == 422
    assert text_of(client.get(f"/g/{CODE}").text, "moves") == str(game.moves)  # nothing else moved


def test_openapi_documents_the_remove_form(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/games/{game_id}/remove"]["post"]
    form = operation["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]
    assert form["required"] == ["position"]
    assert form["properties"]["position"] == {
        "type": "integer", "minimum": 0, "maximum": 29,  # the most positions of a layout (valley)
        "description": "A tableau position: 0 to 27 (three peaks) or to 29",
    }
    assert [p["name"] for p in operation["parameters"]] == ["game_id"]


def test_games_of_others_and_unknown_ids_are_404(client: TestClient, other_client: TestClient) -> None:
    game_id, _ = open_deal(client)
    assert other_client.post(f"/games/{game_id}/draw", headers=HX).status_code == 404
    assert client.post("/games/not-a-game/draw", headers=HX).status_code == 404
    assert client.post("/games/" + "x" * 5000 + "/draw").status_code == 404
    page = client.get(f"/g/{CODE}")
    assert text_of(page.text, "moves") == "0"


def test_a_share_link_deals_a_fresh_game_for_whoever_opens_it(
    client: TestClient, other_client: TestClient
) -> None:
    game_id, _ = open_deal(client)
    client.post(f"/games/{game_id}/draw")
    other_id, other_html = open_deal(other_client)
    assert other_id != game_id
    assert text_of(other_html, "moves") == "0"
    assert text_of(client.get(f"/g/{CODE}").text, "moves") == "1"


def test_new_game_with_a_code_a_link_or_the_rules(client: TestClient) -> None:
    open_deal(client)
    response = client.post("/new", data={"code": " https://example.org/g/tp1-c-aaaaaba "}, headers=HX)
    assert response.status_code == 200
    assert response.headers["hx-push-url"] == "/g/TP1-C-AAAAABA"
    assert response.text.lstrip().startswith('<div id="game"')
    assert client.get("/", follow_redirects=False).headers["location"] == "/g/TP1-C-AAAAABA"
    plain = client.post("/new", data={"rules": "classic"}, follow_redirects=False)
    assert plain.status_code == 303 and plain.headers["location"].startswith("/g/TP1-C-")


def test_new_game_with_a_bad_code_keeps_the_current_game(client: TestClient) -> None:
    game_id, _ = open_deal(client)
    client.post(f"/games/{game_id}/draw")
    response = client.post("/new", data={"code": "TP1-E-AAAA"}, headers=HX)
    assert response.status_code == 400
    assert response.headers["hx-retarget"] == "#new-game-form"
    assert "&#39;TP1-E-AAAA&#39; is not a game code" in response.text
    assert 'value="TP1-E-AAAA"' in response.text
    plain = client.post("/new", data={"code": "<script>x</script>"})
    assert plain.status_code == 400 and "<script>x" not in plain.text
    assert client.get("/", follow_redirects=False).headers["location"] == f"/g/{CODE}"
    assert text_of(client.get(f"/g/{CODE}").text, "moves") == "1"


def test_restart_deals_the_same_code_again(client: TestClient) -> None:
    game_id, _ = open_deal(client)
    client.post(f"/games/{game_id}/draw")
    response = client.post(f"/games/{game_id}/restart", headers=HX)
    assert response.headers["hx-push-url"] == f"/g/{CODE}"
    assert game_id_of(response.text) != game_id
    assert text_of(response.text, "moves") == "0"
    assert text_of(client.get(f"/g/{CODE}").text, "moves") == "0"


def test_daily_deal_is_todays_code(client: TestClient) -> None:
    before = dt.datetime.now(dt.UTC).date()
    response = client.get("/daily", follow_redirects=False)
    after = dt.datetime.now(dt.UTC).date()  # the request may cross midnight (UTC)
    days = {f"/daily/{day.isoformat()}" for day in (before, after)}
    assert response.status_code == 303 and response.headers["location"] in days


def test_forged_truncated_or_garbled_cookies_start_fresh(client: TestClient) -> None:
    for value in (b"forged", b"eyJhIjoxfQ.bad", b"x" * 5000, b'"unbalanced', "ü".encode()):
        client.cookies.clear()
        response = client.get("/", headers={"Cookie": b"tp_player=" + value}, follow_redirects=False)
        assert response.status_code == 303, value
        assert "tp_player=" in response.headers.get("set-cookie", "")


def test_winning_by_clicks_shows_the_win_screen(client: TestClient) -> None:
    code, line = won_deal(Rules.EASY)
    game_id, _ = open_deal(client, code.text())
    response = None
    for action in line:
        if action == DRAW:
            response = client.post(f"/games/{game_id}/draw", headers=HX)
        else:
            response = client.post(f"/games/{game_id}/remove", data={"position": action}, headers=HX)
        assert response.status_code == 200
    assert response is not None
    assert "You won!" in response.text and "status-won" in response.text
    assert re.search(r'<button[^>]*id="undo"[^>]*disabled', response.text)
    page = client.get(f"/g/{code.text()}")
    assert "You won!" in page.text
    assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 409


def test_blocked_game_says_so_and_can_still_undo(client: TestClient) -> None:
    code = blocked_by_drawing()
    game_id, _ = open_deal(client, code.text())
    for _ in range(23):
        response = client.post(f"/games/{game_id}/draw", headers=HX)
    assert "No more possible moves" in text_of(response.text, "status")
    assert "status-blocked" in response.text
    assert client.post(f"/games/{game_id}/undo", headers=HX).status_code == 200


def test_pages_render_without_htmx_for_every_pushed_url(client: TestClient) -> None:
    response = client.post("/new", data={"rules": "easy"}, headers=HX)
    pushed = response.headers["hx-push-url"]
    fresh = TestClient(client.app)
    page = fresh.get(pushed)
    assert page.status_code == 200 and "<!doctype html>" in page.text and 'id="table"' in page.text


def test_new_game_page_works_without_javascript(client: TestClient) -> None:
    page = client.get("/new")
    assert page.status_code == 200 and 'name="code"' in page.text and 'value="classic"' in page.text


def test_the_moves_are_documented_and_run_by_their_own_route_class(client: TestClient) -> None:
    """The moves' routes skip FastAPI's dependency solving (app/web/routes/moves.py, MoveRoute), yet
    the schema still documents them, and their dependency's answers (404, 422) stand."""
    from app.web.routes.moves import MoveRoute, router

    paths = client.get("/openapi.json").json()["paths"]
    for action in ("remove", "draw", "undo"):
        assert "post" in paths[f"/games/{{game_id}}/{action}"]
    assert {r.name for r in router.routes if isinstance(r, MoveRoute)} == {"remove", "draw", "undo"}
    assert client.post("/games/" + "x" * 65 + "/draw", headers={"HX-Request": "true"}).status_code == 404
    assert client.post("/games/nosuchgame/draw", headers={"HX-Request": "true"}).status_code == 404
    assert client.post("/games/nosuchgame/remove", data={"position": "99"}).status_code == 422
