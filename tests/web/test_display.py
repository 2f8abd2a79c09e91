"""The Display page: card back, table and deck, remembered as cookies, shown as classes on <html>."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def html_classes(html: str) -> str:
    found = re.search(r'<html [^>]*class="([^"]*)"', html)
    assert found, "no class on <html>"
    return found.group(1)


def test_the_games_own_look_until_the_player_chooses(client: TestClient) -> None:
    page = client.get("/g/TP1-E-AAAAAAB")
    assert html_classes(page.text) == "back-blue table-green deck-two"
    assert '<meta name="theme-color" content="#0b5a33">' in page.text
    assert 'href="/display"' in page.text  # from the New game window
    display = client.get("/display")
    assert display.status_code == 200
    for field, value in (("back", "blue"), ("table", "green"), ("deck", "two")):
        assert re.search(rf'name="{field}" value="{value}" checked', display.text)


def test_a_choice_is_remembered_on_every_page(client: TestClient) -> None:
    saved = client.post("/display", data={"back": "lattice", "table": "wine", "deck": "four"}, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"] == "/display?saved=1"
    cookies = [c for c in saved.headers.get_list("set-cookie") if not c.startswith("tp_player=")]
    assert len(cookies) == 3 and all("HttpOnly" in c and "Max-Age=34560000" in c for c in cookies)
    for path in ("/g/TP1-E-AAAAAAB", "/stats", "/how-to-play", "/display?saved=1"):
        page = client.get(path)
        assert html_classes(page.text) == "back-lattice table-wine deck-four", path
    assert '<meta name="theme-color" content="#5c1a2a">' in client.get("/stats").text
    assert 'id="display-saved"' in client.get("/display?saved=1").text


def test_a_choice_the_page_never_offers_is_refused_and_changes_nothing(client: TestClient) -> None:
    client.post("/display", data={"back": "red", "table": "blue", "deck": "two"})
    for bad in ({"back": "purple", "table": "blue", "deck": "two"}, {"back": "red", "table": "blue"},
                {"back": "red", "table": "x" * 50, "deck": "two"}):  # fmt: skip
        refused = client.post("/display", data=bad, follow_redirects=False)
        assert refused.status_code == 422 and "set-cookie" not in refused.headers
        if "x" * 50 not in bad.values():  # (too long: the app's own "not a request" page)
            assert 'id="display-error"' in refused.text
    assert html_classes(client.get("/stats").text) == "back-red table-blue deck-two"
    # A forged cookie is ignored: the game's own look.
    client.cookies.set("tp_back", "<script>")
    assert html_classes(client.get("/stats").text) == "back-blue table-blue deck-two"
