"""Security headers and refusal of cross-site state changes."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.store import MemoryStore
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.pages import HX, game_id_of


def test_pages_carry_a_strict_content_security_policy(client: TestClient) -> None:
    page = client.get("/g/TP1-E-AAAAAAB")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "same-origin"
    assert "<script>" not in page.text and " on" + "click=" not in page.text  # no inline script
    assert client.get("/api/games/nope").headers["content-security-policy"] == csp


def test_cross_site_posts_are_refused_and_change_nothing(client: TestClient) -> None:
    game_id = game_id_of(client.get("/g/TP1-E-AAAAAAB").text)
    for headers in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
    ):
        response = client.post(f"/games/{game_id}/draw", headers={**HX, **headers})
        assert response.status_code == 403, headers
        assert "another site" in response.json()["detail"]
    assert 'id="moves">0<' in client.get("/g/TP1-E-AAAAAAB").text
    ok = client.post(f"/games/{game_id}/draw", headers={**HX, "Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 200
    same_host = client.post(f"/games/{game_id}/draw", headers={**HX, "Origin": "http://testserver"})
    assert same_host.status_code == 200
    assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200  # no browser headers: a tool


def test_a_fault_no_handler_answers_is_a_500_with_every_security_header(app_settings: Settings) -> None:
    """A bug, or a database error the store does not know: the 500 carries the CSP and the other
    headers, as every answer does (Starlette's own 500 is sent outside every middleware). The
    fault goes on to the server (uvicorn logs its traceback), never to the client."""
    app = create_app(app_settings, store=MemoryStore())

    async def broken() -> None:
        raise RuntimeError("a fault of the test's own")

    app.add_api_route("/api/broken", broken)
    app.add_api_route("/broken", broken)
    with TestClient(app) as client, pytest.raises(RuntimeError, match="of the test's own"):
        client.get("/broken")  # raised on past the answer: the server logs it
    with TestClient(app, raise_server_exceptions=False) as client:
        expected = client.get("/g/TP1-E-AAAAAAB").headers
        for path in ("/api/broken", "/broken"):
            response = client.get(path)
            assert response.status_code == 500, path
            for header in SECURITY_HEADERS:
                assert response.headers[header] == expected[header], (path, header)
            assert response.headers["x-request-id"]
            assert "a fault of the test's own" not in response.text and "Traceback" not in response.text


SECURITY_HEADERS = (
    "content-security-policy",
    "x-content-type-options",
    "referrer-policy",
    "x-frame-options",
    "cross-origin-opener-policy",
)
