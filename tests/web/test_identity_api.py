"""A player on every device through the JSON API and the pages (issue 38), in process at a fixed
clock: the routes' exact shapes and codes, every refusal (wrong, used, expired, CSRF), devices
signed out, a cookie of before devices, personal tokens, the export, Delete me, the API's games
belonging to the cookie's player, and link codes kept out of the access log."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.engine import DRAW, Rules
from app.store import MemoryStore
from app.store.codes import ALPHABET, LINK_CODE_LENGTH, bits
from app.web.main import create_app
from app.web.middleware.player_cookie import PlayerCookies
from app.web.settings import Settings
from tests.support.deals import won_deal
from tests.support.pages import CODE, HX, game_id_of
from tests.support.store import Clock

KEY = "identity-test-key-" + "k" * 20
CROSS_SITE = {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}
SYMBOL = f"[{ALPHABET}]"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(clock: Clock) -> MemoryStore:
    return MemoryStore(clock=clock)


@pytest.fixture
def app(store: MemoryStore, tmp_path: Path):  # type: ignore[no-untyped-def]
    return create_app(
        Settings(secret_key=KEY, database_url="memory://", data_dir=tmp_path, rate_limits=False), store=store
    )


@pytest.fixture
def browsers(app) -> Iterator[Callable[[], TestClient]]:  # type: ignore[no-untyped-def]
    """Open browsers on the app (each its own cookies), closed after the test."""
    with ExitStack() as opened:
        yield lambda: opened.enter_context(TestClient(app))


@pytest.fixture
def ann(browsers: Callable[[], TestClient]) -> TestClient:
    return browsers()


@pytest.fixture
def phone(browsers: Callable[[], TestClient]) -> TestClient:
    return browsers()


@pytest.fixture
def third(browsers: Callable[[], TestClient]) -> TestClient:
    return browsers()


def play_won_game(client: TestClient) -> str:
    """A won page game of the client's player; its id."""
    code, line = won_deal(Rules.EASY)
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for action in line:
        path = f"/games/{game_id}/draw" if action == DRAW else f"/games/{game_id}/remove"
        response = client.post(path, data={} if action == DRAW else {"position": action}, headers=HX)
        assert response.status_code == 200
    return game_id


def player_of(store: MemoryStore, client: TestClient) -> str:
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    owner = store.get(game_id).owner  # type: ignore[union-attr]
    assert owner is not None
    return owner


def link_code(client: TestClient) -> dict[str, str]:
    made = client.post("/api/players/me/link-codes")
    assert made.status_code == 201, made.text
    return made.json()  # type: ignore[no-any-return]


def test_a_link_code_makes_a_second_browser_the_same_player(
    ann: TestClient, phone: TestClient, clock: Clock
) -> None:
    assert ann.put("/api/players/me/name", json={"name": "Ann"}).status_code == 200
    play_won_game(ann)
    made = link_code(ann)
    assert set(made) == {"code", "url", "expires_at"}
    assert (
        re.fullmatch(rf"{SYMBOL}{{3}}-{SYMBOL}{{3}}-{SYMBOL}{{3}}", made["code"])
        and bits(LINK_CODE_LENGTH) >= 40
    )
    assert made["url"] == "http://testserver/link/" + made["code"].replace("-", "")
    assert made["expires_at"].startswith("2027-01-15T08:")  # the store's clock + 10 minutes
    phone.get("/stats")
    before = phone.cookies["tp_player"]
    typed = made["code"].lower().replace("-", " ")  # any case, separators ignored
    answer = phone.post("/api/link", json={"code": typed, "bring_history": False})
    assert answer.status_code == 200, answer.text
    assert answer.json()["display_name"] == "Ann" and answer.json()["stats"][0]["won"] == 1
    assert phone.cookies["tp_player"] != before and phone.cookies["tp_player"] != ann.cookies["tp_player"]
    assert phone.get("/api/players/me/stats").json() == ann.get("/api/players/me/stats").json()
    assert "Playing as Ann." in phone.get("/stats").text
    devices = ann.get("/api/players/me/devices").json()
    assert len(devices) == 2 and sorted(d["this_device"] for d in devices) == [False, True]
    assert set(devices[0]) == {"id", "kind", "last_seen", "this_device"}


def test_a_wrong_used_or_expired_code_is_the_same_404_and_changes_nothing(
    ann: TestClient, phone: TestClient, clock: Clock
) -> None:
    phone.get("/stats")
    before = dict(phone.cookies)
    made = link_code(ann)["code"]
    wrong = "".join("2" if c != "2" else "3" for c in made.replace("-", ""))
    answers = [phone.post("/api/link", json={"code": code}) for code in (wrong, "O0I1L-xx", "", "K" * 300)]
    assert phone.post("/api/link", json={"code": made}).status_code == 200
    used = phone.post("/api/link", json={"code": made})
    late = link_code(ann)["code"]
    clock.advance(600)
    expired = phone.post("/api/link", json={"code": late})
    for answer in [*answers[:3], used, expired]:
        assert answer.status_code == 404 and "10 minutes" in answer.json()["detail"], answer.text
    assert answers[3].status_code == 422  # longer than any code could be
    assert expired.json() == used.json() == answers[0].json()
    assert before["tp_player"] != phone.cookies["tp_player"]  # only the one that worked changed it


def test_codes_and_forms_from_another_site_are_refused(ann: TestClient, phone: TestClient) -> None:
    made = link_code(ann)["code"]
    phone.get("/stats")
    before = dict(phone.cookies)
    refused = [
        phone.post("/api/link", json={"code": made}, headers=CROSS_SITE),
        phone.post("/link", data={"code": made}, headers=CROSS_SITE),
        ann.post("/api/players/me/link-codes", headers=CROSS_SITE),
        ann.post("/players/me/delete", data={"confirm": "yes"}, headers=CROSS_SITE),
        ann.delete("/api/players/me", headers=CROSS_SITE),
        ann.post("/devices/tokens", headers=CROSS_SITE),
    ]
    assert [r.status_code for r in refused] == [403] * 6
    assert dict(phone.cookies) == before
    assert phone.post("/api/link", json={"code": made}).status_code == 200  # still live: nothing used it


def test_a_recovery_code_brings_the_player_back_and_a_new_one_voids_it(
    ann: TestClient, phone: TestClient
) -> None:
    ann.put("/api/players/me/name", json={"name": "Ann"})
    first = ann.post("/api/players/me/recovery-code")
    assert first.status_code == 201 and set(first.json()) == {"code"}
    code = first.json()["code"]
    assert re.fullmatch(rf"({SYMBOL}{{4}}-){{7}}{SYMBOL}{{4}}", code) and bits(26) >= 128
    answer = phone.post("/api/recover", json={"code": code.lower()})
    assert answer.status_code == 200 and answer.json()["display_name"] == "Ann"
    assert phone.post("/api/recover", json={"code": code}).status_code == 200  # it stays good
    second = ann.post("/api/players/me/recovery-code").json()["code"]
    assert second != code
    assert phone.post("/api/recover", json={"code": code}).status_code == 404
    assert (
        phone.post("/api/recover", json={"code": code[:-1] + ("2" if code[-1] != "2" else "3")}).status_code
        == 404
    )


def test_a_device_signed_out_is_a_new_player_at_its_next_request(
    ann: TestClient, phone: TestClient, store: MemoryStore
) -> None:
    ann.put("/api/players/me/name", json={"name": "Ann"})
    phone.post("/api/link", json={"code": link_code(ann)["code"]})
    phone_device = next(d["id"] for d in phone.get("/api/players/me/devices").json() if d["this_device"])
    assert ann.delete("/api/players/me/devices/unknown-device-id").status_code == 404
    assert ann.delete(f"/api/players/me/devices/{phone_device}").status_code == 204
    after = phone.get("/api/players/me/stats")
    assert after.json()["display_name"] is None and "tp_player=" in after.headers["set-cookie"]
    assert [d["this_device"] for d in ann.get("/api/players/me/devices").json()] == [True]
    assert ann.delete(f"/api/players/me/devices/{phone_device}").status_code == 404  # gone already
    # Signing out this device: its cookie goes, and it is someone new.
    own = ann.get("/api/players/me/devices").json()[0]["id"]
    gone = ann.delete(f"/api/players/me/devices/{own}")
    assert gone.status_code == 204 and "Max-Age=0" in gone.headers["set-cookie"]
    assert ann.get("/api/players/me/stats").json()["display_name"] is None


def test_sign_out_every_other_device_from_the_page(
    ann: TestClient, phone: TestClient, third: TestClient
) -> None:
    ann.put("/api/players/me/name", json={"name": "Ann"})
    for other in (phone, third):
        other.post("/api/link", json={"code": link_code(ann)["code"]})
    page = ann.get("/devices").text
    assert page.count('class="device') >= 3 and "(this device)" in page
    done = ann.post("/devices/sign-out-others", follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/devices?signed_out=2"
    assert "Signed out 2 devices" in ann.get(done.headers["location"]).text
    for other in (phone, third):
        assert other.get("/api/players/me/stats").json()["display_name"] is None
    assert ann.get("/api/players/me/stats").json()["display_name"] == "Ann"


def test_a_cookie_of_before_devices_keeps_working_and_can_be_signed_out(
    app,
    store: MemoryStore,  # type: ignore[no-untyped-def]
) -> None:
    cookies = PlayerCookies(KEY)
    old = cookies.signer.dumps("old-player-0123456789")  # the player id alone, as before issue 38
    with TestClient(app) as legacy:
        legacy.cookies.set("tp_player", old)
        first = legacy.put("/api/players/me/name", json={"name": "Old"})
        assert first.status_code == 200 and "set-cookie" not in first.headers  # nothing rewritten
        assert legacy.get("/api/players/me/stats").json()["display_name"] == "Old"
        (device,) = legacy.get("/api/players/me/devices").json()
        assert device["id"] == cookies.legacy_device("old-player-0123456789") and device["this_device"]
        with TestClient(app) as other:
            other.post("/api/link", json={"code": link_code(legacy)["code"]})
            assert other.delete(f"/api/players/me/devices/{device['id']}").status_code == 204
        again = legacy.get("/api/players/me/stats")
        assert again.json()["display_name"] is None and "tp_player=" in again.headers["set-cookie"]
        legacy.cookies.set("tp_player", old)  # the old value, replayed: still signed out
        assert legacy.get("/api/players/me/stats").json()["display_name"] is None


def test_a_personal_token_acts_as_the_player_on_the_api_until_revoked(
    app,
    ann: TestClient,
    store: MemoryStore,  # type: ignore[no-untyped-def]
) -> None:
    made = ann.post("/api/players/me/tokens")
    assert made.status_code == 201 and set(made.json()) == {"token"}
    token = made.json()["token"]
    assert token.startswith("tpk_")
    bearer = {"Authorization": f"Bearer {token}"}
    with TestClient(app) as bot:
        game = bot.post("/api/games", json={"code": CODE}, headers=bearer)
        assert game.status_code == 201 and "set-cookie" not in game.headers
        assert store.get(game.json()["id"]).owner == player_of(store, ann)  # type: ignore[union-attr]
        assert bot.post("/api/players/me/link-codes", headers=bearer).status_code == 403  # a browser's job
        assert bot.delete("/api/players/me", headers=bearer).status_code == 403
        refused = bot.get("/api/players/me/stats", headers={"Authorization": "Bearer tpk_nope.nope"})
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        (listed,) = ann.get("/api/players/me/tokens").json()
        assert token.startswith(f"tpk_{listed['id']}.")
        assert ann.delete("/api/players/me/tokens/nope").status_code == 404
        assert ann.delete(f"/api/players/me/tokens/{listed['id']}").status_code == 204
        assert bot.get("/api/players/me/stats", headers=bearer).status_code == 401


def test_a_game_made_through_the_api_with_a_cookie_is_that_players(
    app,
    ann: TestClient,
    store: MemoryStore,  # type: ignore[no-untyped-def]
) -> None:
    code, line = won_deal(Rules.EASY)
    ann.put("/api/players/me/name", json={"name": "Ann"})
    game_id = ann.post("/api/games", json={"code": code.text()}).json()["id"]
    for action in line:
        path = f"/api/games/{game_id}/draw" if action == DRAW else f"/api/games/{game_id}/remove"
        assert ann.post(path, json=None if action == DRAW else {"position": action}).status_code == 200
    assert ann.get("/api/players/me/stats").json()["stats"][0]["won"] == 1
    record = ann.get(f"/api/deals/{code.text()}/record").json()
    assert record["first_win"]["by"] == "Ann" and record["first_win"]["you"]
    with TestClient(app) as nobody:  # no cookie: a game of nobody's, as before
        orphan = nobody.post("/api/games", json={"code": CODE}).json()["id"]
    assert store.get(orphan).owner is None  # type: ignore[union-attr]


def test_download_my_data_then_delete_me(app, ann: TestClient, phone: TestClient, store: MemoryStore) -> None:  # type: ignore[no-untyped-def]
    ann.put("/api/players/me/name", json={"name": "Ann"})
    won = play_won_game(ann)
    ann.post("/api/players/me/recovery-code")
    phone.post("/api/link", json={"code": link_code(ann)["code"]})
    exported = ann.get("/api/players/me/export")
    assert exported.status_code == 200 and "attachment" in exported.headers["content-disposition"]
    data = exported.json()
    assert data["player"]["display_name"] == "Ann" and [r["game_id"] for r in data["results"]] == [won]
    assert len(data["devices"]) == 2 and data["recovery_code"] is not None
    assert {"statistics", "daily_attempts", "games", "passkeys", "personal_tokens", "race_seats"} <= set(data)
    assert "digest" not in exported.text and "scrypt" not in exported.text

    assert ann.get("/players/me/delete").status_code == 200
    unconfirmed = ann.post("/players/me/delete", data={})
    assert unconfirmed.status_code == 400 and store.display_name(data["player"]["id"]) == "Ann"
    done = ann.post("/players/me/delete", data={"confirm": "yes"}, follow_redirects=False)
    assert done.status_code == 303 and "Max-Age=0" in done.headers["set-cookie"]
    code = store.result(won).code  # type: ignore[union-attr]
    assert store.result(won).player is None  # type: ignore[union-attr]  # the result stays, anonymous
    for client in (ann, phone):
        assert client.get("/api/players/me/stats").json()["display_name"] is None
    record = phone.get(f"/api/deals/{code}/record").json()
    assert record["wins"] == 1 and record["first_win"]["by"] is None and not record["first_win"]["you"]


def test_bring_history_along_through_the_api(ann: TestClient, phone: TestClient) -> None:
    play_won_game(ann)
    play_won_game(phone)
    phone.put("/api/players/me/name", json={"name": "Phone"})
    answer = phone.post("/api/link", json={"code": link_code(ann)["code"], "bring_history": True})
    assert answer.status_code == 200
    assert answer.json()["stats"][0]["won"] == 2 and answer.json()["display_name"] == "Phone"
    assert ann.get("/api/players/me/stats").json() == answer.json()


def test_the_link_page_asks_about_the_history_and_only_its_post_uses_the_code(
    ann: TestClient, phone: TestClient
) -> None:
    made = link_code(ann)["code"].replace("-", "")
    play_won_game(phone)
    page = phone.get(f"/link/{made}")
    assert page.status_code == 200 and 'name="bring_history"' in page.text and made[:3] in page.text
    unanswered = phone.post("/link", data={"code": made})
    assert unanswered.status_code == 400 and "bring this browser" in unanswered.text
    wrong = phone.post("/link", data={"code": "222-222-222", "bring_history": "no"})
    assert wrong.status_code == 404 and "10 minutes" in wrong.text
    done = phone.post("/link", data={"code": made, "bring_history": "no"}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/stats?linked=1"
    assert "This browser is now your player" in phone.get("/stats?linked=1").text


def test_the_link_code_page_and_its_htmx_block_show_the_code_qr_and_link(ann: TestClient) -> None:
    page = ann.post("/devices/link-code")
    assert page.status_code == 200 and "<html" in page.text
    block = ann.post("/devices/link-code", headers=HX)
    assert block.text.lstrip().startswith('<section id="link-code"')
    code = re.search(r'id="link-code-value"[^>]*>([^<]+)<', block.text).group(1)  # type: ignore[union-attr]
    assert f'value="http://testserver/link/{code.replace("-", "")}"' in block.text
    assert '<svg role="img" aria-label="QR code of the link"' in block.text
    assert ann.post("/api/link", json={"code": code}).status_code == 200  # the newest code is live
    assert "Add a device" in ann.get("/stats").text


def test_passkeys_say_why_they_cannot_work_at_an_ip_address_or_without_a_public_url(ann: TestClient) -> None:
    page = ann.get("/devices", headers={"host": "127.0.0.1:8000"}).text
    assert 'id="passkeys-off"' in page and "http://localhost" in page
    plain = ann.get("/link").text  # testserver: no public URL
    assert "TRIPEAKS_PUBLIC_URL" in plain and 'id="passkey-sign-in-button"' not in plain
    assert ann.post("/api/passkeys/options").status_code == 409
    assert 'id="add-passkey-button"' in ann.get("/devices", headers={"host": "localhost:8000"}).text


def test_a_link_code_is_not_in_the_access_log(ann: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    made = link_code(ann)["code"].replace("-", "")
    with caplog.at_level(logging.INFO, logger="tripeaks.access"):
        assert ann.get(f"/link/{made}?x=1").status_code == 200
    lines = [r.getMessage() for r in caplog.records if r.name == "tripeaks.access"]
    assert any('"GET /link/<code> HTTP' in line for line in lines), lines
    assert not any(made in line for line in lines)


def test_a_path_outside_the_identity_routes_tries_none_of_them(
    ann: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FastAPI tries every route of every router in turn (a few µs each): the identity routers say
    "not mine" to any other path at once, so the requests matched after them (the benchmark's
    trivial page, static files, a 404) cost what they did before issue 38 (app/web/prefixed.py)."""
    from fastapi.routing import APIRoute

    from app.web.routes import devices, identity_api

    ours = {id(route) for module in (devices, identity_api) for route in module.router.routes}
    tried: list[str] = []
    original = APIRoute.matches

    def counting(route: APIRoute, scope: Any) -> Any:
        if id(route) in ours:
            tried.append(route.path)
        return original(route, scope)

    monkeypatch.setattr(APIRoute, "matches", counting)
    assert ann.get("/no/such/page").status_code == 404
    assert ann.get("/static/tripeaks.css").status_code == 200
    assert tried == []
    assert ann.get("/devices").status_code == 200 and tried  # its own paths still reach them
