"""The installable app over HTTP: its manifest, its service worker and the offline page."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from app.web.middleware.security import CSP
from app.web.ops.install import TABLE_COLOUR


def test_the_manifest_names_the_app_its_icons_and_the_table_colour(client: TestClient) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/manifest+json")
    assert "set-cookie" not in response.headers  # no player is made for it
    manifest = response.json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert manifest["theme_color"] == manifest["background_color"] == TABLE_COLOUR
    sizes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        png = client.get(icon["src"])
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
        width, height = int.from_bytes(png.content[16:20], "big"), int.from_bytes(png.content[20:24], "big")
        assert f"{width}x{height}" == icon["sizes"]
    # The table's colour is the felt's in the stylesheet.
    css = client.get("/static/tripeaks.css").text
    assert f"--felt: {TABLE_COLOUR};" in css


def test_the_manifest_speaks_the_browsers_language(client: TestClient) -> None:
    hebrew = client.get("/manifest.webmanifest", headers={"Accept-Language": "he"}).json()
    english = client.get("/manifest.webmanifest", headers={"Accept-Language": "en"}).json()
    assert hebrew["lang"] == "he" and hebrew["dir"] == "rtl"
    assert hebrew["name"] != english["name"]


def test_the_worker_keeps_only_static_files_and_the_offline_page(client: TestClient) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["cache-control"] == "no-cache"
    setup = json.loads(response.text.split("\n", 1)[0].removeprefix("self.TRIPEAKS = ").rstrip(";"))
    assert setup["keep"][0] == "/offline"
    assert all(url.startswith("/static/") for url in setup["keep"][1:])
    for url in setup["keep"]:
        assert client.get(url).status_code == 200


def test_the_page_links_the_manifest_and_the_csp_allows_the_worker(client: TestClient) -> None:
    page = client.get("/g/TP1-E-AAAAAAB")
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page.text
    assert "manifest-src 'self'" in CSP and "worker-src 'self'" in CSP
    assert page.headers["content-security-policy"] == CSP


def test_the_offline_page_is_in_the_players_language(client: TestClient) -> None:
    english = client.get("/offline")
    client.post("/settings/language", data={"lang": "uk"})
    ukrainian = client.get("/offline")
    assert english.status_code == ukrainian.status_code == 200
    assert '<html lang="uk"' in ukrainian.text and 'id="offline"' in ukrainian.text
    assert english.text.split("<h1>")[1].split("</h1>")[0] != ukrainian.text.split("<h1>")[1].split("</h1>")[0]
