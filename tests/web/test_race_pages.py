"""The race page's views and forms (issue 24): lobby, board, watch, "Race again"."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from app.engine import GameCode, Rules, Variants
from app.store import MemoryStore
from tests.support.deals import won_deal
from tests.support.races import quick_countdown

quick = quick_countdown(0.2)


def test_lobby_board_finish_and_again(client: TestClient, store: MemoryStore) -> None:
    code, line = won_deal()
    made = client.post("/races", data={"code": code.text()}, follow_redirects=False)
    assert made.status_code == 303
    url = made.headers["location"]
    race_id = url.rsplit("/", 1)[1]
    lobby = client.get(url).text
    assert 'id="race-start"' in lobby and f'hx-sse:connect="/races/{race_id}/events?view=lobby"' in lobby
    assert "hx-sse-4.0.1.min.js" in lobby and 'integrity="sha384-' in lobby

    with TestClient(client.app) as rival, TestClient(client.app) as late:
        visitor = rival.get(url).text
        assert 'id="race-join"' in visitor and 'id="race-start"' not in visitor
        assert rival.post(f"/races/{race_id}/join", headers={"HX-Request": "true"}).status_code == 204
        assert 'id="race-wait"' in rival.get(url).text
        assert rival.post(f"/races/{race_id}/start", follow_redirects=False).status_code == 403
        assert client.post(f"/races/{race_id}/start", follow_redirects=False).status_code == 303
        assert 'id="race-countdown"' in rival.get(url).text
        time.sleep(0.25)

        board = rival.get(url).text
        assert 'id="table"' in board and 'id="race-strip"' in board and "view=board-1" in board
        assert 'id="clock" datetime="PT0S" data-running="0"' in board  # issue 42: it runs from the deal
        watching = late.get(url).text
        assert 'id="race-strip"' in watching and 'id="table"' not in watching and "view=watch" in watching

        mine = next(r.game_id for r in store.race(race_id).racers if r.seat == 0)  # type: ignore[union-attr]
        for action in line:  # the page's own move routes, as the board sends them
            path = "draw" if action < 0 else "remove"
            answer = client.post(f"/games/{mine}/{path}", data={} if action < 0 else {"position": action},
                                 headers={"HX-Request": "true"})
            assert answer.status_code == 200
        running = client.get(url).text
        assert 'id="race-strip"' in running and "racer-won" in running and 'id="race-finish"' not in running
        # Issue 42: no Restart while the race runs (it would leave the race for an ordinary game)
        assert 'id="restart"' not in running and 'id="play-again"' not in running
        assert 'id="restart"' not in board and 'id="race-leave"' in board
        assert client.post(f"/races/{race_id}/again", follow_redirects=False).status_code == 409


def test_a_finished_race_deals_again(client: TestClient, store: MemoryStore) -> None:
    code, line = won_deal()
    url = client.post("/races", data={"code": code.text()}, follow_redirects=False).headers["location"]
    race_id = url.rsplit("/", 1)[1]
    client.post(f"/races/{race_id}/start")
    time.sleep(0.25)
    mine = store.race(race_id).racers[0].game_id  # type: ignore[union-attr]
    for action in line:
        path = "draw" if action < 0 else "remove"
        client.post(f"/games/{mine}/{path}", data={} if action < 0 else {"position": action}, headers={"HX-Request": "true"})
    finished = client.get(url).text
    assert 'id="race-finish"' in finished and 'id="race-again"' in finished
    assert 'id="restart"' not in finished and 'id="play-again"' in finished  # the race is over: its box offers it
    assert 'id="restart-form"' in finished
    assert client.post(f"/games/{mine}/undo", headers={"HX-Request": "true"}).status_code == 409  # the race is over
    assert client.post(f"/races/{race_id}/again", follow_redirects=False).status_code == 303
    again = store.race(race_id)
    assert again is not None and again.round == 2 and again.code != code.text()
    GameCode.parse(again.code)
    assert 'id="race-start"' in client.get(url).text


def test_hostile_race_urls(client: TestClient) -> None:
    for bad in ("nosuchrace00", "x" * 5000, "a%00bcdefghijk", "%D7%90bcdefghijk"):
        assert client.get(f"/race/{bad}").status_code == 404
        for path in ("join", "start", "again"):
            assert client.post(f"/races/{bad}/{path}").status_code == 404
    assert client.post("/races", data={"code": "not a code"}).status_code == 422
    assert client.get("/healthz").status_code == 200


def test_race_a_friend_from_the_new_game_window(client: TestClient, store: MemoryStore) -> None:
    """The window's choice: a typed code, else a winnable deal of the rules and variants chosen."""
    page = client.get("/").text
    assert 'id="race-a-friend"' in page and 'form="new-game-form"' in page
    answer = client.post("/races", data={"rules": "classic", "variants": ["open_peaks"]}, headers={"HX-Request": "true"})
    assert answer.status_code == 204
    race = store.race(answer.headers["HX-Redirect"].rsplit("/", 1)[1])
    assert race is not None and race.code.startswith("TP1-CO-")
    typed = client.post("/races", data={"code": "tp1-e-aaaaaab", "rules": "classic"}, follow_redirects=False)
    assert typed.status_code == 303
    assert store.race(typed.headers["location"].rsplit("/", 1)[1]).code == "TP1-E-AAAAAAB"  # type: ignore[union-attr]
    assert client.post("/races", data={"variants": ["nonsense"]}).status_code == 422


def test_a_typed_code_gets_the_ticked_variants_when_it_names_none(client: TestClient, store: MemoryStore) -> None:
    """The New game window's "Race a friend" with a code typed: a code naming no variant is
    raced with the variants ticked (its number, rules and layout kept); a code naming some is
    raced as it is, whatever is ticked."""

    def raced(data: dict[str, object]) -> GameCode:
        answer = client.post("/races", data=data, headers={"HX-Request": "true"})
        assert answer.status_code == 204, answer.text
        race = store.race(answer.headers["HX-Redirect"].rsplit("/", 1)[1])
        assert race is not None
        return GameCode.parse(race.code)

    plain = GameCode.parse("TP1-C-AAAAAAB")
    ticked = ["open_peaks", "traditional"]
    got = raced({"code": plain.text().lower(), "rules": "easy", "variants": ticked})
    assert got == GameCode(plain.rules, plain.number, Variants.from_words(ticked), plain.layout)
    assert got.variants != plain.variants and got.rules is Rules.CLASSIC  # the code's rules, not the radio's
    own = GameCode(Rules.EASY, 777, Variants.from_words(["joker"]))
    assert raced({"code": own.text(), "variants": ticked}) == own  # the code's own variants
    assert raced({"code": plain.text()}) == plain  # nothing ticked: the code as typed
    assert client.post("/races", data={"code": plain.text(), "variants": ["nonsense"]}).status_code == 422


def test_a_racer_who_leaves_shows_as_gone_and_the_race_ends_without_them(
    client: TestClient, store: MemoryStore
) -> None:
    code, line = won_deal()
    url = client.post("/races", data={"code": code.text()}, follow_redirects=False).headers["location"]
    race_id = url.rsplit("/", 1)[1]
    with TestClient(client.app) as rival:
        rival.post(f"/races/{race_id}/join")
        assert rival.post(f"/races/{race_id}/leave", follow_redirects=False).status_code == 409  # the lobby
        client.post(f"/races/{race_id}/start")
        time.sleep(0.25)
        board = rival.get(url).text
        assert 'id="race-leave"' in board
        theirs = next(r.game_id for r in store.race(race_id).racers if r.seat == 1)  # type: ignore[union-attr]
        left = rival.post(f"/races/{race_id}/leave", headers={"HX-Request": "true"})
        assert left.status_code == 204 and left.headers["HX-Redirect"] == "/new"
        refused = rival.post(f"/api/games/{theirs}/draw")
        assert refused.status_code == 409 and "You left this race" in refused.text
        watching = client.get(url).text
        assert "racer-gone" in watching and 'id="race-finish"' not in watching

        mine = next(r.game_id for r in store.race(race_id).racers if r.seat == 0)  # type: ignore[union-attr]
        for action in line:
            path = "draw" if action < 0 else "remove"
            answer = client.post(f"/games/{mine}/{path}", data={} if action < 0 else {"position": action},
                                 headers={"HX-Request": "true"})
            assert answer.status_code == 200
        finished = client.get(url).text  # at once: not at the ten-minute limit
        assert 'id="race-finish"' in finished and 'id="race-again"' in finished
        assert client.get(f"/api/races/{race_id}").json()["racers"][1]["status"] == "gone"
        hebrew = rival.post(f"/api/games/{theirs}/draw", headers={"Accept-Language": "he"})
        assert hebrew.status_code == 409  # over now
        assert rival.post("/races/nosuchrace00/leave").status_code == 404
