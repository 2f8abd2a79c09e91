"""The game page's server side of the play experience: what it says, remembers and offers."""

from __future__ import annotations

from dataclasses import replace

from fastapi.testclient import TestClient

from app.engine import DRAW, Game, Rules, Variants
from tests.support.deals import won_deal
from tests.support.pages import HX, open_deal, text_of

CODE = "TP1-E-AAAAAAB"


def test_a_removal_names_the_cards_it_turned_and_the_score(client: TestClient) -> None:
    code, line = won_deal(Rules.EASY)
    game = Game(code)
    game_id = open_deal(client, code.text())[0]
    for action in line:
        before = {q for q in range(28) if game.is_exposed(q)}
        html = (
            client.post(f"/games/{game_id}/draw", headers=HX).text
            if action == DRAW
            else client.post(f"/games/{game_id}/remove", data={"position": action}, headers=HX).text
        )
        game.replay([action])
        turned = [q for q in range(28) if game.is_exposed(q) and q not in before]
        if turned and action != DRAW:
            break
    else:  # pragma: no cover - a won game turns every card
        raise AssertionError("no removal turned a card")
    status = text_of(html, "status")
    names = ", ".join(game.deal.tableau[q].words() for q in turned)
    waste = game.waste.words()
    assert status.startswith(f"{waste[:1].upper()}{waste[1:]} to the waste. Turned face up: {names}.")
    assert status.endswith(f"Score {game.score}.")
    undone = text_of(client.post(f"/games/{game_id}/undo", headers=HX).text, "status")
    # How many cards turned back down, never which: they are face down in this answer.
    assert ("A card turned face down." if len(turned) == 1 else "Two cards turned face down.") in undone
    assert not any(game.deal.tableau[q].words() in undone for q in turned)


def test_with_open_peaks_no_removal_turns_a_card_and_no_undo_turns_one_down(client: TestClient) -> None:
    """Every card is face up from the deal: the removal that turns cards over in the standard
    game says nothing of turning here, and its undo turns nothing back down."""
    code, line = won_deal(Rules.EASY)
    standard, open_code = Game(code), replace(code, variants=Variants(open_peaks=True))
    game_id = open_deal(client, open_code.text())[0]
    for action in line:
        face_up_before = standard.face_up_mask()
        standard.replay([action])
        if action == DRAW:
            client.post(f"/games/{game_id}/draw", headers=HX)
            continue
        html = client.post(f"/games/{game_id}/remove", data={"position": action}, headers=HX).text
        if standard.face_up_mask() & ~face_up_before:  # the standard game turned a card up
            break
    else:  # pragma: no cover - a won game turns every card
        raise AssertionError("no removal turned a card")
    status = text_of(html, "status")
    assert "to the waste." in status and "Turned face up" not in status
    undone = text_of(client.post(f"/games/{game_id}/undo", headers=HX).text, "status")
    assert undone.startswith("Took back") and "face down" not in undone


def test_a_second_click_on_a_removed_card_changes_nothing_on_the_page(client: TestClient) -> None:
    game_id = open_deal(client)[0]
    position = Game.from_code(CODE).playable_positions()[0]
    client.post(f"/games/{game_id}/remove", data={"position": position}, headers=HX)
    again = client.post(f"/games/{game_id}/remove", data={"position": position}, headers=HX)
    assert again.status_code == 204 and again.content == b""
    plain = client.post(f"/games/{game_id}/remove", data={"position": position})
    assert plain.status_code == 409  # without htmx, the page says why


def test_a_code_in_a_link_inside_other_text_is_read(client: TestClient) -> None:
    open_deal(client)
    dealt = client.post("/new", data={"code": "try this: https://example.org/g/tp1-c-aaaaabc!"}, headers=HX)
    assert dealt.status_code == 200 and dealt.headers["hx-push-url"] == "/g/TP1-C-AAAAABC"
    two = client.post("/new", data={"code": "https://a.org/g/TP1-E-AAAAAAB or https://a.org/g/TP1-E-AAAAAAC"}, headers=HX)
    assert two.status_code == 400  # two different codes: which one? Refused, and said so
    plain = client.post("/new", data={"code": "no link here TP1-E-AAAAAAB"}, headers=HX)
    assert plain.status_code == 200 and plain.headers["hx-push-url"] == "/g/TP1-E-AAAAAAB"
    shared = "I won TriPeaks deal TP1-CO-ABCDEFG with 612 points. Can you beat it?"  # a share text
    assert client.post("/new", data={"code": shared}, headers=HX).headers["hx-push-url"] == "/g/TP1-CO-ABCDEFG"
    typed = client.post("/new", data={"code": "tp1-e-aaaa1ab"}, headers=HX)  # 1 typed for I
    assert typed.headers["hx-push-url"] == "/g/TP1-E-AAAAIAB"


def test_new_game_remembers_winnable_only_and_offers_the_way_back(client: TestClient) -> None:
    game_id = open_deal(client)[0]
    client.post(f"/games/{game_id}/draw")
    dealt = client.post("/new", data={"winnable_only": "true"}, headers=HX)
    assert "tp_winnable_only=1" in dealt.headers["set-cookie"]
    assert 'id="winnable-tag"' in dealt.text  # the solver proved it: the board says so
    assert 'id="resume"' in dealt.text and CODE in text_of(dealt.text, "resume")
    page = client.get("/new").text
    assert 'id="winnable-only" checked' in page
    back = client.post(f"/games/{game_id}/resume", headers=HX)
    assert back.status_code == 200 and back.headers["hx-push-url"] == f"/g/{CODE}"
    assert text_of(client.get(f"/g/{CODE}").text, "moves") == "1"
    assert client.get("/", follow_redirects=False).headers["location"] == f"/g/{CODE}"


def test_restart_keeps_the_game_it_left_reachable(client: TestClient) -> None:
    game_id = open_deal(client)[0]
    client.post(f"/games/{game_id}/draw")
    restarted = client.post(f"/games/{game_id}/restart", headers=HX)
    assert text_of(restarted.text, "moves") == "0" and 'id="resume"' in restarted.text
    client.post(f"/games/{game_id}/resume", headers=HX)
    assert text_of(client.get(f"/g/{CODE}").text, "moves") == "1"


def test_large_cards_is_a_remembered_switch(client: TestClient) -> None:
    open_deal(client)
    on = client.post("/settings/large-cards", headers=HX)
    assert 'aria-pressed="true"' in on.text and "tp_large_cards=1" in on.headers["set-cookie"]
    assert 'class="main large-cards"' in client.get(f"/g/{CODE}").text
    off = client.post("/settings/large-cards", headers=HX)
    assert 'aria-pressed="false"' in off.text


def test_a_move_keeps_the_ended_game_boxes_and_buttons_in_step(client: TestClient) -> None:
    game_id = open_deal(client)[0]
    html = client.post(f"/games/{game_id}/draw", headers=HX).text
    for oob in ("score", "moves", "undo", "hint", "result-area", "status", "words-text"):
        assert f'id="{oob}"' in html, oob
    assert len(html.encode()) < 8192
    assert 'class="card face' in html and "s-23" in html  # the drawn card flies from the stock


def test_a_removal_that_empties_a_peak_says_what_the_peak_paid(client: TestClient) -> None:
    code, line = won_deal(Rules.EASY)
    for variant, paid in (("", [100, 100, 100]), ("T", [15, 15, 30])):
        text = code.text().replace("-E-", f"-E{variant}-")
        game, game_id, said = Game.from_code(text), open_deal(client, text)[0], []
        for action in line:
            cleared = sum(game.peaks_cleared)
            game.replay([action])
            path = "draw" if action == DRAW else "remove"
            html = client.post(f"/games/{game_id}/{path}", data={"position": action}, headers=HX).text
            status = text_of(html, "status")
            if sum(game.peaks_cleared) > cleared:
                said.append(status.split("Peak cleared: ")[1].split(" points!")[0])
            else:
                assert "Peak cleared" not in status
        assert said == [str(points) for points in paid], variant
