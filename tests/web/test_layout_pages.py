"""The pages on every layout (issue 25): the board draws each layout from the engine's value,
names it in its heading and tag, in words names its rows in each language, plays to the end
with forms, and refuses a position off the layout with a 422 that changes nothing."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from app.engine import Game, GameCode, Rules, Variants
from app.engine.layout import LAYOUTS, THREE_PEAKS, Layout
from app.engine.search.analysis import analyse
from app.i18n import get_locale
from app.store import MemoryStore
from tests.support.pages import HX, game_id_of, text_of

ROOT = Path(__file__).resolve().parents[2]

ENGLISH = {"diamonds": "Diamonds", "valley": "Valley", "theatre": "Theatre", "up-down": "Up-down"}


def layout_names(lang: str) -> dict[str, str]:
    """Each layout's name as the language's catalog (its .po file, read with babel) gives it."""
    path = ROOT / "app" / "i18n" / "locales" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as file:
        found = {m.id: m.string for m in read_po(file, locale=lang) if m.context == "layout"}
    names = {word: str(found[english]) for word, english in ENGLISH.items()}
    assert lang == "en" or not set(names.values()) & set(ENGLISH.values()), names  # translated
    return names


LANGS = ("en", "he", "uk", "th")


def code_of(layout: Layout, number: int = 1, rules: Rules = Rules.EASY) -> GameCode:
    return GameCode(rules, number, Variants(), layout)


def places(html: str) -> dict[int, tuple[int, int, int]]:
    """Each drawn position's (row, column, height), read back from its classes."""
    found = {}
    for classes, position in re.findall(r'class="([^"]*)" id="card-(\d+)"', html):
        row = re.search(r"\br-(\d+)\b", classes)
        column = re.search(r"\bx-(\d+)\b", classes)
        height = re.search(r"\bh-(\d+)\b", classes)
        assert row and column and height, classes
        found[int(position)] = (int(row.group(1)), int(column.group(1)), int(height.group(1)))
    return found


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=str)
def test_the_board_draws_each_layout_from_its_value(client: TestClient, layout: Layout) -> None:
    page = client.get(f"/g/{code_of(layout).text()}")
    assert page.status_code == 200
    assert places(page.text) == {p: (s.row, s.column, s.height) for p, s in enumerate(layout.spots)}
    span = 1 + max(s.column for s in layout.spots)
    assert re.search(rf'id="game" class="game layout-{layout.word} span-{span} rows-{len(layout.rows)}"', page.text)
    # The open cards are face up, the others face down (nothing of them in the page).
    for p, spot in enumerate(layout.spots):
        face = re.search(rf'<button class="card (face|back)[^"]*" id="card-{p}"', page.text)
        assert face and face.group(1) == ("face" if spot.height == 0 else "back"), p
    # The rows are laid out top to bottom, each left to right.
    drawn = [int(p) for p in re.findall(r'id="card-(\d+)"', page.text.split('id="peaks"')[1].split("</form>")[0])]
    assert drawn == [p for row in layout.rows for p in row]


@pytest.mark.parametrize("lang", LANGS)
def test_the_heading_and_tag_name_the_layout_in_each_language(client: TestClient, lang: str) -> None:
    for word, name in layout_names(lang).items():
        page = client.get(f"/g/{code_of(LAYOUTS[word]).text()}", headers={"Accept-Language": lang})
        assert text_of(page.text, "layout-tag") == name
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", page.text)
        assert heading and name in heading.group(1) and code_of(LAYOUTS[word]).text() in heading.group(1)
    three = client.get(f"/g/{code_of(THREE_PEAKS).text()}", headers={"Accept-Language": lang})
    assert 'id="layout-tag"' not in three.text  # today's board, as it was


@pytest.mark.parametrize("lang", LANGS)
def test_the_board_in_words_names_each_layout_s_rows(client: TestClient, lang: str) -> None:
    words = get_locale(lang)
    for layout in LAYOUTS.values():
        page = client.get(f"/g/{code_of(layout).text()}", headers={"Accept-Language": lang})
        said = text_of(page.text, "words-text")
        names = words.layout_rows(layout)
        assert len(names) == len(layout.rows) and len(set(names)) == len(names)
        for name in names:  # every row has a card at the deal
            assert f"{name}:" in said or f"{name[:1].upper()}{name[1:]}:" in said, (layout, name, said)
        if lang != "en":
            assert not re.search(r"\brow \d", said), said  # no English left in it


@pytest.mark.parametrize("layout", [lay for lay in LAYOUTS.values() if lay.letter], ids=str)
def test_a_layout_game_plays_to_its_end_with_forms(client: TestClient, layout: Layout) -> None:
    code = code_of(layout, 4)
    analysis = analyse(code)
    line = analysis.winning_line(0, 0, analysis.waste_after[0])
    assert line is not None
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    for action in line:
        if action.position is None:
            answer = client.post(f"/games/{game_id}/draw", headers=HX)
        else:
            answer = client.post(f"/games/{game_id}/remove", data={"position": action.position}, headers=HX)
        assert answer.status_code == 200, (action, answer.text[:300])
    page = client.get(f"/g/{code.text()}")
    assert 'id="result-title"' in page.text and "status-won" in page.text
    assert not re.search(r'<button class="card', page.text.split('id="peaks"')[1].split("</form>")[0])


def test_a_position_off_the_layout_is_refused_and_changes_nothing(client: TestClient) -> None:
    three = game_id_of(client.get(f"/g/{code_of(THREE_PEAKS).text()}").text)
    for position in ("28", "29", "30", "-1"):
        answer = client.post(f"/games/{three}/remove", data={"position": position}, headers=HX)
        assert answer.status_code == 422, (position, answer.status_code)
    assert text_of(client.get(f"/g/{code_of(THREE_PEAKS).text()}").text, "moves") == "0"
    valley = code_of(LAYOUTS["valley"])
    game_id = game_id_of(client.get(f"/g/{valley.text()}").text)
    # Past three peaks' positions, on the valley's board: played, or refused by the rules.
    answer = client.post(f"/games/{game_id}/remove", data={"position": 28}, headers=HX)
    assert answer.status_code == (200 if 28 in Game(valley).playable_positions() else 409)
    assert client.post(f"/games/{game_id}/remove", data={"position": "30"}, headers=HX).status_code == 422


def test_the_new_game_window_offers_each_layout_with_its_shape_and_remembers_it(client: TestClient) -> None:
    window = client.get("/new").text
    for layout in LAYOUTS.values():
        choice = re.search(
            rf'<input type="radio" class="visually-hidden" name="layout" value="{layout.word}" id="layout-{layout.word}"( checked)?>\s*'
            r'<svg class="layout-shape"[^>]*>(.*?)</svg>',
            window,
            re.S,
        )
        assert choice, layout
        assert bool(choice.group(1)) == (layout is THREE_PEAKS)  # three peaks until another is chosen
        drawn = re.findall(r'<rect x="(\d+)" y="(\d+)"[^>]*class="(open|down)"', choice.group(2))
        assert sorted((int(x) // 5, int(y) // 7, kind) for x, y, kind in drawn) == sorted(
            (s.column, s.row, "open" if s.height == 0 else "down") for s in layout.spots
        )
    dealt = client.post("/new", data={"rules": "classic", "layout": "up-down"}, headers=HX)
    assert dealt.status_code == 200
    code = GameCode.parse(dealt.headers["HX-Push-Url"].removeprefix("/g/"))
    assert code.layout is LAYOUTS["up-down"] and code.rules is Rules.CLASSIC
    assert 'id="layout-up-down" checked' in client.get("/new").text  # remembered
    winnable = client.post("/new", data={"layout": "diamonds", "winnable_only": "true"}, headers=HX)
    assert GameCode.parse(winnable.headers["HX-Push-Url"].removeprefix("/g/")).layout is LAYOUTS["diamonds"]
    assert 'id="layout-diamonds" checked' in client.get("/new").text


def test_the_window_suggests_winnable_deals_for_a_mostly_unwinnable_layout(client: TestClient) -> None:
    window = client.get("/new").text
    suggestions = re.findall(r'class="winnable-suggestion" data-layout="([^"]+)" data-rules="([^"]+)"', window)
    assert suggestions == [("up-down", "classic")]  # 33.58% of its deals can be won (docs/solvability.md)
    assert "Only 34% of Up-down deals can be won under Classic rules" in window


@pytest.mark.parametrize("bad", ["pyramid", "UP-DOWN", "three peaks", "x" * 500])
def test_a_bad_layout_in_the_window_is_refused_and_deals_nothing(client: TestClient, bad: str) -> None:
    current = client.get("/", follow_redirects=False).headers["location"]
    answer = client.post("/new", data={"layout": bad}, headers=HX)
    assert answer.status_code == 422
    assert client.get("/", follow_redirects=False).headers["location"] == current  # no game dealt
    assert client.cookies.get("tp_layout") is None


def test_results_and_statistics_are_kept_per_layout(client: TestClient) -> None:
    """A game with a result on the valley counts in the valley's column of /stats, not in three
    peaks'; the deal's record is its code's; the API names each entry's layout."""
    valley = code_of(LAYOUTS["valley"], 4, Rules.CLASSIC)
    analysis = analyse(valley)
    line = analysis.winning_line(0, 0, analysis.waste_after[0])
    assert line is not None
    game_id = game_id_of(client.get(f"/g/{valley.text()}").text)
    for action in line:
        if action.position is None:
            client.post(f"/games/{game_id}/draw", headers=HX)
        else:
            client.post(f"/games/{game_id}/remove", data={"position": action.position}, headers=HX)
    entries = client.get("/api/players/me/stats").json()["stats"]
    stats = {(s["layout"], s["rules"], tuple(s["variants"])): s for s in entries}
    assert stats[("valley", "classic", ())]["won"] == 1 and stats[("valley", "classic", ())]["played"] == 1
    assert stats[("three-peaks", "classic", ())]["played"] == 0
    record = client.get(f"/api/deals/{valley.text()}/record").json()
    assert record["layout"] == "valley" and record["wins"] == 1
    assert client.get(f"/api/deals/{code_of(THREE_PEAKS, 4, Rules.CLASSIC).text()}/record").json()["wins"] == 0
    page = client.get("/stats", headers={"Accept-Language": "uk"}).text
    section = page.split('id="layout-stats-valley"')[1].split("</section>")[0]
    assert layout_names("uk")["valley"] in section
    assert re.search(r'<th scope="col" id="stats-CV">', section)
    assert 'id="layout-stats-diamonds"' not in page  # no result there: no section


def test_races_deal_and_draw_any_layout(client: TestClient, store: MemoryStore) -> None:
    """A race of the layout chosen in the New game window, or of a layout's code; its board
    draws that layout; "race again" deals the same layout."""
    answer = client.post("/races", data={"rules": "classic", "layout": "up-down"}, headers=HX)
    assert answer.status_code == 204
    race = store.race(answer.headers["HX-Redirect"].rsplit("/", 1)[1])
    assert race is not None and GameCode.parse(race.code).layout is LAYOUTS["up-down"]
    code = code_of(LAYOUTS["theatre"], 4)
    url = client.post("/races", data={"code": code.text()}, follow_redirects=False).headers["location"]
    race_id = url.rsplit("/", 1)[1]
    assert client.post(f"/races/{race_id}/start", follow_redirects=False).status_code == 303
    for _ in range(40):  # the countdown
        board = client.get(url).text
        if 'id="table"' in board:
            break
        time.sleep(0.1)
    assert 'class="game layout-theatre span-19 rows-4"' in board
    assert places(board) == {p: (s.row, s.column, s.height) for p, s in enumerate(LAYOUTS["theatre"].spots)}
    analysis = analyse(code)
    line = analysis.winning_line(0, 0, analysis.waste_after[0])
    assert line is not None
    mine = store.race(race_id).racers[0].game_id  # type: ignore[union-attr]
    for action in line:
        if action.position is None:
            client.post(f"/games/{mine}/draw", headers=HX)
        else:
            client.post(f"/games/{mine}/remove", data={"position": action.position}, headers=HX)
    assert client.post(f"/races/{race_id}/again", follow_redirects=False).status_code == 303
    again = store.race(race_id)
    assert again is not None and again.code != code.text()
    assert GameCode.parse(again.code).layout is LAYOUTS["theatre"]
    assert client.post("/races", data={"layout": "pyramid"}).status_code == 422


@pytest.mark.parametrize("lang", LANGS)
def test_how_to_play_shows_the_layouts(client: TestClient, lang: str) -> None:
    page = client.get("/how-to-play", headers={"Accept-Language": lang}).text
    listed = page.split('id="howto-layout-list"')[1].split("</ul>")[0]
    names = layout_names(lang)
    assert listed.count('<svg class="layout-shape"') == len(LAYOUTS)
    for word in ("diamonds", "valley", "theatre", "up-down"):
        assert f"<strong>{names[word]}</strong>" in listed
    assert "TP1-EV-AAAAAAB" in page


@pytest.mark.parametrize("layout", [lay for lay in LAYOUTS.values() if lay.letter], ids=str)
def test_the_review_draws_each_layout(client: TestClient, layout: Layout) -> None:
    code = code_of(layout, 4)
    analysis = analyse(code)
    line = analysis.winning_line(0, 0, analysis.waste_after[0])
    assert line is not None
    text = ".".join("d" if a.position is None else str(a.position) for a in line)
    start = client.get(f"/replay/{code.text()}/{text}?step=0")
    assert start.status_code == 200
    assert places(start.text) == {p: (s.row, s.column, s.height) for p, s in enumerate(layout.spots)}
    span = 1 + max(s.column for s in layout.spots)
    assert f'class="table layout-{layout.word} span-{span} rows-{len(layout.rows)}' in start.text
    assert 'id="layout-tag"' in start.text
    end = client.get(f"/replay/{code.text()}/{text}")
    assert end.status_code == 200 and 'class="card face' not in end.text.split('class="peaks"')[1].split('class="piles"')[0]


def test_a_bad_review_line_names_its_layout_s_positions(client: TestClient) -> None:
    for layout, last in ((THREE_PEAKS, 27), (LAYOUTS["diamonds"], 26), (LAYOUTS["valley"], 29)):
        answer = client.get(f"/replay/{code_of(layout).text()}/d.x")
        assert answer.status_code == 400 and f"or a position 0 to {last}." in answer.text, layout
    beyond = client.get(f"/replay/{code_of(LAYOUTS['diamonds']).text()}/27")
    assert beyond.status_code == 400 and "0 to 26" in beyond.text
