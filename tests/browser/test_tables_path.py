"""Tables of friends in real browsers (issue 39), on one server (SQLite) whose clock the test
fixes (served in this process, as the daily tests fix theirs): four players in four contexts.

Ann makes a table; Bob and Cat join by its link (two clicks each); Dan does not. All four play
the day's deal. The members see each other on the table's board in the daily's order; Dan gets
404 on the table's page and API. Ann races the table and Bob, on the table's page, sees the
invitation arrive live and joins. Then screenshots of the table's page and its invite link at
three sizes in the four languages (no sideways scroll; axe in English and Hebrew).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from app.engine import Game
from app.engine.search.daily import daily_code
from tests.support.browser import (
    DESKTOP,
    PHONE,
    no_sideways_scroll,
    post_line,
    run_axe,
    screenshot,
    settle,
)
from tests.support.deals import winning_line
from tests.support.store import greedy, line_of
from tests.support.worlds import World, world_at

KEY = "tables-path-key-" + "k" * 24
THURSDAY = dt.date(2026, 12, 3)
LANDSCAPE = {"width": 844, "height": 390}
SIZES = {"desktop": DESKTOP, "phone": PHONE, "landscape": LANDSCAPE}
LOCALES = {"en": "en-GB", "he": "he-IL", "uk": "uk-UA", "th": "th-TH"}


@pytest.fixture(scope="module")
def world(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    now = dt.datetime.combine(THURSDAY, dt.time(9), dt.UTC).timestamp()
    with world_at(browser, tmp_path_factory.mktemp("tables"), KEY, now) as made:
        yield made


def play(page: Page, world: World, line: list[int] | tuple[int, ...], step: float) -> None:
    """Open today's daily and play ``line`` as form posts, ``step`` s of the fixed clock apart."""
    page.goto("/daily")
    post_line(page, line, clock=world.clock, step=step)


def board_names(page: Page) -> list[str]:
    return [name.strip() for name in page.locator("#table-today-board tbody th bdi").all_inner_texts()]


def test_four_players_a_table_its_board_and_its_race(world: World) -> None:
    ann, bob, cat, dan = (world.page(name=name) for name in ("Ann", "Bob", "Cat", "Dan"))
    # Ann makes the table: its page shows the invite link.
    ann.goto("/tables")
    ann.fill("#table-name-input", "Ann's <b>club</b>")
    ann.click("#make-table")
    expect(ann.locator("#table-name")).to_have_text("Ann's <b>club</b>")
    table_path = ann.url.split(str(world.port), 1)[1].split("?")[0]
    table_id = table_path.rsplit("/", 1)[1]
    invite = ann.locator("#invite-url").input_value()
    invite_path = invite.split(str(world.port), 1)[1]
    # Bob and Cat: the link, then Join: two clicks from a shared link to a member.
    for page, count in ((bob, "1 member"), (cat, "2 members")):
        page.goto(invite_path)
        expect(page.locator("#invite-table-name")).to_have_text("Ann's <b>club</b>")
        expect(page.locator("#invite-count")).to_have_text(count)
        page.click("#join-table")
        expect(page.locator("#table-notice")).to_be_visible()
        assert page.url.split("?")[0].endswith(table_path)
    # Dan is not a member: 404 on the page and on the API.
    assert dan.goto(table_path).status == 404  # type: ignore[union-attr]
    assert dan.request.get(f"/api/tables/{table_id}").status == 404
    # The day's deal: Ann wins quickly, Cat wins slowly, Bob is blocked, Dan wins (not a member).
    code = daily_code(KEY.encode(), THURSDAY)
    won = winning_line(Game(code))
    assert won is not None
    blocked = line_of(greedy(code, prefer_draw=True))
    play(ann, world, won, 1.0)
    play(cat, world, won, 3.0)
    play(bob, world, blocked, 1.0)
    play(dan, world, won, 0.5)
    daily = [row["name"] for row in ann.request.get("/api/daily").json()["leaderboard"]]
    members_order = [name for name in daily if name != "Dan"]
    assert members_order == ["Ann", "Cat", "Bob"] and "Dan" in daily
    for page in (ann, bob, cat):
        page.goto(table_path)
        assert board_names(page) == members_order
        expect(page.locator("#table-par")).to_be_visible()
        week = page.locator("#table-week-board tbody tr").first
        expect(week.locator("th")).to_have_text("Ann")
    assert "Dan" not in ann.locator("#table-boards").inner_text()
    # Race the table: Bob, on the table's page, sees the invitation arrive live.
    bob.goto(table_path)
    expect(bob.locator("#join-table-race")).to_have_count(0)
    bob.wait_for_timeout(500)  # the stream is connected
    ann.goto(table_path)
    ann.click("#race-table")
    ann.wait_for_url("**/race/*")
    race_path = ann.url.split(str(world.port), 1)[1]
    expect(bob.locator("#join-table-race")).to_be_visible(timeout=10_000)
    bob.click("#join-table-race")
    bob.wait_for_url(f"**{race_path}")
    expect(bob.locator("#race")).to_be_visible()


def test_the_table_s_pages_in_every_language_and_size(world: World) -> None:
    maker = world.page(name="Dana")
    made = maker.request.post("/api/tables", data={"name": "שולחן Friday · ร้าน"})
    assert made.status == 201
    table = made.json()
    joiner = world.page(name="Олена")
    assert joiner.request.post("/api/tables/join", data={"token": table["invite_url"].rsplit("/", 1)[1]}).ok
    invite_path = "/t/" + table["invite_url"].rsplit("/t/", 1)[1]
    state = maker.context.storage_state()
    shots: list[Path] = []
    for lang, locale in LOCALES.items():
        page = world.page(locale=locale, storage_state=state)
        outsider = world.page(locale=locale)
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            page.goto(f"/tables/{table['id']}")
            settle(page)
            no_sideways_scroll(page, viewport["width"])
            shots.append(screenshot(page, f"table-{lang}-{size}"))
            outsider.set_viewport_size(viewport)
            outsider.goto(invite_path)
            no_sideways_scroll(outsider, viewport["width"])
            shots.append(screenshot(outsider, f"table-invite-{lang}-{size}"))
            if size == "desktop" and lang in ("en", "he"):
                assert page.locator("html").get_attribute("dir") == ("rtl" if lang == "he" else "ltr")
                assert run_axe(page) == [], lang
                assert run_axe(outsider) == [], lang
    assert len(shots) == 24 and all(shot.stat().st_size > 5_000 for shot in shots)
