"""The pages and the JSON API in each language, over the ASGI app (TestClient)."""
# ruff: noqa: RUF001 - the tests hold Ukrainian text, whose letters look like Latin ones

from __future__ import annotations

import html as html_lib
import re

import pytest
from fastapi.testclient import TestClient

from app.engine import Game, Rules
from app.i18n import LANGUAGE_COOKIE, LANGUAGES
from app.i18n.locale import LANGUAGE_NAMES
from tests.support.catalogs import board_words, card_words, code_error, po
from tests.support.deals import won_deal
from tests.support.pages import HX, game_id_of, text_of

CODE = "TP1-E-AAAAAAB"
PAGE_WORDS = {
    "en": ("New game", "Undo", "Board in words"),
    "he": ("משחק חדש", "ביטול מהלך", "הלוח במילים"),
    "uk": ("Нова гра", "Скасувати хід", "Розклад словами"),
    "th": ("เกมใหม่", "ย้อนกลับ", "กระดานแบบข้อความ"),
}


def html_tag(html: str) -> str:
    """The page's <html> tag with only its language and direction (the Display choice adds a class)."""
    match = re.search(r"<html[^>]*>", html)
    assert match
    tag = match.group(0)
    kept = [
        found.group(0)
        for name in ("lang", "dir")
        if (found := re.search(rf'\b{name}="[^"]*"', tag))
    ]
    return "<html " + " ".join(kept) + ">"


def attribute(html: str, element_id: str, name: str) -> str:
    match = re.search(rf'<[^>]*id="{element_id}"[^>]*>', html)
    assert match, element_id
    value = re.search(rf'{name}="([^"]*)"', match.group(0))
    assert value, (element_id, name)
    return html_lib.unescape(value.group(1))


def code_error_text(html: str) -> str:
    """The refused code's message, without the markup that keeps the example code whole."""
    match = re.search(r'id="code-error"[^>]*>(.*?)</p>', html, re.S)
    assert match, "no #code-error"
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()


def use_cookie(client: TestClient, lang: str) -> None:
    client.cookies.set(LANGUAGE_COOKIE, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("how", ["accept-language", "cookie"])
def test_each_language_renders_the_page(client: TestClient, lang: str, how: str) -> None:
    if how == "cookie":
        use_cookie(client, lang)
        response = client.get(f"/g/{CODE}", headers={"Accept-Language": "de-DE,de;q=0.9"})
    else:
        response = client.get(f"/g/{CODE}", headers={"Accept-Language": f"{lang};q=0.9, de;q=0.5"})
    assert response.status_code == 200
    page = response.text
    direction = "rtl" if lang == "he" else "ltr"
    assert html_tag(page) == f'<html lang="{lang}" dir="{direction}">'
    for text in PAGE_WORDS[lang]:
        assert text in page
    game = Game.from_code(CODE)
    # Face-down cards are hidden from screen readers; the board in words names them.
    assert page.count('class="card back') == 18 == page.count('tabindex="-1" aria-hidden="true"')
    assert html_lib.escape(po(lang, "hidden card")) in text_of(page, "words-text")
    for p in range(18, 28):
        assert f'aria-label="{html_lib.escape(card_words(lang, game.deal.tableau[p]))}"' in page
    assert html_lib.escape(board_words(lang, game)) in page
    assert 'aria-current="true">' + LANGUAGE_NAMES[lang] in page  # the picker marks the language
    assert "Accept-Language" in response.headers["vary"] and "Cookie" in response.headers["vary"]


def test_english_is_the_default(client: TestClient) -> None:
    page = client.get(f"/g/{CODE}").text
    assert html_tag(page) == '<html lang="en" dir="ltr">'
    assert "Stock: 23 cards; waste: " in page


@pytest.mark.parametrize(
    "header",
    ["garbage", ";q=;;,", "q=0.5", "*", "zz-ZZ, xx;q=0.1", "he;q=0", "a" * 5000, ","],
)
def test_garbage_accept_language_gives_english(client: TestClient, header: str) -> None:
    response = client.get(f"/g/{CODE}", headers={"Accept-Language": header})
    assert response.status_code == 200
    assert html_tag(response.text) == '<html lang="en" dir="ltr">'


def test_bytes_that_are_not_text_in_the_header_give_english(client: TestClient) -> None:
    response = client.get(f"/g/{CODE}", headers=[(b"accept-language", b"\xff\xfe\x80he")])
    assert response.status_code == 200
    assert 'lang="en"' in html_tag(response.text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_refused_move_in_each_language(client: TestClient, lang: str) -> None:
    headers = {"Accept-Language": lang}
    game_id = game_id_of(client.get(f"/g/{CODE}", headers=headers).text)
    response = client.post(f"/games/{game_id}/remove", data={"position": 0}, headers={**HX, **headers})
    assert response.status_code == 409
    assert text_of(response.text, "status") == po(lang, "This card is blocked")
    wrong = next(p for p in range(18, 28) if p not in Game.from_code(CODE).playable_positions())
    response = client.post(f"/games/{game_id}/remove", data={"position": wrong}, headers={**HX, **headers})
    # The refusal names the waste card (issue 30).
    waste = Game.from_code(CODE).waste
    assert waste is not None
    reason = po(lang, "Rank must be one higher or lower")
    expected = po(lang, "%(reason)s. Waste: %(card)s.") % {"reason": reason, "card": card_words(lang, waste)}
    assert text_of(response.text, "status") == expected[:1].upper() + expected[1:]
    # Without htmx: the whole page, still in the language.
    response = client.post(f"/games/{game_id}/remove", data={"position": 0}, headers=headers)
    assert response.status_code == 409
    assert html_tag(response.text).startswith(f'<html lang="{lang}"')
    assert text_of(response.text, "status") == po(lang, "This card is blocked")


def test_the_hebrew_page_is_right_to_left(client: TestClient) -> None:
    page = client.get(f"/g/{CODE}", headers={"Accept-Language": "he-IL,he;q=0.9"}).text
    assert html_tag(page) == '<html lang="he" dir="rtl">'
    assert "הקלף" not in page  # nothing refused yet


@pytest.mark.parametrize(
    ("lang", "stock"),
    [
        (
            "en",
            {
                23: "Stock: 23 cards. Draw",
                21: "Stock: 21 cards. Draw",
                2: "Stock: 2 cards. Draw",
                1: "Stock: 1 card. Draw",
            },
        ),
        (
            "he",
            {
                23: "קופת משיכה: 23 קלפים. משיכת קלף",
                2: "קופת משיכה: שני קלפים. משיכת קלף",
                1: "קופת משיכה: קלף אחד. משיכת קלף",
            },
        ),
        (
            "uk",
            {
                23: "Прикуп: 23 карти. Узяти карту",
                21: "Прикуп: 21 карта. Узяти карту",
                20: "Прикуп: 20 карт. Узяти карту",
                1: "Прикуп: 1 карта. Узяти карту",
            },
        ),
        ("th", {23: "กองจั่ว: 23 ใบ จั่วไพ่", 1: "กองจั่ว: 1 ใบ จั่วไพ่"}),
    ],
)
def test_the_stock_label_has_the_right_plural(client: TestClient, lang: str, stock: dict[int, str]) -> None:
    use_cookie(client, lang)
    page = client.get(f"/g/{CODE}").text
    game_id = game_id_of(page)
    left = 23
    for count in sorted(stock, reverse=True):
        while left > count:
            page = client.post(f"/games/{game_id}/draw", headers=HX).text
            left -= 1
        assert attribute(page, "stock", "aria-label") == stock[count]


@pytest.mark.parametrize(
    ("lang", "ending"), [("en", "moves."), ("he", "מהלכים."), ("uk", None), ("th", "ตา")]
)
def test_a_won_game_says_so_in_the_language(client: TestClient, lang: str, ending: str | None) -> None:
    code, line = won_deal(Rules.EASY)
    use_cookie(client, lang)
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for action in line:
        if action < 0:
            page = client.post(f"/games/{game_id}/draw", headers=HX).text
        else:
            page = client.post(f"/games/{game_id}/remove", data={"position": action}, headers=HX).text
    status = text_of(page, "status")
    assert status[:1].isupper() or not status[:1].isalpha() or lang in ("he", "th")
    assert po(lang, "You won!") in status
    moves = len(line)
    assert str(moves) in status
    if ending is None:  # Ukrainian: 1, 21, 31 хід; 2-4, 22-24 ходи; else ходів
        ending = (
            "хід."
            if moves % 10 == 1 and moves % 100 != 11
            else "ходи."
            if 2 <= moves % 10 <= 4 and not 12 <= moves % 100 <= 14
            else "ходів."
        )
    assert status.endswith(ending)


def test_the_picker_sets_the_cookie_and_goes_back(client: TestClient) -> None:
    client.get(f"/g/{CODE}")
    response = client.post(
        "/settings/language",
        data={"lang": "uk"},
        headers={"Referer": f"http://testserver/g/{CODE}?x=1"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == f"/g/{CODE}?x=1"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{LANGUAGE_COOKIE}=uk;")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax") and "Max-Age=" in cookie
    page = client.get(f"/g/{CODE}", headers={"Accept-Language": "he"}).text  # the choice beats the header
    assert html_tag(page) == '<html lang="uk" dir="ltr">'


@pytest.mark.parametrize(
    "referer",
    [
        None,
        "http://evil.example/g/TP1-E-AAAAAAB",
        "//evil.example/x",
        "http://testserver/settings/language",
        "::",
    ],
)
def test_the_picker_only_goes_back_to_this_site(client: TestClient, referer: str | None) -> None:
    headers = {"Referer": referer} if referer else {}
    response = client.post("/settings/language", data={"lang": "th"}, headers=headers, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"


def test_the_picker_with_htmx_refreshes_the_page(client: TestClient) -> None:
    response = client.post("/settings/language", data={"lang": "he"}, headers=HX)
    assert response.status_code == 200
    assert response.headers["hx-refresh"] == "true"
    assert f"{LANGUAGE_COOKIE}=he;" in response.headers["set-cookie"]


@pytest.mark.parametrize("value", ["fr", "", "he-IL", "<script>"])
def test_the_picker_ignores_unknown_languages(client: TestClient, value: str) -> None:
    """A language the game does not have is ignored: back to the page as it was."""
    response = client.post("/settings/language", data={"lang": value}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"
    assert LANGUAGE_COOKIE not in response.headers.get("set-cookie", "")


def test_the_picker_refuses_a_value_no_language_could_be(client: TestClient) -> None:
    """Longer than any language tag the form takes (16 characters): a 422 page that says so."""
    response = client.post("/settings/language", data={"lang": "he-IL" * 10}, follow_redirects=False)
    assert response.status_code == 422 and response.headers["content-type"].startswith("text/html")
    assert "<h1>That did not work</h1>" in response.text
    assert LANGUAGE_COOKIE not in response.headers.get("set-cookie", "")


def test_a_forged_cookie_is_ignored(client: TestClient) -> None:
    use_cookie(client, "xx")
    page = client.get(f"/g/{CODE}", headers={"Accept-Language": "th"}).text
    assert 'lang="th"' in html_tag(page)


def test_a_share_link_opens_in_the_recipients_language(client: TestClient, other_client: TestClient) -> None:
    use_cookie(client, "he")
    page = client.get(f"/g/{CODE}").text
    link = attribute(page, "share", "data-share-url")
    assert link.endswith(f"/g/{CODE}")  # the link carries no language
    assert "lang" not in link
    friend = other_client.get(link, headers={"Accept-Language": "uk-UA,uk;q=0.9"})
    assert html_tag(friend.text) == '<html lang="uk" dir="ltr">'
    assert "Нова гра" in friend.text


def test_the_api_message_follows_accept_language(client: TestClient) -> None:
    state = client.post("/api/games", json={"code": CODE}).json()
    url = f"/api/games/{state['id']}/remove"
    for lang in LANGUAGES:
        response = client.post(url, json={"position": 0}, headers={"Accept-Language": lang})
        assert response.status_code == 409
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json() == {
            "type": "urn:tripeaks:problem:card_blocked",
            "title": "Conflict",
            "status": 409,
            "error": "card_blocked",
            "detail": po(lang, "This card is blocked"),
        }
        assert "Accept-Language" in response.headers["vary"]
    # The API goes by the header alone: the page's cookie does not change it.
    use_cookie(client, "he")
    response = client.post(url, json={"position": 0}, headers={"Accept-Language": "th"})
    assert response.json()["detail"] == "ไพ่ใบนี้ถูกปิดทับอยู่"
    assert client.post(url, json={"position": 0}).json()["detail"] == "This card is blocked"
    bad = client.post("/api/games", json={"code": "TP1-E-AAAA"}, headers={"Accept-Language": "uk"})
    assert bad.status_code == 422
    assert bad.json()["detail"].startswith("«TP1-E-AAAA» — не код партії")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_error_pages_speak_the_language(client: TestClient, lang: str) -> None:
    use_cookie(client, lang)
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert html_tag(response.text).startswith(f'<html lang="{lang}"')
    assert f"<h1>{html_lib.escape(po(lang, 'Not found'))}</h1>" in response.text
    assert "<p>Not Found</p>" not in response.text  # the heading says it; no second "Not Found"
    response = client.post("/games/nope/draw")
    assert response.status_code == 404
    assert html_lib.escape(po(lang, "No such game")) in response.text


@pytest.mark.parametrize("lang", ["he", "uk", "th"])
def test_a_bad_code_is_explained_in_the_language(client: TestClient, lang: str) -> None:
    use_cookie(client, lang)
    response = client.get("/g/TP1-X-HELLO")
    assert response.status_code == 400
    assert without_isolates(code_error_text(response.text)) == html_lib.escape(code_error(lang, "TP1-X-HELLO"))
    client.get(f"/g/{CODE}")
    response = client.post("/new", data={"code": "TP1-E-NOPE"}, headers=HX)
    assert response.status_code == 400
    assert without_isolates(code_error_text(response.text)) == html_lib.escape(code_error(lang, "TP1-E-NOPE"))


def without_isolates(text: str) -> str:
    """The text without Unicode's directional isolates (U+2066 to U+2069)."""
    return re.sub("[\u2066-\u2069]", "", text)
