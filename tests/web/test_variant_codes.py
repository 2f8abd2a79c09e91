"""Variant games on the web (issue 17, docs/variants.md): codes read everywhere and bad
letters refused, the API's two forms, the New game window's remembered choice, and what
the board shows of each variant (face-down cards stay hidden unless the peaks are open)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.engine import Game, GameCode, Status
from app.engine.search.analysis import analyse
from app.store import MemoryStore
from app.web.presentation.variants_on_page import VARIANTS_COOKIE
from tests.support.pages import HX, game_id_of, text_of

VARIANT_CODES = ["TP1-EO-AAAAAAB", "TP1-CJ-AAAAAAB", "TP1-EWT-AAAAAAB", "TP1-EOWJT-AAAAAAB"]
BAD_CODES = ["TP1-EX-AAAAAAB", "TP1-EOO-AAAAAAB", "TP1-EOWJTX-AAAAAAB"]


def waste_label(html: str) -> str:
    match = re.search(r'id="waste" class="[^"]*" aria-label="([^"]*)"', html)
    assert match, "no waste"
    return match.group(1)


def status_after(client: TestClient, game_id: str, action: str) -> str:
    url = f"/games/{game_id}/draw" if action == "d" else f"/games/{game_id}/remove"
    response = client.post(url, data={} if action == "d" else {"position": action}, headers=HX)
    assert response.status_code == 200, response.text[:300]
    return text_of(response.text, "status")


# -- codes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("code", VARIANT_CODES)
def test_variant_codes_are_dealt_everywhere(client: TestClient, store: MemoryStore, code: str) -> None:
    page = client.get(f"/g/{code}")
    assert page.status_code == 200
    parsed = GameCode.parse(code)
    assert f">{code}</a>" in page.text  # the code shows its letters
    assert text_of(page.text, "variants-tag") == " · ".join(v.name for v in parsed.variants.each())
    state = client.post("/api/games", json={"code": code.lower()}).json()
    assert state["code"] == code and state["variants"] == parsed.variants.words
    dealt = client.post("/new", data={"code": code.lower(), "rules": "easy"}, follow_redirects=False)
    assert dealt.status_code == 303 and dealt.headers["location"] == f"/g/{code}"
    assert client.get(f"/replay/{code}/d").status_code in (200, 409)  # 409: T is not judged yet
    assert len(store._games) == 3  # the page's, the API's and the window's games


def test_variant_letters_are_read_in_any_order_and_case(client: TestClient) -> None:
    response = client.get("/g/tp1-etjo-aaaaaab", follow_redirects=False)
    assert response.status_code == 308 and response.headers["location"] == "/g/TP1-EOJT-AAAAAAB"
    replay = client.get("/replay/tp1-ejo-aaaaaab/d", follow_redirects=False)
    assert replay.status_code == 308 and replay.headers["location"] == "/replay/TP1-EOJ-AAAAAAB/d"


def test_a_share_link_with_variants_deals_its_code(client: TestClient) -> None:
    text = "try this one: https://tripeaks.example/g/tp1-cjw-aaaaaac!"
    response = client.post("/new", data={"code": text, "rules": "easy"}, follow_redirects=False)
    assert response.headers["location"] == "/g/TP1-CWJ-AAAAAAC"


@pytest.mark.parametrize("code", BAD_CODES)
def test_bad_variant_letters_are_refused_with_the_input_quoted(
    client: TestClient, store: MemoryStore, code: str
) -> None:
    page = client.get(f"/g/{code}")
    assert page.status_code == 400
    assert code in page.text and "name variants" in page.text
    api = client.post("/api/games", json={"code": code})
    assert api.status_code == 422 and code in api.json()["detail"]
    form = client.post("/new", data={"code": code, "rules": "easy"}, headers=HX)
    assert form.status_code == 400 and 'aria-invalid="true"' in form.text
    assert client.get(f"/replay/{code}/d").status_code == 400
    assert client.get(f"/api/replay/{code}").json()["error"] == "bad_code"
    assert store._games == {}


# -- the JSON API --------------------------------------------------------------------------


def test_api_deals_rules_and_variants_by_word_letter_or_alias(client: TestClient) -> None:
    response = client.post("/api/games", json={"rules": "classic", "variants": ["wild", "open_peaks", "T"]})
    assert response.status_code == 201
    state = response.json()
    assert state["variants"] == ["open_peaks", "joker", "traditional"]
    assert re.fullmatch(r"TP1-COJT-[A-Z]{7}", state["code"])
    assert state["score"] == 0  # traditional scoring starts at 0
    assert all(slot["face_up"] and slot["card"] for slot in state["tableau"])  # open peaks
    standard = client.post("/api/games", json={"rules": "easy", "variants": []}).json()
    assert standard["variants"] == [] and re.fullmatch(r"TP1-E-[A-Z]{7}", standard["code"])


@pytest.mark.parametrize(
    "variants", [["open_peaks", "sideways"], ["joker", "wild"], ["x"]], ids=["unknown", "twice", "letter"]
)
def test_api_refuses_a_bad_variant_word_and_stores_nothing(
    client: TestClient, store: MemoryStore, variants: list[str]
) -> None:
    response = client.post("/api/games", json={"rules": "easy", "variants": variants})
    assert response.status_code == 422
    assert "variant" in response.json()["detail"]
    assert store._games == {}


def test_api_refuses_a_code_with_variants_beside_it(client: TestClient, store: MemoryStore) -> None:
    response = client.post("/api/games", json={"code": "TP1-E-AAAAAAB", "variants": ["joker"]})
    assert response.status_code == 422 and store._games == {}


def test_api_shows_the_joker_and_the_empty_waste(client: TestClient) -> None:
    joker_waste = client.post("/api/games", json={"code": "TP1-EJ-AAAAAAF"}).json()
    assert joker_waste["waste"] == "JK" and joker_waste["stock_count"] == 24
    joker_peak = client.post("/api/games", json={"code": "TP1-EJ-AAAAAAD"}).json()
    assert joker_peak["tableau"][22]["card"] == "JK"
    played = client.post(f"/api/games/{joker_peak['id']}/remove", json={"position": 22}).json()
    assert played["waste"] == "JK"
    empty = client.post("/api/games", json={"code": "TP1-EW-AAAAAAB"}).json()
    assert empty["waste"] is None and empty["stock_count"] == 24
    after = client.post(f"/api/games/{empty['id']}/remove", json={"position": 19}).json()
    assert after["waste"] == "AD"
    assert client.post(f"/api/games/{empty['id']}/undo").json()["waste"] is None


# -- face-down cards -----------------------------------------------------------------------


@pytest.mark.parametrize("code", ["TP1-E-AAAAAAB", "TP1-EW-AAAAAAB", "TP1-EJ-AAAAAAD", "TP1-CWJT-AAAAAAC"])
def test_face_down_cards_never_reach_the_client_without_open_peaks(client: TestClient, code: str) -> None:
    game = Game(GameCode.parse(code))
    hidden = [game.deal.tableau[p] for p in range(18)]
    shown = {game.deal.tableau[p] for p in range(18, 28)} | ({game.waste} if game.waste else set())
    page = client.get(f"/g/{code}").text
    assert page.count('class="card back') == 18
    for card in hidden:
        if card not in shown:
            assert f"c-{card.text()}" not in page and f"card-{card.text()}" not in page
    state = client.post("/api/games", json={"code": code}).json()
    assert [slot["card"] for slot in state["tableau"][:18]] == [None] * 18


@pytest.mark.parametrize("code", ["TP1-EO-AAAAAAB", "TP1-COWJ-AAAAAAD"])
def test_open_peaks_show_every_card(client: TestClient, code: str) -> None:
    game = Game(GameCode.parse(code))
    page = client.get(f"/g/{code}").text
    assert 'class="card back' not in page
    for p, card in enumerate(game.deal.tableau):
        assert f"pos-{p} c-{card.text()}" in page or (card.is_joker and f"pos-{p} c-JK" in page)
    assert len(re.findall(r'class="card face [^"]*\bcovered\b', page)) == 18  # face up, not yet playable
    state = client.post("/api/games", json={"code": code}).json()
    assert [slot["card"] for slot in state["tableau"]] == [c.text() for c in game.deal.tableau]
    assert [slot["face_up"] for slot in state["tableau"]] == [True] * 28
    # A covered card is shown but still refused until it is exposed.
    refused = client.post(f"/api/games/{state['id']}/remove", json={"position": 0})
    assert refused.status_code == 409 and refused.json()["error"] == "card_blocked"


# -- the board -----------------------------------------------------------------------------


def test_the_joker_renders_and_reads(client: TestClient) -> None:
    page = client.get("/g/TP1-EJ-AAAAAAD").text
    joker = re.search(r'<button class="card face joker pos-22 c-JK[^"]*"[^>]*>', page)
    assert joker and 'aria-label="Joker"' in joker.group(0) and 'data-r="JK"' in joker.group(0)
    assert 'class="joker-word" aria-hidden="true">joker<' in page
    game_id = game_id_of(page)
    assert status_after(client, game_id, "22") == "Joker to the waste. Score 499."
    table = client.get("/g/TP1-EJ-AAAAAAD").text
    assert waste_label(table) == "Waste: joker"
    assert 'id="waste-card" data-r="JK" data-s="★"' in table
    # On the waste the joker takes any exposed card, whatever its rank.
    game = Game(GameCode.parse("TP1-EJ-AAAAAAD"))
    game.remove(22)
    assert game.playable_positions() == [18, 19, 20, 21, 23, 24, 25, 26, 27]
    assert status_after(client, game_id, "20").startswith(f"{game.deal.tableau[20].words().capitalize()} to")


def test_the_joker_dealt_to_the_waste(client: TestClient) -> None:
    page = client.get("/g/TP1-EJ-AAAAAAF").text
    assert waste_label(page) == "Waste: joker"
    assert "Stock: 24 cards; waste: joker." in page  # the board in words


def test_the_empty_waste_renders_and_reads(client: TestClient) -> None:
    page = client.get("/g/TP1-EW-AAAAAAB").text
    assert waste_label(page) == "Waste: empty, any exposed card can be removed"
    assert 'class="pile waste empty"' in page and 'class="waste-note" aria-hidden="true">Empty waste<' in page
    assert "Stock: 24 cards; waste: empty, any exposed card can be removed." in page
    game_id = game_id_of(page)
    assert status_after(client, game_id, "19") == "Ace of diamonds to the waste. Score 499."
    undone = client.post(f"/games/{game_id}/undo", headers=HX)
    assert text_of(undone.text, "status") == (
        "Took back ace of diamonds. Waste: empty, any exposed card can be removed. Score 500."
    )


def test_traditional_scoring_shows_the_run_and_may_go_below_zero(client: TestClient) -> None:
    page = client.get("/g/TP1-ET-AAAAAAB").text
    assert text_of(page, "score") == "0" and text_of(page, "run-bonus") == "next +1"
    game_id = game_id_of(page)
    # docs/variants.md section 5's example, step by step.
    expected = [("21", 1), ("19", 3), ("18", 6), ("d", 1), ("d", -4), ("d", -9), ("20", -8), ("10", -6)]
    for action, score in expected:
        said = status_after(client, game_id, action)  # (a draw then says what can be played)
        assert said.endswith(f"Score {score}.") or f"Score {score}. " in said, said
    game = client.get("/g/TP1-ET-AAAAAAB").text
    assert text_of(game, "score") == "-6" and text_of(game, "run-bonus") == "next +3"
    assert "next +" not in client.get("/g/TP1-E-AAAAAAB").text  # only traditional scoring scores runs


def test_the_heading_names_the_rules_and_variants(client: TestClient) -> None:
    page = client.get("/g/TP1-COJ-AAAAAAB").text
    assert "<h1 class=\"visually-hidden\">TriPeaks, game TP1-COJ-AAAAAAB: Classic · Open peaks · Joker</h1>" in page
    assert text_of(page, "variants-tag") == "Open peaks · Joker"
    hebrew = client.get("/g/TP1-COJ-AAAAAAB", headers={"Accept-Language": "he"}).text
    assert "פסגות גלויות" in hebrew and "ג&#39;וקר" in hebrew


# -- what the engine does not judge yet ------------------------------------------------------


def play_to_the_end(client: TestClient, code: str) -> str:
    """Play a game by a simple rule (remove the first playable card, else draw) to its end."""
    page = client.get(f"/g/{code}").text
    game_id, game = game_id_of(page), Game(GameCode.parse(code))
    while game.status is Status.PLAYING:
        playable = game.playable_positions()
        action = str(playable[0]) if playable else "d"
        status_after(client, game_id, action)
        game.remove(playable[0]) if playable else game.draw()
    return game_id


def test_a_traditional_game_gets_the_solver_s_answers(client: TestClient) -> None:
    """Hints, the best possible score, the difficulty and the review work under traditional
    scoring, from its own objective (TP1-ET-AAAAAAC: winnable, but its best score, 201, stops
    short of a win)."""
    code = GameCode.parse("TP1-ET-AAAAAAC")
    page = client.get(f"/g/{code.text()}").text
    hint = client.post(f"/games/{game_id_of(page)}/hint", headers=HX)
    assert hint.status_code == 200
    assert text_of(hint.text, "status").startswith(("Hint: play the", "Hint: draw"))
    assert text_of(client.get(f"/g/{code.text()}").text, "hints") == "1"
    game_id = play_to_the_end(client, code.text())
    outlook = client.get(f"/games/{game_id}/outlook", headers=HX)
    assert outlook.status_code == 200
    best = analyse(code).of(Game(code)).best_score
    assert best == 201 and str(best) in outlook.text
    difficulty = client.get(f"/replay-difficulty/{code.text()}")
    assert difficulty.status_code == 200 and "not available" not in difficulty.text
    review = client.get(f"/replay/{code.text()}/d")
    assert review.status_code == 200
    assert client.get(f"/api/replay/{code.text()}/d").status_code == 200


def test_the_analysis_works_for_the_other_variants(client: TestClient) -> None:
    page = client.get("/g/TP1-EWJ-AAAAAAB").text
    hint = client.post(f"/games/{game_id_of(page)}/hint", headers=HX)
    assert text_of(hint.text, "status").startswith(("Hint: play the", "Hint: draw", "No one could"))
    game_id = play_to_the_end(client, "TP1-EOJ-AAAAAAB")
    outlook = client.get(f"/games/{game_id}/outlook", headers=HX).text
    assert "best possible score" in outlook or "No one could win" in outlook
    difficulty = client.get("/replay-difficulty/TP1-EOJ-AAAAAAB").text
    assert re.search(r"Difficulty: (Easy|Medium|Hard|Expert|Impossible)", difficulty)
    review = client.get("/replay/TP1-EWJ-AAAAAAB/d")
    assert review.status_code == 200 and "Empty waste · Joker" in review.text


# -- the New game window -------------------------------------------------------------------


def checked_variants(html: str) -> list[str]:
    return re.findall(r'name="variants" value="(\w+)" id="variant-\w+" checked', html)


def test_the_new_game_window_offers_each_variant_and_remembers_the_choice(client: TestClient) -> None:
    window = client.get("/new").text
    assert re.findall(r'name="variants" value="(\w+)"', window) == [
        "open_peaks", "empty_waste", "joker", "traditional",
    ]
    assert "Every card of the peaks face up from the start" in window and checked_variants(window) == []
    dealt = client.post(
        "/new", data={"rules": "classic", "variants": ["joker", "open_peaks"]}, follow_redirects=False
    )
    assert re.fullmatch(r"/g/TP1-COJ-[A-Z]{7}", dealt.headers["location"])
    assert client.cookies.get(VARIANTS_COOKIE) == "OJ"
    assert checked_variants(client.get("/new").text) == ["open_peaks", "joker"]
    game_page = client.get(dealt.headers["location"]).text
    assert checked_variants(game_page) == ["open_peaks", "joker"]  # the popover's form too
    # By htmx: the fresh form that comes back carries the choice just made.
    again = client.post("/new", data={"rules": "easy", "variants": ["empty_waste"]}, headers=HX)
    assert re.fullmatch(r"/g/TP1-EW-[A-Z]{7}", again.headers["HX-Push-Url"])
    assert checked_variants(again.text) == ["empty_waste"]
    none = client.post("/new", data={"rules": "easy"}, follow_redirects=False)
    assert re.fullmatch(r"/g/TP1-E-[A-Z]{7}", none.headers["location"])
    assert checked_variants(client.get("/new").text) == []


def test_a_bad_cookie_or_form_word_is_not_a_server_error(client: TestClient, store: MemoryStore) -> None:
    client.cookies.set(VARIANTS_COOKIE, "ZZ")
    assert checked_variants(client.get("/new").text) == []
    response = client.post("/new", data={"rules": "easy", "variants": ["sideways"]}, follow_redirects=False)
    assert response.status_code == 422 and store._games == {}


@pytest.mark.parametrize("path", ["/new", "/races"])
def test_a_made_up_variant_word_is_refused_in_the_players_language(
    client: TestClient, store: MemoryStore, path: str
) -> None:
    """The window's boxes send known words: a made-up one is a request made by hand, refused
    like any other the game cannot read, in the player's language (not the engine's English)."""
    response = client.post(path, data={"rules": "easy", "variants": ["sideways"]},
                           headers={"Accept-Language": "he"}, follow_redirects=False)
    assert response.status_code == 422 and store._games == {} and store._rooms == {}
    assert "המשחק אינו מבין את הבקשה הזו." in response.text
    assert "is not a variant" not in response.text and "sideways" not in response.text


def test_winnable_only_deals_a_winnable_variant_game(client: TestClient) -> None:
    dealt = client.post(
        "/new", data={"rules": "classic", "variants": ["joker"], "winnable_only": "true"}, follow_redirects=False
    )
    code = GameCode.parse(dealt.headers["location"].removeprefix("/g/"))
    assert code.variants.letters == "J"
    assert 'id="winnable-tag"' in client.get(dealt.headers["location"]).text


def test_winnable_only_deals_a_winnable_traditional_game(client: TestClient) -> None:
    dealt = client.post(
        "/new", data={"rules": "easy", "variants": ["traditional"], "winnable_only": "true"}, follow_redirects=False
    )
    code = GameCode.parse(dealt.headers["location"].removeprefix("/g/"))
    assert code.variants.letters == "T"
    analysis = analyse(code, scores=False)
    assert analysis.winnable(0, 0, analysis.waste_after[0])
    assert 'id="winnable-tag"' in client.get(dealt.headers["location"]).text
