"""Tables of friends (issue 39): the JSON API and the pages, at a fixed clock (Thursday 9:00 UTC)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.store import MemoryStore
from app.web.presentation.table_page import SHOWN_ROWS
from tests.support.daily import blocked_line, won_line
from tests.support.pages import game_id_of, play
from tests.support.store import Clock


@pytest.fixture
def cat(daily_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(daily_app) as client:
        yield client


def token_of(url: str) -> str:
    return url.rsplit("/t/", 1)[1]


def make(client: TestClient, name: str = "Friday club") -> dict[str, str]:
    made = client.post("/api/tables", json={"name": name})
    assert made.status_code == 201, made.text
    return dict(made.json())


def test_the_api_from_making_to_removing(ann: TestClient, bob: TestClient, cat: TestClient) -> None:
    ann.put("/api/players/me/name", json={"name": "Ann"})
    table = make(ann)
    assert table["name"] == "Friday club" and "/t/" in table["invite_url"]
    token = token_of(table["invite_url"])
    joined = bob.post("/api/tables/join", json={"token": token})
    assert joined.status_code == 200 and joined.json() == {"id": table["id"], "name": "Friday club"}
    assert cat.post("/api/tables/join", json={"token": "no-such-token"}).status_code == 404
    seen = ann.get(f"/api/tables/{table['id']}").json()
    assert [(m["name"], m["maker"]) for m in seen["members"]] == [("Ann", True), ("Anonymous", False)]
    member_ids = [m["id"] for m in seen["members"]]
    own = ann.get("/api/players/me/stats").json()
    assert all(str(own.get("id", "")) != mid for mid in member_ids)
    assert [t["id"] for t in bob.get("/api/tables").json()] == [table["id"]]
    assert bob.get("/api/tables").json()[0]["maker"] is False
    # An outsider: 404 on the API (and on the page, below), as for someone else's game.
    assert cat.get(f"/api/tables/{table['id']}").status_code == 404
    assert cat.get(f"/tables/{table['id']}").status_code == 404
    assert cat.delete(f"/api/tables/{table['id']}/members/me").status_code == 404
    # The maker's alone.
    assert bob.post(f"/api/tables/{table['id']}/invite").status_code == 403
    assert bob.delete(f"/api/tables/{table['id']}/members/{member_ids[0]}").status_code == 403
    renewed = ann.post(f"/api/tables/{table['id']}/invite")
    assert renewed.status_code == 201
    new_token = token_of(renewed.json()["invite_url"])
    refused = cat.post("/api/tables/join", json={"token": token})
    assert refused.status_code == 404 and "renewed" in refused.json()["detail"]
    assert cat.get(f"/t/{token}").status_code == 404
    assert cat.post("/api/tables/join", json={"token": new_token}).status_code == 200
    # Removing Bob: 204, he is out, and the link he had stops.
    assert ann.delete(f"/api/tables/{table['id']}/members/{member_ids[1]}").status_code == 204
    assert bob.get(f"/api/tables/{table['id']}").status_code == 404
    assert bob.post("/api/tables/join", json={"token": new_token}).status_code == 404
    assert ann.delete(f"/api/tables/{table['id']}/members/{member_ids[1]}").status_code == 404
    assert ann.delete(f"/api/tables/{table['id']}/members/{member_ids[0]}").status_code == 409
    # Leaving: 204, and the table is no longer theirs.
    assert cat.delete(f"/api/tables/{table['id']}/members/me").status_code == 204
    assert cat.get("/api/tables").json() == []


def test_the_limits_answer_409_and_change_nothing(
    ann: TestClient, bob: TestClient, daily_store: MemoryStore
) -> None:
    for i in range(20):
        make(ann, f"T{i}")
    refused = ann.post("/api/tables", json={"name": "one too many"})
    assert refused.status_code == 409 and "20" in refused.json()["detail"]
    assert len(ann.get("/api/tables").json()) == 20
    daily_store.max_table_members = 1
    token = token_of(make(bob, "Full")["invite_url"])
    full = ann.post("/api/tables/join", json={"token": token})
    assert full.status_code == 409
    daily_store.max_table_members = 1000
    assert ann.post("/api/tables/join", json={"token": token}).status_code == 409  # ann is in 20
    assert len(bob.get("/api/tables").json()) == 1


@pytest.mark.parametrize("bad", ["", "   ", "a\u202eb", "x" * 41, "\u200b\u200b", "line\nbreak"])
def test_a_bad_name_is_refused(ann: TestClient, bad: str) -> None:
    assert ann.post("/api/tables", json={"name": bad}).status_code == 422
    page = ann.post("/tables", data={"name": bad})
    assert page.status_code == 400 and 'id="table-name-error"' in page.text
    assert ann.get("/api/tables").json() == []


def test_the_boards_follow_the_daily(ann: TestClient, bob: TestClient, cat: TestClient, clock: Clock) -> None:
    for client, name in ((ann, "Ann"), (bob, "Bob"), (cat, "Cat")):
        client.put("/api/players/me/name", json={"name": name})
    table = make(ann)
    bob.post("/api/tables/join", json={"token": token_of(table["invite_url"])})
    ann_game = game_id_of(ann.get("/daily/2026-12-03").text)
    bob_game = game_id_of(bob.get("/daily/2026-12-03").text)
    cat_game = game_id_of(cat.get("/daily/2026-12-03").text)
    # Before Ann's attempt has ended: who has played, no score (the day's board's rule).
    play(bob, bob_game, blocked_line(), clock=clock)
    early = ann.get(f"/api/tables/{table['id']}").json()
    assert early["par"] is None
    assert "race-run" not in ann.get(f"/tables/{table['id']}").text  # no run to race before her own ends
    assert [(r["name"], r["played"], r["score"]) for r in early["today"]] == [
        ("Bob", True, None),
        ("Ann", False, None),
    ]
    play(ann, ann_game, won_line(), clock=clock)
    play(cat, cat_game, won_line(), clock=clock)  # not a member: not on the table's boards
    seen = ann.get(f"/api/tables/{table['id']}").json()
    daily = ann.get("/api/daily").json()
    members_in_daily_order = [r["name"] for r in daily["leaderboard"] if r["name"] in ("Ann", "Bob")]
    assert [r["name"] for r in seen["today"]] == members_in_daily_order == ["Ann", "Bob"]
    assert [r["rank"] for r in seen["today"]] == [1, 2]
    assert seen["par"] == daily["par"] is not None
    thursday = 3  # Monday 0
    assert [(r["name"], r["days_won"], r["days"][thursday]) for r in seen["week"]] == [
        ("Ann", 1, "won"),
        ("Bob", 0, "blocked"),
    ]
    assert seen["week"][0]["days"][4:] == ["future"] * 3
    assert [(r["name"], r["dailies_won"], r["current_streak"]) for r in seen["all_time"]] == [
        ("Ann", 1, 1),
        ("Bob", 0, 1),
    ]
    page = ann.get(f"/tables/{table['id']}").text
    assert page.index(">Ann<") < page.index(">Bob<") and "Cat" not in page
    # "Race this run" on the table's rows, once the runs are open to the viewer (the ghosts').
    assert page.count('class="button subtle race-run"') == 2
    assert 'action="/daily/2026-12-03/runs/' in page


def test_the_pages_two_clicks_from_a_link(ann: TestClient, bob: TestClient, cat: TestClient) -> None:
    made = ann.post("/tables", data={"name": "<script>alert(1)</script>"}, follow_redirects=False)
    assert made.status_code == 303
    page = ann.get(made.headers["location"])
    assert page.status_code == 200 and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "<script>alert(1)" not in page.text and 'id="table-notice"' in page.text
    table_url = made.headers["location"].split("?")[0]
    invite = page.text.split('id="invite-url"', 1)[1].split('value="', 1)[1].split('"', 1)[0]
    token = token_of(invite)
    # Click 1: the link shows the name, the count and Join; click 2: Join.
    shown = bob.get(f"/t/{token}")
    assert shown.status_code == 200 and "&lt;script&gt;" in shown.text and 'id="join-table"' in shown.text
    assert ">1 member<" in shown.text
    joined = bob.post(f"/t/{token}", follow_redirects=False)
    assert joined.status_code == 303 and joined.headers["location"].startswith(table_url)
    assert bob.get(table_url).status_code == 200
    assert 'id="open-table"' in bob.get(f"/t/{token}").text  # a member: no second Join
    assert cat.get(table_url).status_code == 404
    assert 'id="your-tables"' in bob.get("/stats").text and table_url in bob.get("/stats").text
    assert table_url in bob.get("/daily/2026-12-03/board").text
    # The maker renames, renews, removes; a member may not.
    assert bob.post(f"{table_url}/name", data={"name": "Mine"}).status_code == 403
    assert ann.post(f"{table_url}/name", data={"name": "Dana's"}, follow_redirects=False).status_code == 303
    assert "Dana&#39;s" in bob.get(table_url).text
    assert ann.post(f"{table_url}/name", data={"name": "\u202e"}).status_code == 400
    renewed = ann.post(f"{table_url}/invite", follow_redirects=False)
    assert renewed.status_code == 303 and cat.get(f"/t/{token}").status_code == 404
    bob_member = bob.get(f"/api/tables/{table_url.rsplit('/', 1)[1]}").json()["members"][1]["id"]
    assert ann.post(f"{table_url}/members/{bob_member}/remove", follow_redirects=False).status_code == 303
    assert bob.get(table_url).status_code == 404
    left = ann.post(f"{table_url}/leave", follow_redirects=False)
    assert left.status_code == 303 and ann.get(table_url).status_code == 404


def test_race_the_table_offers_the_race_on_its_page(ann: TestClient, bob: TestClient) -> None:
    table = make(ann)
    bob.post("/api/tables/join", json={"token": token_of(table["invite_url"])})
    made = ann.post(f"/tables/{table['id']}/race", data={"rules": "easy"}, follow_redirects=False)
    assert made.status_code == 303 and made.headers["location"].startswith("/race/")
    race_id = made.headers["location"].rsplit("/", 1)[1]
    page = bob.get(f"/tables/{table['id']}").text
    assert f'action="/races/{race_id}/join"' in page and 'id="join-table-race"' in page
    joined = bob.post(f"/races/{race_id}/join", follow_redirects=False)
    assert joined.status_code == 303
    assert ann.post("/tables/nope/race", data={"rules": "easy"}).status_code == 404


def test_yesterday_counts_and_a_member_who_joins_later_brings_their_days(
    ann: TestClient, bob: TestClient, cat: TestClient, clock: Clock
) -> None:
    for client, name in ((ann, "Ann"), (bob, "Bob"), (cat, "Cat")):
        client.put("/api/players/me/name", json={"name": name})
    clock.now -= 86400  # Wednesday: Bob and Cat win the day's deal
    for client in (bob, cat):
        game = game_id_of(client.get("/daily/2026-12-02").text)
        play(client, game, _won_line_of("2026-12-02"), clock=clock)
    clock.now += 86400  # Thursday
    table = make(ann)
    bob.post("/api/tables/join", json={"token": token_of(table["invite_url"])})
    first = {r["name"]: r for r in ann.get(f"/api/tables/{table['id']}").json()["all_time"]}
    assert (first["Bob"]["dailies_won"], first["Bob"]["current_streak"]) == (1, 1)
    assert first["Bob"]["best_day"] == "2026-12-02"
    cat.post("/api/tables/join", json={"token": token_of(table["invite_url"])})
    seen = ann.get(f"/api/tables/{table['id']}").json()
    later = {r["name"]: r for r in seen["all_time"]}
    assert (later["Cat"]["dailies_won"], later["Cat"]["current_streak"]) == (1, 1)
    week = {r["name"]: r["days"][2] for r in seen["week"]}  # Wednesday
    assert week == {"Bob": "won", "Cat": "won", "Ann": "not-played"}


def _won_line_of(day: str) -> list[int]:
    import datetime as dt

    from app.engine import Game
    from app.engine.search.daily import daily_code
    from tests.support.daily import KEY
    from tests.support.deals import winning_line

    line = winning_line(Game(daily_code(KEY.encode(), dt.date.fromisoformat(day))))
    assert line is not None
    return line


def test_the_invitation_stream_is_inside_the_race_streams_bounds(
    ann: TestClient, bob: TestClient, daily_app: FastAPI
) -> None:
    """The table's stream takes one of the race streams' slots before it begins: 503 with the
    server's streams all open, 429 past a player's, and a refused one (404) gives its slot back."""
    from app.web.race_stream import StreamSlots

    table = make(ann)
    slots: StreamSlots = daily_app.state.race_streams
    url = f"/tables/{table['id']}/events"
    assert bob.get(url).status_code == 404  # not a member: refused, and the slot given back
    assert slots.open == 0
    held = [slots.take(f"racer-{i}", f"198.51.100.{i}") for i in range(slots.per_server)]
    full = ann.get(url)
    assert full.status_code == 503 and full.headers["retry-after"] == "10"
    assert slots.open == slots.per_server
    for give_back in held:
        give_back()
    slots.per_player = 0  # as a player with their pages' streams all open
    assert ann.get(url).status_code == 429
    assert slots.open == 0


def test_the_tables_page_says_the_limits_the_store_keeps(ann: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's limits are the store's own numbers, in the page's language's digits."""
    assert "Up to 1,000 members a table, 20 tables a player." in ann.get("/tables").text
    monkeypatch.setattr("app.web.routes.tables.MAX_MEMBERS", 7)
    monkeypatch.setattr("app.web.routes.tables.MAX_TABLES_PER_PLAYER", 3)
    assert "Up to 7 members a table, 3 tables a player." in ann.get("/tables").text
    ukrainian = ann.get("/tables", headers={"Accept-Language": "uk"}).text
    assert "До 7 учасників за столом, до 3 столів на гравця." in ukrainian


def test_a_big_tables_page_shows_each_boards_first_rows_and_yours_then_all(
    ann: TestClient, bob: TestClient, daily_store: MemoryStore, clock: Clock
) -> None:
    ann.put("/api/players/me/name", json={"name": "Ann"})
    bob.put("/api/players/me/name", json={"name": "Bob"})
    table = make(ann)
    token = token_of(table["invite_url"])
    page_of = f"/tables/{table['id']}"
    small = ann.get(page_of).text
    assert "show-all" not in small and small.count('<th scope="row">') == 4  # one member, four boards
    others = SHOWN_ROWS + 4
    for i in range(others):
        daily_store.set_display_name(f"player-{i:02}", f"P{i:02}")
        daily_store.join_table(token, f"player-{i:02}")
        clock.advance(1)  # who joined first is listed first
    assert bob.post("/api/tables/join", json={"token": token}).status_code == 200  # the last to join
    count = others + 2
    bob_id = next(m["id"] for m in bob.get(f"/api/tables/{table['id']}").json()["members"] if m["name"] == "Bob")
    first = bob.get(page_of)
    assert first.status_code == 200
    # Each board: its first rows and Bob's own (he joined last, so it comes after them).
    assert first.text.count('<th scope="row">') == 4 * (SHOWN_ROWS + 1)
    assert first.text.count('<li id="member-') == SHOWN_ROWS + 1 and f'id="member-{bob_id}"' in first.text
    # A mark that rows are left out comes before his row, on each board and in the members.
    assert first.text.count('class="gap" aria-hidden="true"') == 5
    assert first.text.index('class="gap"') < first.text.index(f'data-member="{bob_id}"')
    assert f'data-member="{bob_id}"' in first.text and ">P00<" in first.text and f">P{others - 1:02}<" not in first.text
    for anchor in ("table-today", "table-week", "table-all-time", "table-members"):
        assert f'href="{page_of}?all=1#{anchor}">Show all {count} members</a>' in first.text
    assert f"{count} members" in first.text.split('id="table-count"')[1].split("</p>")[0]
    # "Show all": a page of its own, every row, no link.
    every = bob.get(f"{page_of}?all=1")
    assert every.status_code == 200 and "show-all" not in every.text and 'class="gap"' not in every.text
    assert every.text.count('<th scope="row">') == 4 * count and every.text.count('<li id="member-') == count
    assert f">P{others - 1:02}<" in every.text
    assert ann.get(f"{page_of}?all=yes").text.count('<li id="member-') == SHOWN_ROWS  # Ann is first
    # The API gives every row, always.
    seen = bob.get(f"/api/tables/{table['id']}").json()
    assert len(seen["today"]) == len(seen["week"]) == len(seen["all_time"]) == len(seen["members"]) == count
