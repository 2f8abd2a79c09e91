"""A player on every device, the whole path in real browsers (issue 38), on one server (SQLite)
whose clock the test fixes (served in this process, as the daily tests fix theirs):

Dana (a name, games, and a daily streak of three days) links a second browser by typing the
code, a third (with a history of its own and the same day's daily, begun earlier) by the QR
code's link read back from the screenshot, bringing its history along; a fourth by her
recovery code; then adds a passkey with Chromium's virtual authenticator and signs a fifth
browser in with it (the passkey carried over as a password manager syncs one). Each sees the
same statistics, streaks, calendar and name. The second test takes screenshots of the new
pages at three sizes in the four languages, and runs axe on them.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from app.engine import Game, Rules
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
from tests.support.deals import winning_line, won_deal
from tests.support.store import greedy, line_of
from tests.support.worlds import World, world_at

KEY = "devices-path-key-" + "k" * 24
DAYS = [dt.date(2026, 12, 1) + dt.timedelta(days=n) for n in range(3)]
LANDSCAPE = {"width": 844, "height": 390}
SIZES = {"desktop": DESKTOP, "phone": PHONE, "landscape": LANDSCAPE}
LOCALES = {"en": "en-GB", "he": "he-IL", "uk": "uk-UA", "th": "th-TH"}


def at(day: dt.date, hour: int) -> float:
    return dt.datetime.combine(day, dt.time(hour), dt.UTC).timestamp()


@pytest.fixture(scope="module")
def world(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with world_at(browser, tmp_path_factory.mktemp("devices"), KEY, at(DAYS[0], 8)) as made:
        yield made


def play(page: Page, world: World, path: str, line: list[int] | tuple[int, ...]) -> None:
    """Open ``path`` (a daily day, a deal) and play ``line`` as form posts, 2 s of the fixed clock apart."""
    page.goto(path)
    post_line(page, line, clock=world.clock, step=2)


def daily_lines(day: dt.date) -> tuple[list[int], tuple[int, ...]]:
    code = daily_code(KEY.encode(), day)
    won = winning_line(Game(code))
    assert won is not None
    return won, line_of(greedy(code, prefer_draw=True))


def stats_json(page: Page) -> dict[str, Any]:
    answer = page.request.get("/api/players/me/stats")
    assert answer.ok
    return answer.json()  # type: ignore[no-any-return]


def add_device(page: Page) -> str:
    """“Add a device” on the statistics page (htmx swaps the code in); the code shown."""
    page.goto("/stats")
    page.click("#add-device-button")
    code = page.locator("#link-code-value")
    expect(code).to_have_text(re.compile(r"^\w{3}-\w{3}-\w{3}$"))
    expect(page.locator("#link-code")).to_be_focused()
    return code.inner_text()


def qr_link(page: Page) -> str:
    """The QR code as the browser draws it, read back by a QR decoder (zxing-cpp)."""
    zxingcpp = pytest.importorskip("zxingcpp")
    image = pytest.importorskip("PIL.Image")
    shot = page.locator("#link-code .qr-code").screenshot()
    found = zxingcpp.read_barcodes(image.open(io.BytesIO(shot)).convert("L"))
    assert len(found) == 1, "no QR code read"
    return str(found[0].text)


def sees_dana(page: Page, reference: dict[str, Any], calendar: str) -> None:
    expect(page.locator("#linked-note")).to_be_visible()
    expect(page.locator("#playing-as")).to_contain_text("Dana")
    expect(page.locator("#daily-streak")).to_have_text("3 days")
    assert stats_json(page) == reference
    page.goto("/daily/calendar")
    assert page.locator("#daily-calendar").inner_html() == calendar


def test_the_whole_path_on_five_browsers(world: World) -> None:
    # Dana: a name (by the form), a won game, and the daily deal three days running.
    dana = world.page()
    dana.goto("/stats")
    dana.fill("#name-input", "Dana")
    dana.click("#save-name")
    code, line = won_deal(Rules.EASY)
    play(dana, world, f"/g/{code.text()}", line)
    for day in DAYS[:2]:
        world.clock.now = at(day, 10)
        play(dana, world, f"/daily/{day.isoformat()}", daily_lines(day)[0])
    # Cy, in a browser of his own, plays the third day's deal first (blocked), and a game.
    cy = world.page(LANDSCAPE)
    world.clock.now = at(DAYS[2], 9)
    play(cy, world, f"/daily/{DAYS[2].isoformat()}", daily_lines(DAYS[2])[1])
    play(cy, world, f"/g/{code.text()}", line[:3])
    world.clock.now = at(DAYS[2], 10)
    play(dana, world, f"/daily/{DAYS[2].isoformat()}", daily_lines(DAYS[2])[0])
    world.clock.now = at(DAYS[2], 11)
    before = stats_json(dana)
    assert before["display_name"] == "Dana" and before["daily"]["current"] == 3
    dana.goto("/daily/calendar")
    calendar = dana.locator("#daily-calendar").inner_html()

    # A second browser (a phone): the code typed by keyboard, any case, spaces for dashes.
    typed = add_device(dana)
    phone = world.page(PHONE)
    phone.goto("/link")
    expect(phone.locator("#history-question")).to_have_count(0)  # nothing of its own to bring
    phone.locator("#code-input").focus()
    phone.keyboard.type(typed.lower().replace("-", " "))
    phone.keyboard.press("Enter")
    phone.wait_for_url(re.compile(r"/stats\?linked=1$"))
    sees_dana(phone, before, calendar)

    # A third (Cy's), by the QR code's link: his history comes along.
    cy_before = stats_json(cy)
    add_device(dana)
    link = qr_link(dana)
    assert re.fullmatch(rf"{world.url}/link/\w{{9}}", link), link
    cy.goto(link)
    expect(cy.locator("#link-code-shown")).to_be_visible()
    cy.locator('input[name="bring_history"][value="yes"]').focus()
    cy.keyboard.press("Space")
    cy.locator("#code-submit").focus()
    cy.keyboard.press("Enter")
    cy.wait_for_url(re.compile(r"/stats\?linked=1$"))
    merged = stats_json(cy)
    assert merged["stats"][0]["played"] == before["stats"][0]["played"] + cy_before["stats"][0]["played"]
    assert merged["daily"]["current"] == 3  # worked out again: still three days
    today = cy.request.get(f"/api/daily/{DAYS[2].isoformat()}").json()
    assert today["you"]["won"] is False  # Cy's earlier attempt stays the ranked one; Dana's is practice
    assert [row["name"] for row in today["leaderboard"]] == ["Dana"]
    assert stats_json(dana) == merged
    dana.goto("/daily/calendar")
    calendar = dana.locator("#daily-calendar").inner_html()
    expect(cy.locator("#playing-as")).to_contain_text("Dana")

    # A fourth, by the recovery code.
    dana.goto("/devices")
    dana.click("#recovery-button")
    recovery = dana.locator("#recovery-code").input_value()
    assert re.fullmatch(r"(\w{4}-){7}\w{4}", recovery)
    lost = world.page()
    lost.goto("/recover")
    lost.locator("#code-input").fill(recovery)
    lost.click("#code-submit")
    lost.wait_for_url(re.compile(r"/stats\?linked=1$"))
    sees_dana(lost, merged, calendar)
    dana.goto("/devices")
    expect(dana.locator("#devices .device")).to_have_count(4)

    # A passkey, added on a browser at http://localhost (Chromium's virtual authenticator) ...
    laptop = world.page(host="localhost")
    made = dana.request.post("/api/players/me/link-codes").json()["code"]
    laptop.goto("/link/" + made.replace("-", ""))
    laptop.click("#code-submit")
    laptop.wait_for_url(re.compile(r"/stats\?linked=1$"))
    authenticator, cdp = virtual_authenticator(laptop)
    laptop.goto("/devices")
    laptop.click("#add-passkey-button")
    expect(laptop.locator("#passkey-list .device")).to_have_count(1)
    (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert credential["isResidentCredential"]
    # ... and a fifth browser signed in with it, the passkey synced to its authenticator.
    fifth = world.page(host="localhost")
    other, other_cdp = virtual_authenticator(fifth)
    other_cdp.send("WebAuthn.addCredential", {"authenticatorId": other, "credential": credential})
    fifth.goto("/link")
    fifth.click("#passkey-sign-in-button")
    fifth.wait_for_url(re.compile(r"/stats\?linked=1$"))
    sees_dana(fifth, merged, calendar)
    dana_id = dana.request.get("/api/players/me/export").json()["player"]["id"]
    assert len(world.store.passkeys(dana_id)) == 1 and world.store.passkeys(dana_id)[0].sign_count >= 1


def virtual_authenticator(page: Page) -> tuple[str, Any]:
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    found = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return str(found["authenticatorId"]), cdp


def test_the_new_pages_at_three_sizes_in_four_languages(world: World) -> None:
    """Your devices (with a link code and its QR code), Link this browser (with the history
    question), Delete me: every size and language, no sideways scroll; axe in two languages."""
    maker = world.page()
    assert maker.request.put("/api/players/me/name", data={"name": "Eve"}).ok
    state = maker.context.storage_state()
    shots: list[Path] = []
    for lang, locale in LOCALES.items():
        page = world.page(locale=locale, storage_state=state)
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            page.goto("/devices")
            page.click("#add-device-button")
            expect(page.locator("#link-code .qr-code")).to_be_visible()
            settle(page)
            no_sideways_scroll(page, viewport["width"])
            shots.append(screenshot(page, f"devices-{lang}-{size}"))
            code = page.locator("#link-code-value").inner_text().replace("-", "")
            page.goto(f"/link/{code}")
            expect(page.locator("#history-question")).to_be_visible()
            no_sideways_scroll(page, viewport["width"])
            shots.append(screenshot(page, f"devices-link-{lang}-{size}"))
            page.goto("/players/me/delete")
            no_sideways_scroll(page, viewport["width"])
            shots.append(screenshot(page, f"devices-delete-{lang}-{size}"))
            if size == "desktop" and lang in ("en", "he"):
                assert page.locator("html").get_attribute("dir") == ("rtl" if lang == "he" else "ltr")
                for path in ("/devices", f"/link/{code}"):
                    page.goto(path)
                    settle(page)
                    assert run_axe(page) == [], (lang, path)
    assert len(shots) == 36 and all(shot.stat().st_size > 5_000 for shot in shots)
