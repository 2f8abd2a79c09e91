"""A race in two real browsers (issue 24): the lobby, the countdown, each sees the other's
progress live, a reload mid-race, the finish table both agree on."""

from __future__ import annotations

import re

from playwright.sync_api import Page, Route, expect

from app.engine import DRAW, Game
from tests.support.browser import screenshot
from tests.support.deals import won_deal


def card(page: Page, position: int):  # type: ignore[no-untyped-def]
    return page.locator(f'#table [data-position="{position}"]')


def act(page: Page, action: int, number: int) -> None:
    if action == DRAW:
        page.click("#stock")
    else:
        card(page, action).click()
    expect(page.locator("#moves")).to_have_text(str(number))


def rival_row(page: Page, name: str):  # type: ignore[no-untyped-def]
    return page.locator("#race-strip .racer", has=page.locator(".racer-name", has_text=name))


def test_two_browsers_race_to_the_end(new_page) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal()
    maker, rival = new_page(), new_page()
    maker.goto(f"/g/{code.text()}")
    maker.click("#howto-dismiss")
    made = maker.request.post("/races", form={"code": code.text()}, max_redirects=0)
    assert made.status == 303
    race_url = made.headers["location"]
    maker.goto(race_url)
    expect(maker.locator("#race-start")).to_be_visible()
    expect(maker.locator("#race-lobby-list li")).to_have_count(1)

    rival.goto(race_url)
    rival.click("#howto-dismiss")
    rival.click("#race-join")
    expect(rival.locator("#race-wait")).to_be_visible()
    expect(maker.locator("#race-lobby-list li")).to_have_count(2)  # live, through the stream
    screenshot(maker, "race-lobby-test")

    maker.click("#race-start")
    expect(rival.locator("#race-countdown")).to_have_text(re.compile(r"^[123]$"))
    for page in (maker, rival):  # the deal: the board, at the same moment for both
        expect(page.locator("#table")).to_be_visible(timeout=8000)
        expect(page.locator("#race-strip .racer")).to_have_count(2)
    assert maker.url.endswith(race_url) and rival.url.endswith(race_url)

    half = len(line) // 2
    game = Game(code)
    for number, action in enumerate(line[:half], start=1):
        act(rival, action, number)
        game.replay([action])
    # The maker sees the rival's progress, counts only.
    rival_on_maker = rival_row(maker, "Player 2")
    expect(rival_on_maker.locator(".racer-you")).to_be_hidden()  # the maker's own row says "(you)"
    expect(rival_row(maker, "Player 1").locator(".racer-you")).to_be_visible()
    expect(rival_on_maker.locator(".racer-cards")).to_have_text(str(game.cards_left()))
    expect(rival_on_maker.locator(".racer-score")).to_have_text(str(game.score))
    expect(rival_on_maker.locator(".racer-stock")).to_have_text(str(game.stock_count))

    rival.reload()  # mid-race: back to their own game and the live strip
    expect(rival.locator("#moves")).to_have_text(str(half))
    expect(rival.locator("#race-strip .racer")).to_have_count(2)
    for number, action in enumerate(line, start=1):
        act(maker, action, number)
    expect(rival_row(rival, "Player 1").locator(".racer-status")).to_have_text("won")
    for number, action in enumerate(line[half:], start=half + 1):
        act(rival, action, number)

    tables = []
    for page in (maker, rival):
        expect(page.locator("#race-finish")).to_be_visible()
        rows = page.locator("#race-finish tbody tr")
        expect(rows).to_have_count(2)
        tables.append([rows.nth(i).locator("th, td").all_inner_texts() for i in range(2)])
    # Each page marks its own row in words ("(you)": the fragments are the same for both);
    # otherwise the tables agree.
    assert tables[0][0][1] == "Player 1 (you)" and tables[0][1][1] == "Player 2"
    assert tables[1][0][1] == "Player 1" and tables[1][1][1] == "Player 2 (you)"
    unmarked = [[[cell.replace(" (you)", "") for cell in row] for row in table] for table in tables]
    assert unmarked[0] == unmarked[1]
    (first, second) = unmarked[0]
    assert first[:3] == ["1", "Player 1", "won"] and second[:3] == ["2", "Player 2", "won"]
    expect(maker.locator("#race-again")).to_be_visible()
    expect(rival.locator("#race-again")).to_have_count(0)
    screenshot(maker, "race-finish-test")

    maker.click("#race-again")  # the same racers, a new deal, back in the lobby
    for page in (maker, rival):
        expect(page.locator("#race-lobby-list li")).to_have_count(2, timeout=8000)
    assert maker.js_errors == [] and rival.js_errors == []


class Held(list[Route]):
    """Requests held back by a route, let go later."""

    def append(self, route: Route) -> None:  # (a handler of one argument: the route)
        super().append(route)


def test_the_race_section_holds_one_stream_however_its_scripts_arrive(new_page) -> None:  # type: ignore[no-untyped-def]
    """htmx sets the page up on a timer when its script comes after the page was read, and then
    may do so before the SSE extension's script or before race.js (which sets the section up
    again only when it asked for no stream). Either way the lobby holds one stream, and it is
    live. Each case holds scripts back and lets them go one by one."""
    code, _ = won_deal()
    for late in ("hx-sse-", "race.js"):
        maker, rival = new_page(service_workers="block"), new_page()  # (its scripts reach the network)
        maker.goto("/how-to-play")
        made = maker.request.post("/races", form={"code": code.text()}, max_redirects=0)
        race_url = made.headers["location"]
        held: dict[str, Held] = {"htmx-4": Held(), late: Held(), "/events": Held()}
        for part, routes in held.items():
            maker.route(f"**{part}*", routes.append)
        maker.goto(race_url, wait_until="commit")
        for part in ("htmx-4", late, "/events"):  # htmx, then (its timer gone off) the late one
            maker.wait_for_timeout(400)
            for route in held[part]:
                route.continue_()
        maker.wait_for_timeout(400)
        assert len(held["/events"]) == 1, (late, [route.request.url for route in held["/events"]])
        maker.unroute_all()
        streams: list[str] = []  # any stream asked for from now on (there must be none)
        maker.on("request", lambda request, seen=streams: seen.append(request.url) if "/events" in request.url else None)
        expect(maker.locator("#race-lobby-list li")).to_have_count(1)
        rival.goto("/how-to-play")
        rival.goto(race_url)
        rival.click("#race-join")
        expect(maker.locator("#race-lobby-list li")).to_have_count(2)  # live, through the stream
        assert not streams, (late, streams)
