"""Deal records and player statistics in the web app: JSON API, /stats, the game page's lines."""

from __future__ import annotations

import asyncio
import datetime as dt
import html
import re
import threading
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from app.engine import DRAW, Game, GameCode, Rules, Status
from app.store import MemoryStore
from app.store.base import Feat
from app.web.lifespan import clean_idle_games
from app.web.main import create_app
from app.web.presentation.game_context import announcement, record_line
from app.web.settings import Settings
from tests.support.catalogs import po
from tests.support.deals import winning_line, won_deal
from tests.support.pages import win_by_clicks
from tests.support.store import greedy, line_of, play_new, two_blocks, two_wins

ALICE = "alice-player-id-0000000001"
BOB = "bob-player-id-00000000000002"


# -- JSON API ---------------------------------------------------------------------------------


def test_record_of_a_deal_nobody_finished(client: TestClient) -> None:
    response = client.get("/api/deals/tp1-n-aaaaaab/record")
    assert response.status_code == 200
    assert response.json() == {
        "code": "TP1-E-AAAAAAB",
        "rules": "easy",
        "layout": "three-peaks",
        "variants": [],
        "wins": 0,
        "finished": 0,
        "first_win": None,
        "best_score": None,
        "best_unfinished": None,
        "line": "No record yet: be the first to win this deal",
        "hidden": False,
    }


def test_a_bad_code_is_422_with_the_engines_message(client: TestClient) -> None:
    response = client.get("/api/deals/TP2-E-AAAAAAB/record")
    assert response.status_code == 422
    assert "TP1-E-AAAAAAB (TP1" in response.json()["detail"]
    assert client.get("/api/deals/TP1-X-AAAAAAB/record").status_code == 422


def test_record_after_a_win_by_clicks(client: TestClient, other_client: TestClient) -> None:
    code, line = won_deal(Rules.EASY)
    win_by_clicks(client, code, line)
    score = Game(code)
    score.replay(line)
    mine = client.get(f"/api/deals/{code.text()}/record").json()
    assert mine["wins"] == 1 and mine["finished"] == 1
    assert mine["first_win"]["you"] is True and mine["first_win"]["by"] is None
    assert mine["first_win"]["score"] == mine["best_score"]["score"] == score.score
    assert mine["line"] == f"Record: {score.score} by you"
    theirs = other_client.get(f"/api/deals/{code.text()}/record").json()
    assert theirs["first_win"]["you"] is False
    assert theirs["line"] == f"Record: {score.score} by an anonymous player"
    assert (
        client.put("/api/players/me/name", json={"name": " Dana "}).json()["display_name"] == "Dana"
    )
    theirs = other_client.get(f"/api/deals/{code.text()}/record").json()
    assert (
        theirs["best_score"]["by"] == "Dana" and theirs["line"] == f"Record: {score.score} by Dana"
    )
    assert (
        client.get(f"/api/deals/{GameCode(Rules.CLASSIC, code.number).text()}/record").json()[
            "wins"
        ]
        == 0
    )


def test_my_stats(client: TestClient) -> None:
    fresh = client.get("/api/players/me/stats").json()
    assert fresh == {
        "display_name": None,
        "stats": [
            {"rules": r, "layout": "three-peaks", "variants": [], "played": 0, "won": 0, "win_rate": 0.0, "best_score": None,
             "current_streak": 0, "longest_streak": 0, "longest_run": None, "fastest_win": None}
            for r in ("easy", "classic")
        ],
        "daily": {"current": 0, "longest": 0, "current_won": 0, "longest_won": 0},
    }  # fmt: skip
    code, line = won_deal(Rules.EASY)
    win_by_clicks(client, code, line)
    easy = client.get("/api/players/me/stats").json()["stats"][0]
    assert (easy["played"], easy["won"], easy["win_rate"]) == (1, 1, 1.0)
    assert (easy["current_streak"], easy["longest_streak"]) == (1, 1)


def test_setting_the_name_through_the_api(client: TestClient) -> None:
    assert client.put("/api/players/me/name", json={"name": "x" * 41}).status_code == 422
    assert client.put("/api/players/me/name", json={"name": "a\nb"}).status_code == 422
    assert (
        client.put("/api/players/me/name", json={"name": "Robin"}).json()["display_name"] == "Robin"
    )
    assert client.put("/api/players/me/name", json={"name": None}).json()["display_name"] is None


BLANK_LOOKING_NAMES = [
    "\u200b", "\u2060\u2060", "\ufeff", "\u00ad", "\u180e", "\u3164", "\u2800",
    "\U000e0041\U000e0042", "\u0301", " \u200b\u3000\u2800 ",
]
"""Names the chaos campaign found stored, each drawn as nothing (zero-width spaces, word
joiners, the byte order mark, the soft hyphen, the Mongolian vowel separator, the Hangul
filler, the blank Braille pattern, tag characters), and a combining mark alone."""


@pytest.mark.parametrize("name", BLANK_LOOKING_NAMES, ids=ascii)
def test_a_name_with_nothing_visible_is_refused_in_the_api_and_on_the_page(
    client: TestClient, name: str
) -> None:
    assert client.put("/api/players/me/name", json={"name": "Robin"}).status_code == 200
    refused = client.put("/api/players/me/name", json={"name": name})
    assert refused.status_code == 422, refused.text
    page = client.post("/players/me/name", data={"name": name}, follow_redirects=False)
    assert page.status_code == 400 and 'id="name-error"' in page.text
    assert client.get("/api/players/me/stats").json()["display_name"] == "Robin"  # unchanged


@pytest.mark.parametrize("lang", ["en", "he", "uk", "th"])
def test_a_refused_name_says_why_in_the_players_language(client: TestClient, lang: str) -> None:
    expected = po(lang, "A name needs at least one visible character")
    api = client.put("/api/players/me/name", json={"name": "\u2800"}, headers={"Accept-Language": lang})
    assert api.status_code == 422 and api.json()["detail"] == expected
    page = client.post("/players/me/name", data={"name": "\u2800"}, headers={"Accept-Language": lang})
    assert page.status_code == 400 and html.escape(expected, quote=False) in page.text
    too_long = client.put("/api/players/me/name", json={"name": "x" * 41}, headers={"Accept-Language": lang})
    assert too_long.json()["detail"] == po(lang, "A name has at most 40 characters")

def test_invisible_code_points_are_taken_out_of_a_name(client: TestClient) -> None:
    """"Dana" followed by tag characters draws exactly as "Dana": it is stored as "Dana", so a
    record line shows what the name looks like, and nothing hides in it."""
    for name, stored in [
        ("Dana\U000e0041", "Dana"),
        ("D\u200ba\u200dn\u2060a\ufeff", "Dana"),
        ("\u00adRo\u034fbin\ufe0f", "Robin"),
        ("\u3164 Lee", "Lee"),
    ]:
        response = client.put("/api/players/me/name", json={"name": name})
        assert response.status_code == 200, (name, response.text)
        assert response.json()["display_name"] == stored, name


# -- the statistics page ----------------------------------------------------------------------


def test_stats_page_and_name_form(client: TestClient) -> None:
    code, line = won_deal(Rules.EASY)
    win_by_clicks(client, code, line)
    page = client.get("/stats")
    assert page.status_code == 200
    table = re.search(r'<table id="stats-table".*?</table>', page.text, re.S)
    assert table is not None
    easy = {  # each figure's row: its first cell is the easy rules' column
        row_id: re.sub(r"<[^>]+>", "", cells).strip()
        for row_id, cells in re.findall(r'<tr id="stats-([a-z-]+)"><th[^>]*>.*?</th><td>(.*?)</td>', table.group(0))
    }
    won = Game(code)
    won.replay(line)
    assert easy == {
        "played": "1", "won": "1", "win-rate": "100%", "best-score": str(won.score),
        "current-streak": "1", "longest-streak": "1", "longest-run": str(won.longest_run),
        "fastest-win": easy["fastest-win"],
    }  # fmt: skip
    assert re.fullmatch(r"\d+:\d\d", easy["fastest-win"])  # won by clicks: the clock ran
    assert "Playing anonymously" in page.text

    bad = client.post("/players/me/name", data={"name": "x" * 41})
    assert bad.status_code == 400
    assert 'aria-invalid="true"' in bad.text and "at most 40" in bad.text
    assert client.get("/api/players/me/stats").json()["display_name"] is None

    saved = client.post("/players/me/name", data={"name": "  Dana  "}, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"] == "/stats?saved=1"
    page = client.get("/stats?saved=1")
    assert "Playing as Dana." in page.text and 'id="name-saved"' in page.text
    assert 'value="Dana"' in page.text

    cleared = client.post("/players/me/name", data={"name": ""})
    assert cleared.status_code == 200 and "Playing anonymously" in cleared.text


def test_names_are_escaped(client: TestClient) -> None:
    client.post("/players/me/name", data={"name": "<b>Eve</b>"})
    page = client.get("/stats")
    assert "<b>Eve</b>" not in page.text and "&lt;b&gt;Eve&lt;/b&gt;" in page.text


# -- what the game page shows -----------------------------------------------------------------


def test_record_line_words() -> None:
    store = MemoryStore()
    code, low, _ = two_wins()
    assert (
        record_line(store.deal_record(code), ALICE)
        == "No record yet: be the first to win this deal"
    )
    blocked_code, _, fewer = two_blocks()
    blocked = play_new(store, BOB, blocked_code, fewer)
    left = blocked.game.cards_left()
    assert record_line(store.deal_record(blocked_code), ALICE) == (
        f"Nobody has won this deal yet; best: {left} card{'s' if left != 1 else ''} left"
        " by an anonymous player"
    )
    first = play_new(store, ALICE, code, low)
    assert record_line(store.deal_record(code), ALICE) == f"Record: {first.game.score} by you"
    store.set_display_name(ALICE, "Dana")
    assert record_line(store.deal_record(code), BOB) == f"Record: {first.game.score} by Dana"


def test_announcements() -> None:
    store = MemoryStore()
    code, low, high = two_wins()
    playing = play_new(store, ALICE, code, low[:3])
    assert announcement(store, playing) is None
    first = play_new(store, ALICE, code, low)
    said = announcement(store, first)
    assert said is not None and said.kind is Feat.FIRST_WIN
    assert said.text == "You are the first to win this deal!"
    lower = play_new(store, BOB, code, low)
    assert announcement(store, lower) is None  # won, but no history made
    better = play_new(store, BOB, code, high)
    said = announcement(store, better)
    assert said is not None and said.kind is Feat.NEW_RECORD and str(better.game.score) in said.text
    assert record_line(store.deal_record(code), BOB) == f"Record: {better.game.score} by you"

    blocked_code, more, _ = two_blocks()
    blocked = play_new(store, ALICE, blocked_code, more)
    said = announcement(store, blocked)
    assert said is not None and said.kind is Feat.BEST_UNFINISHED
    assert said.text.startswith("Nobody has won this deal yet, and your ")
    # Undo from blocked: playing again, nothing to announce.
    game = blocked.game.copy()
    game.undo()
    assert announcement(store, store.save(blocked, game)) is None


def test_best_unfinished_on_a_won_deal() -> None:
    store = MemoryStore()
    for number in range(1, 3000):
        code = GameCode(Rules.EASY, number)
        drawn = Game(code)
        drawn.replay([DRAW] * 23)
        if drawn.status is Status.BLOCKED:
            line = winning_line(Game(code), node_limit=20_000)
            if line is not None:
                break
    else:  # pragma: no cover
        raise AssertionError("no deal both winnable and blocked by drawing found")
    play_new(store, ALICE, code, tuple(line))
    stuck = play_new(store, BOB, code, (DRAW,) * 23)
    assert stuck.game.status is Status.BLOCKED
    said = announcement(store, stuck)
    assert said is not None and said.text.endswith("is the best unfinished result on this deal.")


# -- cleanup from the app ---------------------------------------------------------------------


class WatchedStore(MemoryStore):
    """A memory store that says when an idle cleanup has run."""

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(clock=clock)
        self.cleaned = threading.Event()

    def cleanup_idle(self, older_than: dt.timedelta) -> int:
        removed = super().cleanup_idle(older_than)
        self.cleaned.set()
        return removed


def cleanup_tasks(client: TestClient) -> list[asyncio.Task[object]]:
    """The app's idle-cleanup tasks running on the client's event loop."""

    async def tasks() -> list[asyncio.Task[object]]:
        return [t for t in asyncio.all_tasks() if t.get_coro().__qualname__ == clean_idle_games.__qualname__]  # type: ignore[union-attr]

    assert client.portal is not None
    return client.portal.call(tasks)


def idle_settings(tmp_path: object, idle_days: float) -> Settings:
    return Settings(
        secret_key="test-secret-" + "x" * 20, database_url="memory://", data_dir=tmp_path, idle_days=idle_days
    )


def test_the_app_cleans_idle_games_at_start(tmp_path: object) -> None:
    now = [1_800_000_000.0]
    store = WatchedStore(clock=lambda: now[0])
    idle = store.create(Game(GameCode.parse("TP1-E-AAAAAAB")), ALICE)
    now[0] += 40 * 86400
    with TestClient(create_app(idle_settings(tmp_path, 30), store=store)) as client:
        assert len(cleanup_tasks(client)) == 1
        assert store.cleaned.wait(timeout=60), "no cleanup ran"
        assert store.get(idle.id) is None


def test_cleanup_can_be_turned_off(tmp_path: object) -> None:
    now = [1_800_000_000.0]
    store = WatchedStore(clock=lambda: now[0])
    idle = store.create(Game(GameCode.parse("TP1-E-AAAAAAB")), ALICE)
    now[0] += 400 * 86400
    with TestClient(create_app(idle_settings(tmp_path, 0), store=store)) as client:
        assert client.get("/healthz").status_code == 200
        assert cleanup_tasks(client) == []  # none was started, so none can run later
    assert store.get(idle.id) is not None and not store.cleaned.is_set()


def test_statistics_keep_each_rule_set_with_variants_apart(client: TestClient, store: MemoryStore) -> None:
    """A variant game's result counts in its own column (issue 17), under "With variants",
    never in the standard rule set's; the API lists it with its variants' words."""
    assert 'id="variant-stats"' not in client.get("/stats").text  # nothing played: no section
    code, line = won_deal(Rules.EASY)
    found = store.get(win_by_clicks(client, code, line))
    assert found is not None and found.owner is not None
    traditional = GameCode.parse(f"TP1-ET-{code.letters}")  # the same deal, scored by runs
    won = play_new(store, found.owner, traditional, line).game
    joker = GameCode.parse(f"TP1-EJO-{code.letters}")
    blocked = greedy(joker, prefer_draw=True)
    play_new(store, found.owner, joker, line_of(blocked))

    stats = client.get("/api/players/me/stats").json()["stats"]
    assert [(s["rules"], s["variants"], s["played"], s["won"]) for s in stats] == [
        ("easy", [], 1, 1), ("classic", [], 0, 0),
        ("easy", ["traditional"], 1, 1), ("easy", ["open_peaks", "joker"], 1, 0),
    ]  # fmt: skip
    assert stats[2]["best_score"] == won.score != stats[0]["best_score"]

    page = client.get("/stats").text
    standard = re.search(r'<table id="stats-table".*?</table>', page, re.S)
    assert standard is not None and standard.group(0).count('<th scope="col"') == 2
    section = re.search(r'<section id="variant-stats".*?</section>', page, re.S)
    assert section is not None
    heads = [re.sub(r"\s+", " ", h).strip() for h in re.findall(r'<th scope="col"[^>]*>(.*?)</th>', section.group(0), re.S)]
    assert heads == ["Easy · Traditional scoring", "Easy · Open peaks · Joker"]
    best = re.search(r'<th scope="row">Best score</th><td>(.*?)</td><td>(.*?)</td>', section.group(0))
    assert best is not None and best.groups() == (str(won.score), "\u2013")
