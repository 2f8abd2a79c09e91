"""The replay page and its JSON over real HTTP handling (TestClient): every step in full and by
htmx, each kind of bad link, hidden cards, the ways in."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.engine import DECK, Game, GameCode
from app.engine.line import Line
from app.engine.search.solver import solve
from app.store import MemoryStore

CODE = "TP1-E-AAAAAAB"
THROWN = "22.19.21.d.12.18.d.d.d.d.20.d.d.d.10.d.11.d.d.9.23.25.d.3.d.13.d.d.d.d.d.d.d.d.d.4.0.d.27"
HX = {"HX-Request": "true"}


def face_down_cards(game: Game) -> set[str]:
    return {game.deal.tableau[p].text() for p in range(28) if not game.is_removed(p) and not game.is_exposed(p)}


def card_attrs(html: str) -> set[str]:
    """Cards the HTML shows face up, as rank and suit symbol."""
    return set(re.findall(r'data-r="([^"]+)" data-s="([^"]+)"', html))  # type: ignore[arg-type]


def test_every_step_renders_in_full_and_by_htmx(client: TestClient) -> None:
    last = len(Line.parse(THROWN))
    for step in range(0, last + 1):
        full = client.get(f"/replay/{CODE}/{THROWN}?step={step}")
        assert full.status_code == 200 and full.text.startswith("<!doctype html>")
        assert f'<output id="step-number">{step}</output>' in full.text
        assert 'id="slider-form"' in full.text and 'id="summary"' in full.text
        part = client.get(f"/replay/{CODE}/{THROWN}?step={step}", headers=HX)
        assert part.status_code == 200 and "<html" not in part.text
        assert part.text.lstrip().startswith('<section id="replay-step"')
        assert f'<output id="step-number">{step}</output>' in part.text
        assert part.text.count('hx-swap-oob="true"') == 2  # the track and the slider, out of band
        assert part.headers["HX-Push-Url"] == f"/replay/{CODE}/{THROWN}?step={step}"
        assert "HX-Request" in part.headers["Vary"]
    # The slider's own request leaves the slider alone; a history restore gets the page.
    moved = client.get(f"/replay/{CODE}/{THROWN}?step=4", headers={**HX, "HX-Source": "form#slider-form"})
    assert 'id="slider-form"' not in moved.text and 'id="track"' in moved.text
    restore = client.get(f"/replay/{CODE}/{THROWN}?step=4", headers={**HX, "HX-History-Restore-Request": "true"})
    assert restore.text.startswith("<!doctype html>")


def test_the_default_step_is_the_end_and_the_empty_line_is_the_deal(client: TestClient) -> None:
    end = client.get(f"/replay/{CODE}/{THROWN}")
    assert f'<output id="step-number">{len(Line.parse(THROWN))}</output>' in end.text
    deal = client.get(f"/replay/{CODE}")
    assert deal.status_code == 200 and '<output id="step-number">0</output>' in deal.text


def test_the_point_of_no_return_is_marked_and_said(client: TestClient) -> None:
    page = client.get(f"/replay/{CODE}/{THROWN}?step=0").text
    said = re.sub(r"<[^>]+>", "", re.search(r'id="point-of-no-return"[^>]*>(.*?)</p>', page, re.S)[1]).strip()  # type: ignore[index]
    assert said.startswith("Move 23, drawing, lost the win: removing the ") and said.endswith("kept it.")
    assert 'class="lost no-return" id="no-return-mark"' in page
    assert page.count('class="kept') == 23 and page.count('class="lost') == len(Line.parse(THROWN)) + 1 - 23
    at = client.get(f"/replay/{CODE}/{THROWN}?step=23").text
    assert "Point of no return." in at and "No longer winnable" in at
    before = client.get(f"/replay/{CODE}/{THROWN}?step=22").text
    assert "Still winnable" in before


def test_a_won_game_shows_par_and_the_first_step_where_a_better_line_existed(client: TestClient) -> None:
    win = Line(solve(Game(GameCode.parse(CODE))).line).text()
    page = client.get(f"/replay/{CODE}/{win}").text
    par = re.search(r'id="par">(.*?)</p>', page, re.S)[1]  # type: ignore[index]
    data = client.get(f"/api/replay/{CODE}/{win}").json()
    final = data["steps"][-1]["score"]
    assert data["par"] is not None and f"Par {data['par']}" in par
    if final < data["par"]:
        assert f"ended {data['par'] - final} below it" in par
        first = next(s["step"] for s in data["steps"] if s["best_score"] < data["par"])
        assert f"Move {first}: a better line existed" in page
    assert "The win was in reach at every step." in page


def test_cards_are_shown_as_the_player_saw_them_unless_revealed(client: TestClient) -> None:
    game = Line.parse(THROWN).games(GameCode.parse(CODE))[5]
    hidden = {(DECK[c.index].rank_text, DECK[c.index].suit.symbol) for c in game.deal.tableau
              if c.text() in face_down_cards(game)}
    seen = card_attrs(client.get(f"/replay/{CODE}/{THROWN}?step=5").text)
    assert hidden and not (hidden - {(game.waste.rank_text, game.waste.suit.symbol)}) & seen
    shown = client.get(f"/replay/{CODE}/{THROWN}?step=5&reveal=1").text
    assert hidden <= card_attrs(shown) and 'aria-pressed="true"' in shown and "hindsight" in shown
    api = client.get(f"/api/replay/{CODE}/{THROWN}").text
    assert not any(f'"{card}"' in api for card in face_down_cards(Game(GameCode.parse(CODE))))
    revealed = client.get(f"/api/replay/{CODE}/{THROWN}?reveal=1").json()
    assert revealed["deal"]["tableau"] == [c.text() for c in game.deal.tableau]


def test_the_json_review(client: TestClient) -> None:
    body = client.get(f"/api/replay/{CODE}/{THROWN}").json()
    assert set(body) == {"code", "rules", "steps", "point_of_no_return", "par", "difficulty"}
    assert body["code"] == CODE and body["rules"] == "easy" and body["point_of_no_return"] == 23
    tokens = THROWN.split(".")
    assert len(body["steps"]) == len(tokens) + 1
    assert body["steps"][0] == {**body["steps"][0], "step": 0, "action": None, "score": 500, "moves": 0}
    assert [s["action"] for s in body["steps"][1:]] == tokens
    assert [s["winnable"] for s in body["steps"]] == [i < 23 for i in range(len(tokens) + 1)]
    assert body["difficulty"] in {"easy", "medium", "hard", "expert", "impossible"}
    assert set(body["steps"][3]) == {"step", "action", "winnable", "best_score", "score", "moves"}


BAD_LINKS = [
    (f"/replay/{CODE}/22.x", "unknown_token", 1, "x"),
    (f"/replay/{CODE}/22.0", "refused_action", 1, "0"),
    (f"/replay/{CODE}/27", "refused_action", 0, "27"),
    (f"/replay/{CODE}/" + ".".join(["d"] * 201), "too_long", 200, "d"),
    (f"/replay/{CODE}/22.", "unknown_token", 1, ""),
    (f"/replay/{CODE}/{'d.' * 23}d", "refused_action", 23, "d"),
    ("/replay/TP1-X-AAAAAAB/22", "bad_code", None, None),
    ("/replay/nonsense", "bad_code", None, None),
    (f"/replay/{CODE}/22?step=2", "bad_step", None, None),
    (f"/replay/{CODE}/22?step=-1", "bad_step", None, None),
    (f"/replay/{CODE}/22?step=one", "bad_step", None, None),
]


@pytest.mark.parametrize(("url", "error", "index", "token"), BAD_LINKS)
def test_each_kind_of_bad_link_gets_its_4xx(
    client: TestClient, store: MemoryStore, url: str, error: str, index: int | None, token: str | None
) -> None:
    before = store.count_games() if hasattr(store, "count_games") else None
    page = client.get(url)
    assert page.status_code == 400 and page.text.startswith("<!doctype html>")
    assert f'data-error="{error}"' in page.text
    if index is not None:
        assert f'data-index="{index}"' in page.text
        assert f"Action {index + 1} of the line" in page.text or "at most 200 actions" in page.text
        assert f'<mark id="bad-token">{token}</mark>' in page.text
    if error != "bad_step":  # the JSON has every step: no step to ask for
        api = client.get(url.replace("/replay/", "/api/replay/", 1))
        assert api.status_code == 400
        assert api.json()["error"] == error and api.json()["index"] == index and api.json()["detail"]
    part = client.get(url, headers=HX)
    assert part.status_code == 400
    if before is not None:
        assert store.count_games() == before  # nothing stored


def test_a_lenient_code_goes_to_its_canonical_link(client: TestClient) -> None:
    moved = client.get("/replay/tp1-n-aaaaaab/22", follow_redirects=False)
    assert moved.status_code == 308 and moved.headers["location"] == f"/replay/{CODE}/22"


def play_to_the_end(client: TestClient, line: Line) -> str:
    page = client.get(f"/g/{CODE}")
    game_id = re.search(r'data-game-id="([^"]+)"', page.text)[1]  # type: ignore[index]
    for action in line.actions:
        if action.is_draw:
            client.post(f"/games/{game_id}/draw")
        else:
            client.post(f"/games/{game_id}/remove", data={"position": str(action.position)})
    return client.get(f"/g/{CODE}").text


def test_the_result_box_offers_the_review_and_statistics_list_it(client: TestClient) -> None:
    page = play_to_the_end(client, Line.parse(THROWN))
    assert f'href="/replay/{CODE}/{THROWN}"' in page and "Review this game" in page
    assert "Share this game" in page and f"/replay/{CODE}/{THROWN}\"" in page
    # One share with its copy: the game's link (its line), and the words sent with it.
    share = re.search(r'<button type="button" class="button" id="share-game" data-share-url="([^"]+)"\s+'
                      r'data-share-text="([^"]+)" data-copied="Share link copied">Share</button>', page)
    assert share and share[1].endswith(f"/replay/{CODE}/{THROWN}") and CODE in share[2]
    assert 'hx-get="/replay-difficulty/' in page
    difficulty = client.get(f"/replay-difficulty/{CODE}")
    assert difficulty.status_code == 200 and "Difficulty: " in difficulty.text
    stats = client.get("/stats").text
    assert 'id="recent-games"' in stats and f'href="/replay/{CODE}/{THROWN}"' in stats


def test_a_deal_s_record_links_to_the_record_holder_s_review(client: TestClient, other_client: TestClient) -> None:
    win = Line(solve(Game(GameCode.parse(CODE))).line)
    client.put("/api/players/me/name", json={"name": "Dana"})
    play_to_the_end(client, win)
    page = other_client.get(f"/g/{CODE}").text
    record = re.search(r'id="deal-record"[^>]*>(.*?)</p>', page, re.S)[1]  # type: ignore[index]
    assert "Record: " in record and "by Dana" in record
    assert "watch-record" not in record  # in the middle of the deal: never one click from its answer
    assert 'id="reveal"' not in other_client.get(f"/replay/{CODE}/{win.text()}").text  # nor hindsight
    assert other_client.get(f"/replay/{CODE}/{win.text()}?reveal=1").status_code == 403
    page = play_to_the_end(other_client, Line.parse(THROWN))  # once their own game has ended
    record = re.search(r'id="deal-record"[^>]*>(.*?)</p>', page, re.S)[1]  # type: ignore[index]
    assert f'<a id="watch-record" href="/replay/{CODE}/{win.text()}">watch</a>' in record
    assert other_client.get(f"/replay/{CODE}/{win.text()}?reveal=1").status_code == 200


def test_reviews_count_against_the_page_limit(app_settings) -> None:  # type: ignore[no-untyped-def]
    settings = app_settings.model_copy(update={"rate_limits": True, "rate_limit_pages": "3/minute"})
    from app.web.main import create_app

    with TestClient(create_app(settings, store=MemoryStore())) as limited:
        assert [limited.get(f"/replay/{CODE}/22").status_code for _ in range(2)] == [200] * 2
        assert limited.get(f"/api/replay/{CODE}/22").status_code == 200
        assert limited.get(f"/replay/{CODE}/22").status_code == 429
        assert limited.get(f"/api/replay/{CODE}").status_code == 429
