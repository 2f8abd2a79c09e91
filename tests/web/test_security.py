"""Security headers and refusal of cross-site state changes."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.web.conftest import HX, game_id_of


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
