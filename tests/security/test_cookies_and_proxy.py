"""Cookies: HttpOnly and SameSite=Lax always, Secure over https; forwarded headers only when trusted."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.support.apps import AppFactory
from tests.support.pages import CODE, HX, game_id_of

PROXY = ("127.0.0.1", 40000)


def set_cookies(response: object) -> dict[str, str]:
    """name → the whole Set-Cookie line."""
    lines = response.headers.get_list("set-cookie")  # type: ignore[attr-defined]
    return {line.split("=", 1)[0]: line for line in lines}


def flags(line: str) -> set[str]:
    return {part.strip().split("=")[0].lower() for part in line.split(";")[1:]}


def all_cookies(client: TestClient, *, headers: dict[str, str] | None = None) -> dict[str, str]:
    """Every cookie the app sets: the player's, the language's, error help's."""
    found = set_cookies(client.get(f"/g/{CODE}", headers=headers))
    found |= set_cookies(client.post("/settings/language", data={"lang": "he"}, headers=headers, follow_redirects=False))
    found |= set_cookies(client.post("/settings/error-help", headers={**HX, **(headers or {})}))
    assert set(found) == {"tp_player", "tp_lang", "tp_error_help"}, found
    return found


def test_cookies_over_plain_http_are_httponly_and_lax_but_not_secure(make_client: AppFactory) -> None:
    for name, line in all_cookies(make_client()).items():
        assert {"httponly", "samesite"} <= flags(line), name
        assert "samesite=lax" in line.lower().replace(" ", ""), name
        assert "secure" not in flags(line), name


def test_every_cookie_is_secure_over_https(make_client: AppFactory) -> None:
    client = make_client(client_kwargs={"base_url": "https://testserver"})
    for name, line in all_cookies(client).items():
        assert {"httponly", "secure"} <= flags(line), name
    # A returning player (no new player cookie) still gets Secure on what the routes set.
    again = client.post("/settings/error-help", headers=HX)
    assert "tp_player" not in set_cookies(again)
    assert "secure" in flags(set_cookies(again)["tp_error_help"])
    assert list(set_cookies(again)) == ["tp_error_help"]  # one line per cookie, none doubled


def test_cookie_secure_setting_marks_them_over_http_too(make_client: AppFactory) -> None:
    for name, line in all_cookies(make_client(cookie_secure=True)).items():
        assert "secure" in flags(line), name


def test_forwarded_headers_are_ignored_unless_trusted(make_client: AppFactory) -> None:
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.5"}
    client = make_client(client_kwargs={"client": PROXY})  # TRIPEAKS_TRUST_PROXY off (the default)
    for name, line in all_cookies(client, headers=forwarded).items():
        assert "secure" not in flags(line), name
    limited = make_client(rate_limits=True, rate_limit_new_games="1/minute", client_kwargs={"client": PROXY})
    first = limited.post("/api/games", json={}, headers=forwarded)
    second = limited.post("/api/games", json={}, headers={**forwarded, "X-Forwarded-For": "203.0.113.6"})
    assert (first.status_code, second.status_code) == (201, 429)  # one client: the proxy's address


def test_a_trusted_proxy_gives_the_scheme_and_the_client_address(make_client: AppFactory) -> None:
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.5"}
    client = make_client(trust_proxy=True, client_kwargs={"client": PROXY})
    for name, line in all_cookies(client, headers=forwarded).items():
        assert "secure" in flags(line), name
    limited = make_client(trust_proxy=True, rate_limits=True, rate_limit_new_games="1/minute",
                          client_kwargs={"client": PROXY})
    statuses = [
        limited.post("/api/games", json={}, headers={**forwarded, "X-Forwarded-For": address}).status_code
        for address in ("203.0.113.5", "203.0.113.6", "203.0.113.5")
    ]
    assert statuses == [201, 201, 429]  # each client behind the proxy counted by its own address


def test_a_proxy_not_in_forwarded_allow_ips_is_not_believed(make_client: AppFactory) -> None:
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.5"}
    client = make_client(trust_proxy=True, forwarded_allow_ips="10.0.0.1", client_kwargs={"client": PROXY})
    line = set_cookies(client.get(f"/g/{CODE}", headers=forwarded))["tp_player"]
    assert "secure" not in flags(line)
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    assert client.post(f"/games/{game_id}/draw", headers={**HX, **forwarded}).status_code == 200


def test_a_checked_cookie_is_remembered_but_a_forged_one_never_is() -> None:
    """The player cookie's signature is checked once per token (app/web/middleware/player_cookie.py): the
    token's player is remembered; a forged or tampered token is refused every time, and the
    remembered tokens are bounded."""
    from app.web.middleware import player_cookie as players

    middleware = players.PlayerCookieMiddleware(lambda *_: None, secret="s" * 32)  # type: ignore[arg-type]
    token = middleware.signer.dumps("p" * 22)
    assert middleware.player_from(token) == "p" * 22
    assert middleware.player_from(token) == "p" * 22  # remembered
    forged = players.PlayerCookieMiddleware(lambda *_: None, secret="t" * 32).signer.dumps("q" * 22)  # type: ignore[arg-type]
    tampered = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    for bad in (forged, tampered):
        assert middleware.player_from(bad) is None
        assert middleware.player_from(bad) is None
        assert bad not in middleware._known
    for number in range(players.KNOWN_TOKENS_MOST + 5):
        middleware.player_from(middleware.signer.dumps(f"{number:022d}"))
    assert len(middleware._known) <= players.KNOWN_TOKENS_MOST
    assert middleware.player_from(token) == "p" * 22  # forgotten, then checked again
