"""Rate limits: per client address for new games and pages, per player for actions and hints."""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import socket
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.store import MemoryStore
from app.web.middleware.ratelimit import parse_limits
from tests.support.apps import NOW, AppFactory, settings
from tests.support.pages import CODE, HX, game_id_of

REDIS_URL = os.environ.get("TRIPEAKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
DOCUMENTATION_IPV6 = int(ipaddress.IPv6Address("2001:db8::"))  # 2001:db8::/32, for examples


def away_from_the_end_of_a_window(seconds: int) -> None:
    """Redis keeps its own time: start a few requests well inside one window of ``seconds``."""
    into = time.time() % seconds
    if into > seconds - 10:
        time.sleep(seconds - into + 0.1)  # waits for the wall clock to pass a window's end


def moves_of(store: MemoryStore, game_id: str) -> int:
    stored = store.get(game_id)
    assert stored is not None
    return stored.game.moves


def status_attributes(html: str) -> dict[str, str]:
    match = re.search(r"<p id=\"status\"([^>]*)>", html)
    assert match, "no status line"
    return dict(re.findall(r'([\w:-]+)="([^"]*)"', match.group(1)))


def test_actions_over_the_limit_get_429_in_each_form_and_change_nothing(make_client: AppFactory) -> None:
    store = MemoryStore()
    client = make_client(store, rate_limits=True, rate_limit_actions="3/minute")
    page = client.get(f"/g/{CODE}")
    game_id = game_id_of(page.text)
    for _ in range(3):
        assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
    assert moves_of(store, game_id) == 3

    # htmx: the page's status line, swapped out of band; nothing else is touched.
    refused = client.post(f"/games/{game_id}/draw", headers=HX)
    assert refused.status_code == 429
    assert NOW % 60 == 30 and refused.headers["retry-after"] == "30"  # the next minute's start
    assert refused.text.count("<p") == 1 and 'hx-swap-oob="true"' in refused.text
    assert "Too many requests just now" in refused.text
    page_status = status_attributes(page.text)
    fragment_status = status_attributes(refused.text)
    assert fragment_status.pop("hx-swap-oob") == "true"
    assert fragment_status == page_status  # the same element as templates/game.html's status block
    # A plain form post: a small page that says so.
    plain = client.post(f"/games/{game_id}/draw")
    assert plain.status_code == 429 and "<h1>" in plain.text and "Too many requests just now" in plain.text
    assert plain.headers["content-type"].startswith("text/html") and "retry-after" in plain.headers
    # The JSON API, same player (the cookie): JSON.
    api = client.post("/api/games", json={"code": CODE}).json()["id"]
    answer = client.post(f"/api/games/{api}/draw")
    assert answer.status_code == 429 and "retry-after" in answer.headers
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json() == {
        "type": "urn:tripeaks:problem:too_many_requests",
        "title": "Too Many Requests",
        "status": 429,
        "detail": "Too many requests just now. Wait a moment, then try again.",
        "error": "too_many_requests",
    }
    assert moves_of(store, game_id) == 3 and moves_of(store, api) == 0
    # Reads are not limited.
    for _ in range(10):
        assert client.get(f"/api/games/{api}").status_code == 200


def test_the_message_is_in_the_players_language(make_client: AppFactory) -> None:
    client = make_client(rate_limits=True, rate_limit_actions="1/minute")
    api = client.post("/api/games", json={}).json()["id"]
    client.post(f"/api/games/{api}/draw")
    for lang, words in (("he", "יותר מדי בקשות"), ("uk", "Забагато запитів"), ("th", "มีคำขอมากเกินไป")):
        answer = client.post(f"/api/games/{api}/draw", headers={"Accept-Language": lang})
        assert answer.status_code == 429 and words in answer.json()["detail"]
        client.cookies.set("tp_lang", lang)
        page = client.post(f"/games/{api}/draw", headers=HX)
        assert page.status_code == 429 and words in page.text


def test_each_player_has_their_own_action_budget(make_client: AppFactory) -> None:
    alice = make_client(rate_limits=True, rate_limit_actions="2/minute")
    bob = TestClient(alice.app)  # same address, another cookie
    ids = {}
    for name, client in (("alice", alice), ("bob", bob)):
        ids[name] = game_id_of(client.get(f"/g/{CODE}").text)
    assert [alice.post(f"/games/{ids['alice']}/draw", headers=HX).status_code for _ in range(3)] == [200, 200, 429]
    assert [bob.post(f"/games/{ids['bob']}/draw", headers=HX).status_code for _ in range(3)] == [200, 200, 429]


def test_fresh_cookies_do_not_escape_the_limit_of_an_address(make_client: AppFactory) -> None:
    client = make_client(rate_limits=True, rate_limit_actions="2/minute", rate_limit_actions_per_address="5/minute")
    api = client.post("/api/games", json={}).json()["id"]
    statuses = []
    for _ in range(7):  # a client that drops its cookie each time: counted by its address
        client.cookies.clear()
        statuses.append(client.post(f"/api/games/{api}/draw").status_code)
    assert statuses == [200, 200, 429, 429, 429, 429, 429]
    other = TestClient(client.app, client=("203.0.113.9", 1234))
    statuses = []
    for _ in range(7):  # a valid fresh cookie each time: the address's ceiling stops it
        other.cookies.clear()
        other.get("/stats")  # a new signed cookie
        statuses.append(other.post(f"/api/games/{api}/draw").status_code)
    assert statuses[:5] == [200] * 5 and statuses[5:] == [429, 429]


def test_new_games_are_limited_per_address(make_client: AppFactory) -> None:
    store = MemoryStore()
    client = make_client(store, rate_limits=True, rate_limit_new_games="4/minute")
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    assert client.post("/new", data={"rules": "easy"}, follow_redirects=False).status_code == 303
    assert client.post("/api/games", json={}).status_code == 201
    assert client.post(f"/games/{game_id}/restart", headers=HX).status_code == 200
    assert client.post("/api/games", json={}).status_code == 201
    before = len(store._games)
    for response in (client.post("/new", data={"rules": "easy"}, headers=HX), client.post("/api/games", json={}),
                     client.post(f"/games/{game_id}/restart")):
        assert response.status_code == 429
    assert len(store._games) == before
    elsewhere = TestClient(client.app, client=("198.51.100.7", 4321))
    assert elsewhere.post("/api/games", json={}).status_code == 201


def test_pages_that_deal_are_limited_per_address(make_client: AppFactory) -> None:
    client = make_client(rate_limits=True, rate_limit_pages="3/minute")
    assert [client.get(f"/g/{CODE}").status_code for _ in range(3)] == [200] * 3
    refused = client.get(f"/g/{CODE}")
    assert refused.status_code == 429 and "<h1>" in refused.text
    assert client.get("/", follow_redirects=False).status_code == 429
    assert client.get("/stats").status_code == 200 and client.get("/healthz").status_code == 200


def test_the_daily_s_pages_are_limited_per_address_and_its_deals_as_new_games(make_client: AppFactory) -> None:
    """(350 past days from one cookie in 16 s made 350 rows and 200 games: no limit at all.)"""
    store = MemoryStore()
    client = make_client(store, rate_limits=True, rate_limit_pages="3/minute", rate_limit_new_games="2/minute")
    days = ["2026-06-01", "2026-06-02", "2026-06-03", "2026-06-04"]
    assert [client.get(f"/daily/{day}").status_code for day in days] == [200, 200, 200, 429]
    assert client.get("/api/daily/2026-06-05").status_code == 429
    assert client.get("/daily/calendar").status_code == 429
    other = TestClient(client.app, client=("198.51.100.8", 4321))
    made = [other.post(f"/daily/{day}", follow_redirects=False).status_code for day in days[:3]]
    assert made == [303, 303, 429]  # each deals a game: the new games' limit
    assert len(store._games) == 2 and len(store._daily) == 2


def test_hints_have_a_limit_of_their_own(make_client: AppFactory) -> None:
    client = make_client(rate_limits=True, rate_limit_hints="2/minute")
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    statuses = [client.post(f"/games/{game_id}/hint", headers=HX).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200  # moves go on


def test_off_turns_a_limit_or_all_of_them_off(make_client: AppFactory) -> None:
    one_off = make_client(rate_limits=True, rate_limit_actions="off", rate_limit_actions_per_address="off")
    api = one_off.post("/api/games", json={}).json()["id"]
    assert {one_off.post(f"/api/games/{api}/undo").status_code for _ in range(50)} == {409}
    all_off = make_client(rate_limits=False, rate_limit_new_games="1/minute")
    assert {all_off.post("/api/games", json={}).status_code for _ in range(5)} == {201}


def test_defaults_let_a_fast_human_play(tmp_path: Path) -> None:
    """The defaults: a player moving twice a second for ten minutes is never stopped."""
    limits = settings(tmp_path, rate_limits=True)
    for text in (limits.rate_limit_actions, limits.rate_limit_new_games, limits.rate_limit_pages):
        for item in parse_limits(text):
            assert item.amount / item.get_expiry() >= 1 / 60  # at least one a minute
    assert all(item.amount / item.get_expiry() >= 2 for item in parse_limits(limits.rate_limit_actions))


def test_bad_limit_settings_are_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="not a rate limit"):
        settings(tmp_path, rate_limit_actions="twenty a second")
    assert parse_limits("off") == () and len(parse_limits("20/second;600/minute")) == 2


def redis_reachable() -> bool:
    try:
        import redis  # noqa: F401
    except ImportError:
        return False
    host, port = REDIS_URL.removeprefix("redis://").split("/")[0].split(":")
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


# In CI (TRIPEAKS_REQUIRE_REDIS=1, set by .ci/run, which starts one) it runs, and fails without Redis.
@pytest.mark.skipif(not redis_reachable() and os.environ.get("TRIPEAKS_REQUIRE_REDIS") != "1",
                    reason=f"no Redis at {REDIS_URL} (or the redis package is missing)")
def test_processes_share_counters_in_redis(make_client: AppFactory) -> None:
    """Two apps (as two worker processes would be) count one client together."""
    options = {"rate_limits": True, "rate_limit_new_games": "3/hour", "rate_limit_storage": REDIS_URL}
    away_from_the_end_of_a_window(3600)
    # A key no other run has used: the Redis may be shared (CI uses one that already answers), and
    # the sliding window still counts the last window's hits, so one of 250 addresses could collide.
    address = (str(ipaddress.IPv6Address(DOCUMENTATION_IPV6 | secrets.randbits(96))), 1000)
    first = make_client(client_kwargs={"client": address}, **options)
    second = make_client(client_kwargs={"client": address}, **options)
    statuses = [client.post("/api/games", json={}).status_code for client in (first, second, first, second)]
    assert statuses == [201, 201, 201, 429]


def test_an_unreachable_shared_store_lets_requests_through(make_client: AppFactory) -> None:
    pytest.importorskip("redis")
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = make_client(rate_limits=True, rate_limit_new_games="1/minute", rate_limit_storage=f"redis://127.0.0.1:{port}")
    assert [client.post("/api/games", json={}).status_code for _ in range(3)] == [201, 201, 201]


def test_code_guessing_is_throttled_per_address_and_for_everyone(make_client: AppFactory) -> None:
    """Link codes tried (issue 38): a limit per client address, and a ceiling for the whole
    installation that many addresses together meet; recovery codes the same, with their own."""
    limits = {"rate_limit_codes": "3/minute", "rate_limit_codes_everyone": "5/minute",
              "rate_limit_recovery": "2/minute", "rate_limit_recovery_everyone": "3/minute"}
    first = make_client(rate_limits=True, client_kwargs={"client": ("198.51.100.1", 4000)}, **limits)
    wrong = {"code": "222-222-222"}
    assert [first.post("/api/link", json=wrong).status_code for _ in range(4)] == [404, 404, 404, 429]
    refused = first.post("/api/link", json=wrong)
    assert refused.status_code == 429 and refused.headers["retry-after"] == "30" and "Too many" in refused.json()["detail"]
    page = first.post("/link", data={"code": "222222222", "bring_history": "no"})
    assert page.status_code == 429 and "<h1>" in page.text  # the form: a page that says so
    second = TestClient(first.app, client=("198.51.100.2", 4000))
    assert [second.post("/api/link", json=wrong).status_code for _ in range(3)] == [404, 404, 429]  # 3 + 2: all
    third = TestClient(first.app, client=("198.51.100.3", 4000))
    assert third.post("/link", data={"code": "222222222", "bring_history": "no"}).status_code == 429
    # Recovery codes count apart, with their own (lower) limits; a new one made counts too.
    assert [third.post("/api/recover", json={"code": "2" * 32}).status_code for _ in range(3)] == [404, 404, 429]
    assert first.post("/api/players/me/recovery-code").status_code == 201
    assert second.post("/api/players/me/recovery-code").status_code == 429  # the ceiling: 3 for everyone


def test_making_and_joining_tables_are_limited_per_address(make_client: AppFactory) -> None:
    """Tables of friends (issue 39): made, joined or raced, each counts as a new game."""
    store = MemoryStore()
    client = make_client(store, rate_limits=True, rate_limit_new_games="3/minute")
    made = client.post("/api/tables", json={"name": "T"})
    assert made.status_code == 201
    token = made.json()["invite_url"].rsplit("/t/", 1)[1]
    assert client.post("/tables", data={"name": "U"}, follow_redirects=False).status_code == 303
    assert client.post("/api/tables/join", json={"token": token}).status_code == 200
    for response in (
        client.post("/api/tables", json={"name": "V"}),
        client.post("/api/tables/join", json={"token": token}),
        client.post(f"/t/{token}"),
    ):
        assert response.status_code == 429
    assert len(client.get("/api/tables").json()) == 2
