"""Face-down cards never leave the server; game ids are unguessable; nobody else's game can be reached.

A game is played through every kind of response (whole pages, htmx fragments, the JSON API,
refusals, error pages and bodies, 429 and 503 answers) in every language, and after each
response every card still face down (covered on the peaks, or in the stock) is looked for
in the body in every form the app writes cards in: its text (``7H``), its symbol text
(``7♥``), its rank and suit attributes, the waste's element id, and its name in words in
each language.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.engine import DRAW, Card, Game, GameCode, Rules
from app.i18n import LANGUAGES
from app.store import GameStore, MemoryStore, StoreUnavailable
from app.store.base import new_game_id
from tests.support.apps import AppFactory
from tests.support.catalogs import card_words
from tests.support.deals import won_deal
from tests.support.pages import CODE, HX, game_id_of


def hidden_cards(game: Game) -> set[Card]:
    """The cards face down now: covered on the peaks, and the stock."""
    covered = {
        game.deal.tableau[p] for p in range(28) if not game.is_removed(p) and not game.is_exposed(p)
    }
    return covered | set(game.deal.stock[game.drawn :])


def face_up_cards(game: Game) -> set[Card]:
    """The cards the player sees now or has seen: face up on the peaks, removed, drawn, the waste."""
    return set(game.deal.tableau) - hidden_cards(game) | {game.deal.waste} | set(game.deal.stock[: game.drawn])


def json_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)


def leaks(body: str, hidden: set[Card], known: set[str]) -> list[str]:
    """Every way a hidden card shows in ``body`` (ids and codes, which are random text, removed first)."""
    for text in sorted(known, key=len, reverse=True):
        body = body.replace(text, "\x00")
    found = []
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    strings = set(json_strings(data)) if data is not None else set()
    for card in hidden:
        text = card.text()
        if text in strings:
            found.append(f"{text} as a JSON value")
        if re.search(rf"(?<![\w]){re.escape(text)}(?![\w])", body):
            found.append(f"{text} as text")
        if card.symbol_text() in body:
            found.append(f"{card.symbol_text()}")
        if re.search(rf'data-r="{re.escape(card.rank_text)}"\s+data-s="{re.escape(card.suit.symbol)}"', body):
            found.append(f"{text} in data-r/data-s")
        if f"waste-{text}" in body:
            found.append(f"waste-{text}")
        for lang in LANGUAGES:  # the card's name as the catalogs spell it, not as the app does
            name = card_words(lang, card)
            if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", body):
                found.append(f"{name!r} ({lang})")
    return found


class Watcher:
    """Checks each response of one player against the rule: an answer names only the cards face
    up or removed in it, or on the waste. Every other card of the game it is about (covered on
    the peaks, or in the stock) is looked for in it, even one the player saw before (an undone
    draw puts its card back in the stock; an undone removal covers cards again)."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self.get = store.get
        self.checked = 0
        self.statuses: set[int] = set()

    def check(self, response: Any, game_id: str, *, code: str) -> Any:
        stored = self.get(game_id)
        game = stored.game if stored is not None else Game.from_code(code)
        known = {game_id, code, game.code_text(), *re.findall(r'data-game-id="([^"]+)"', response.text)}
        found = leaks(response.text, hidden_cards(game), known)
        assert not found, (
            f"{response.request.method} {response.request.url} ({response.status_code}) names a card face down "
            f"in it: {found}"
        )
        self.checked += 1
        self.statuses.add(response.status_code)
        return response


def play_pages(client: TestClient, watch: Watcher, code: GameCode, line: tuple[int, ...], lang: str) -> str:
    """Play ``line`` through the game page (htmx and plain posts), with refusals, undos and hints."""
    text = code.text()
    client.cookies.set("tp_lang", lang)
    page = client.get(f"/g/{text}")
    game_id = game_id_of(page.text)
    watch.check(page, game_id, code=text)
    shadow = Game(code)
    undone: set[tuple[str, bool]] = set()
    """The kinds of undo played: ("draw" | "removal" | "cover", htmx)."""
    for step, action in enumerate(line):
        htmx = step % 3 != 2
        headers = HX if htmx else {}
        last = shadow.line[-1] if shadow.line else None
        kind = None if last is None else "draw" if last.is_draw else "cover" if turned_last(shadow) else "removal"
        if step % 7 == 3:  # a refused move: a card that cannot go, a covered one
            covered = next(p for p in range(28) if not shadow.is_removed(p) and not shadow.is_exposed(p)) \
                if shadow.cards_left() > 10 else 0
            watch.check(client.post(f"/games/{game_id}/remove", data={"position": covered}, headers=HX), game_id, code=text)
        if kind is not None and shadow.undo_available and (step % 11 == 5 or (kind, htmx) not in undone):
            undone.add((kind, htmx))  # undo, then play it again
            watch.check(client.post(f"/games/{game_id}/undo", headers=headers), game_id, code=text)
            watch.check(client.get(f"/g/{text}"), game_id, code=text)
            redo = shadow.line[-1]
            watch.check(
                client.post(f"/games/{game_id}/draw", headers=headers) if redo.is_draw else
                client.post(f"/games/{game_id}/remove", data={"position": redo.position}, headers=headers),
                game_id, code=text,
            )
        if step % 13 == 7:
            watch.check(client.post(f"/games/{game_id}/hint", headers=HX), game_id, code=text)
        if action == DRAW:
            response = client.post(f"/games/{game_id}/draw", headers=headers, follow_redirects=True)
            shadow.draw()
        else:
            response = client.post(f"/games/{game_id}/remove", data={"position": action}, headers=headers,
                                   follow_redirects=True)
            shadow.remove(action)
        assert response.status_code == 200, response.text[:300]
        watch.check(response, game_id, code=text)
    watch.check(client.get(f"/g/{text}"), game_id, code=text)
    watch.check(client.post(f"/games/{game_id}/undo", headers=HX), game_id, code=text)  # refused after a win?
    if len(line) > 20:
        assert {(k, h) for k in ("draw", "removal", "cover") for h in (True, False)} <= undone, undone
    return game_id


def turned_last(game: Game) -> bool:
    """Whether the last action, a removal, turned a card face up."""
    before = game.copy()
    before.undo()
    return any(game.is_exposed(p) and not before.is_exposed(p) for p in range(28))


def play_api(client: TestClient, watch: Watcher, code: GameCode, line: tuple[int, ...], lang: str) -> str:
    headers = {"Accept-Language": lang}
    state = watch.check(client.post("/api/games", json={"code": code.text()}, headers=headers), "", code=code.text()).json()
    game_id = state["id"]
    for step, action in enumerate(line):
        if step % 5 == 2:  # refused: a covered card, then a position out of range
            watch.check(client.post(f"/api/games/{game_id}/remove", json={"position": 0}, headers=headers),
                        game_id, code=code.text())
            watch.check(client.post(f"/api/games/{game_id}/remove", json={"position": 99}, headers=headers),
                        game_id, code=code.text())
        if step % 6 == 4:
            watch.check(client.post(f"/api/games/{game_id}/undo", headers=headers), game_id, code=code.text())
            watch.check(client.get(f"/api/games/{game_id}", headers=headers), game_id, code=code.text())
            stored = watch.store.get(game_id)
            assert stored is not None
            redo = line[step - 1]
            if redo == DRAW:
                watch.check(client.post(f"/api/games/{game_id}/draw", headers=headers), game_id, code=code.text())
            else:
                watch.check(client.post(f"/api/games/{game_id}/remove", json={"position": redo}, headers=headers),
                            game_id, code=code.text())
        if action == DRAW:
            response = client.post(f"/api/games/{game_id}/draw", headers=headers)
        else:
            response = client.post(f"/api/games/{game_id}/remove", json={"position": action}, headers=headers)
        assert response.status_code == 200, response.text
        watch.check(response, game_id, code=code.text())
    watch.check(client.get(f"/api/games/{game_id}", headers=headers), game_id, code=code.text())
    watch.check(client.get(f"/api/deals/{code.text()}/record", headers=headers), game_id, code=code.text())
    watch.check(client.get("/api/players/me/stats", headers=headers), game_id, code=code.text())
    return game_id


@pytest.mark.parametrize("lang", LANGUAGES)
def test_face_down_cards_are_in_no_response(make_client: AppFactory, lang: str) -> None:
    store = MemoryStore()
    client = make_client(store, client_kwargs={"raise_server_exceptions": False})
    watch = Watcher(store)
    code, line = won_deal(Rules.EASY)
    page_game = play_pages(client, watch, code, line, lang)
    api_game = play_api(client, watch, code, line, lang)
    # A game left half played, and the pages and errors around it.
    half = GameCode(Rules.CLASSIC, 12345)
    half_game = play_pages(client, watch, half, (DRAW, DRAW, DRAW), lang)
    for path in ("/", "/stats", "/new", f"/g/{half.text()}", f"/api/games/{half_game}", "/api/games/nope",
                 f"/games/{half_game}/nope", "/g/TP1-E-AAAAAA!", f"/api/deals/{half.text()}/record"):
        watch.check(client.get(path, follow_redirects=True), half_game, code=half.text())
    for method, path in (("GET", f"/games/{half_game}/draw"), ("DELETE", f"/api/games/{half_game}"),
                         ("POST", f"/api/games/{half_game}/remove"), ("POST", f"/games/{half_game}/remove")):
        watch.check(client.request(method, path, headers=HX), half_game, code=half.text())
    # Restart deals the code again (a new game), resume goes back to the half-played one.
    for headers in (HX, {}):
        restarted = client.post(f"/games/{half_game}/restart", headers=headers, follow_redirects=True)
        watch.check(restarted, game_id_of(restarted.text), code=half.text())
        watch.check(client.post(f"/games/{half_game}/resume", headers=headers, follow_redirects=True), half_game,
                    code=half.text())
    watch.check(client.get(f"/games/{page_game}/outlook", headers=HX), page_game, code=code.text())
    assert store.get(page_game) is not None and store.get(api_game) is not None
    assert watch.checked > 100
    assert {200, 404, 405, 409, 422} <= watch.statuses


def test_face_down_cards_are_not_in_429_or_503_answers(make_client: AppFactory) -> None:
    store = MemoryStore()
    client = make_client(store, rate_limits=True, rate_limit_actions="5/minute",
                         client_kwargs={"raise_server_exceptions": False})
    watch = Watcher(store)
    page = client.get(f"/g/{CODE}")
    game_id = game_id_of(page.text)
    statuses = [watch.check(client.post(f"/games/{game_id}/draw", headers=h), game_id, code=CODE).status_code
                for h in (HX, HX, HX, HX, HX, HX, {}, HX)]
    assert statuses[:5] == [200] * 5 and set(statuses[5:]) == {429}
    api = client.post("/api/games", json={"code": CODE}).json()["id"]
    watch.check(client.post(f"/api/games/{api}/draw"), api, code=CODE)

    def down(*args: object, **kwargs: object) -> None:
        raise StoreUnavailable("down")

    store.get = down  # type: ignore[method-assign]
    store.update = down  # type: ignore[method-assign]
    for response in (client.get(f"/g/{CODE}"), client.post(f"/games/{game_id}/draw", headers=HX),
                     client.post(f"/api/games/{api}/draw")):
        assert response.status_code in (429, 503)
        watch.check(response, game_id, code=CODE)


def test_game_ids_carry_128_random_bits(make_client: AppFactory) -> None:
    ids = {new_game_id() for _ in range(20_000)}
    assert len(ids) == 20_000
    for game_id in list(ids)[:1000]:
        raw = base64.urlsafe_b64decode(game_id + "==")
        assert len(raw) == 16 and len(game_id) == 22
    # Every bit varies across ids (no fixed prefix, counter or timestamp in them).
    ones = [0] * 128
    sample = list(ids)[:4000]
    for game_id in sample:
        value = int.from_bytes(base64.urlsafe_b64decode(game_id + "=="), "big")
        for bit in range(128):
            ones[bit] += value >> bit & 1
    assert all(0.4 * len(sample) < count < 0.6 * len(sample) for count in ones)
    # The ids the app hands out are of that kind, on the page and in the API.
    client = make_client()
    page_id = game_id_of(client.get(f"/g/{CODE}").text)
    api_id = client.post("/api/games", json={}).json()["id"]
    for game_id in (page_id, api_id):
        assert len(base64.urlsafe_b64decode(game_id + "==")) == 16


def test_no_way_into_someone_elses_game(make_client: AppFactory) -> None:
    store = MemoryStore()
    victim = make_client(store)
    page = victim.get(f"/g/{CODE}")
    game_id = game_id_of(page.text)
    victim.post(f"/games/{game_id}/draw", headers=HX)
    before = store.get(game_id)
    player = before.owner if before else None
    assert player is not None

    stranger = TestClient(victim.app)
    seen: list[str] = []
    # Knowing the code (the share link) gives the stranger a game of their own, not the victim's.
    own = stranger.get(f"/g/{CODE}")
    seen.append(own.text)
    assert game_id_of(own.text) != game_id
    for action in ("draw", "undo", "restart", "hint"):
        response = stranger.post(f"/games/{game_id}/{action}", headers=HX)
        assert response.status_code == 404 and "No such game" in response.text
        seen.append(response.text)
    response = stranger.post(f"/games/{game_id}/remove", data={"position": 20})
    assert response.status_code == 404
    # The victim's cookie, forged or cut short, is no key either.
    token = victim.cookies.get("tp_player")
    assert token
    for forged in (token[:-1], token[:-8], token + "x", token.split(".")[0], token.replace(token[2], "Z" if token[2] != "Z" else "Y", 1)):
        response = TestClient(victim.app).post(f"/games/{game_id}/draw", headers={**HX, "cookie": f"tp_player={forged}"})
        assert response.status_code == 404
    # Records and stats name no game and no player id.
    seen.append(stranger.get(f"/api/deals/{CODE}/record").text)
    seen.append(stranger.get("/api/players/me/stats").text)
    seen.append(stranger.get("/stats").text)
    for body in seen:
        assert game_id not in body and player not in body
    assert store.get(game_id) == before
