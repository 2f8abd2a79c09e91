"""Accessibility in a real browser: axe, contrast measured on pixels, the keyboard, announcements.

Where focus goes after each action is written down in docs/accessibility.md; each case is
tested here. The words the page says are compared with the catalogs' own (.po) strings.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from app.engine import DRAW, Game, GameCode, Rules
from app.engine.rules import PEAK_BONUS
from app.web.presentation.layouts_on_page import tableau_order
from tests.support.browser import (
    BROWSER_LOCALES,
    DESKTOP,
    MID_CODE,
    PHONE,
    REFUSED_MOVES,
    STATES,
    VIEWS,
    card_name,
    low_contrast,
    play_by_keys,
    play_line_by_keys,
    reach,
    refusal,
    run_axe,
    says,
    settle,
)
from tests.support.deals import blocked_by_drawing, won_deal

LIVE = "[aria-live], [role=status], [role=alert], [role=log], [role=marquee], [role=timer]"


def card(page: Page, position: int):  # type: ignore[no-untyped-def]
    return page.locator(f'#peaks [data-position="{position}"]')


def focused(page: Page) -> str:
    return str(page.evaluate("document.activeElement.id || document.activeElement.tagName"))


def board_focused(page: Page) -> None:
    """Focus is on the board: on its one card in the Tab order."""
    expect(page.locator("#peaks [tabindex='0']")).to_be_focused()


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# -- axe and contrast ------------------------------------------------------------------------


def test_axe_finds_nothing_in_any_state_page_or_language(new_page) -> None:  # type: ignore[no-untyped-def]
    found = []
    for lang, locale in BROWSER_LOCALES.items():
        for viewport in (DESKTOP, PHONE):
            page = new_page(viewport=viewport, locale=locale)
            page.faults.expect(*refusal(400, "GET", "/g/TP1-X-BAD"))  # the bad code's page, on purpose
            for state in STATES:
                if viewport is PHONE and state in ("start", "mid"):
                    continue  # the phone looks at the ended games and the window
                reach(page, state)
                found.extend((lang, state, viewport["width"], v) for v in run_axe(page))
            if viewport is DESKTOP:
                page.keyboard.press("Escape")
                page.click(".lang-current")  # the language menu open
                found.extend((lang, "language menu", v) for v in run_axe(page))
                for path in ("/new", "/g/TP1-X-BAD"):
                    page.goto(path)
                    found.extend((lang, path, v) for v in run_axe(page))
    assert found == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", list(BROWSER_LOCALES))
def test_every_text_has_contrast_against_its_actual_background(new_page, scheme: str, lang: str) -> None:  # type: ignore[no-untyped-def]
    """One case per scheme and language (the whole grid in one test outran its five minutes on
    a loaded CI machine)."""
    low = []
    for viewport in (DESKTOP, PHONE, VIEWS["844x390"]):
        page = new_page(viewport=viewport, locale=BROWSER_LOCALES[lang], bypass_csp=True, color_scheme=scheme)
        # The phone on its side: the ended games, whose result box lies over the table (issue 30).
        states = ("won", "blocked") if viewport["height"] < 400 else ("mid", "won", "blocked", "new-game")
        for state in states:
            reach(page, state)
            low.extend((viewport["width"], state, *t) for t in low_contrast(page))
    assert low == [], "\n".join(map(str, low))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_other_pages_texts_have_contrast_too(new_page, scheme: str) -> None:  # type: ignore[no-untyped-def]
    """Statistics, How to play, the New game page and an error page (the review page has
    tests of its own)."""
    low = []
    for lang in ("en", "he"):
        for viewport in (DESKTOP, PHONE):
            page = new_page(viewport=viewport, locale=BROWSER_LOCALES[lang], bypass_csp=True, color_scheme=scheme)
            page.faults.expect(*refusal(400, "GET", "/g/TP1-X-BAD"))  # the bad code's page, on purpose
            for path in ("/stats", "/how-to-play", "/new", "/g/TP1-X-BAD"):
                page.goto(path)
                settle(page)
                low.extend((lang, viewport["width"], path, *t) for t in low_contrast(page))
    assert low == [], "\n".join(map(str, low))


def test_forced_colors_keep_face_down_cards_solid_and_the_hint_marked(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(forced_colors="active")
    reach(page, "mid")
    back = page.locator("#peaks .card.back").first
    assert back.evaluate("e => getComputedStyle(e).forcedColorAdjust") == "none"
    assert "gradient" in back.evaluate("e => getComputedStyle(e).backgroundImage")
    page.click("#hint")
    expect(page.locator(".hinted")).to_have_count(1, timeout=30_000)  # the solver, on a busy machine
    outline = page.locator(".hinted").evaluate("e => getComputedStyle(e).outlineStyle")
    assert outline == "dashed"


RING = "e => { const s = getComputedStyle(e); return [s.outlineStyle, s.translate]; }"


def test_the_hint_and_the_focus_differ_by_more_than_colour(new_page) -> None:  # type: ignore[no-untyped-def]
    """Issue 30: the hint ring was the focus ring in gold. Now the hinted card stands raised in
    a dashed ring, a focused card has a solid ring, and a hinted card with focus a double one:
    in light and dark schemes and in forced colours."""
    for options in ({"color_scheme": "light"}, {"color_scheme": "dark"}, {"forced_colors": "active"}):
        page = new_page(**options)
        reach(page, "start")
        page.click("#hint")
        hinted = page.locator(".hinted")
        expect(hinted).to_have_count(1, timeout=30_000)
        settle(page)
        style, lift = hinted.evaluate(RING)
        assert style == "dashed" and lift not in ("none", "0px"), (options, style, lift)
        if hinted.get_attribute("id") == "stock":
            other = page.locator("#peaks button.card.face").first
        else:
            other = page.locator("#peaks button.card.face:not(.hinted)").first
        other.focus()
        page.keyboard.press("ArrowRight")  # focus by keyboard: the ring a keyboard player sees
        page.keyboard.press("ArrowLeft")
        focused = page.locator(":focus")
        if "hinted" in (focused.get_attribute("class") or ""):
            assert focused.evaluate(RING)[0] == "double", options
            page.keyboard.press("ArrowRight")
            focused = page.locator(":focus")
        style, lift = focused.evaluate(RING)
        assert style == "solid" and lift in ("none", "0px"), (options, style, lift)


# -- keyboard ----------------------------------------------------------------------------------


def test_the_board_is_one_tab_stop_and_the_skip_link_leads_to_it(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    reach(page, "start")
    page.keyboard.press("Tab")
    assert focused(page) == "skip-link" and page.evaluate("document.activeElement.className") == "skip-link"
    expect(page.locator(".skip-link")).to_be_in_viewport()
    page.keyboard.press("Enter")
    board_focused(page)
    assert page.locator("#peaks [tabindex='0']").count() == 1
    assert page.locator("#peaks button:not([tabindex='-1'])").count() == 1
    page.keyboard.press("Tab")  # out of the board in one press
    assert focused(page) == "stock"
    page.keyboard.press("Shift+Tab")
    board_focused(page)


def test_arrow_keys_move_among_the_face_up_cards_mirrored_right_to_left(new_page) -> None:  # type: ignore[no-untyped-def]
    for locale, forward, back in (("en-GB", "ArrowRight", "ArrowLeft"), ("he-IL", "ArrowLeft", "ArrowRight")):
        page = new_page(locale=locale)
        reach(page, "start")
        card(page, 18).focus()
        page.keyboard.press(forward)
        expect(card(page, 19)).to_be_focused()
        page.keyboard.press(forward)
        expect(card(page, 20)).to_be_focused()
        page.keyboard.press(back)
        expect(card(page, 19)).to_be_focused()
        page.keyboard.press("End")
        expect(card(page, 27)).to_be_focused()
        page.keyboard.press("Home")
        expect(card(page, 18)).to_be_focused()
        page.keyboard.press("ArrowUp")  # nothing face up above: focus stays
        expect(card(page, 18)).to_be_focused()
        assert card(page, 18).get_attribute("tabindex") == "0"
        assert page.locator("#peaks [tabindex='0']").count() == 1


def test_arrow_up_reaches_a_card_the_move_turned_face_up(new_page) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal(Rules.EASY)
    game = Game(code)
    page = new_page()
    page.goto(f"/g/{code.text()}")
    # Play until a card above the bottom row is face up, by keyboard.
    for action in line:
        play_by_keys(page, action)
        game.replay([action])
        expect(page.locator("#moves")).to_have_text(str(game.moves))
        upper = [p for p in range(18) if game.is_exposed(p)]
        lower = [p for p in range(18, 28) if not game.is_removed(p)]
        if upper and lower:
            card(page, lower[0]).focus()
            for _ in range(4):
                page.keyboard.press("ArrowUp")
            here = int(page.evaluate("document.activeElement.dataset.position"))
            assert here < 18 and game.is_exposed(here)
            return
    raise AssertionError("no card above the bottom row was turned")


def test_space_on_a_card_plays_it_and_focus_goes_to_the_nearest_card(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.faults.expect(*REFUSED_MOVES)  # the refused moves, on purpose
    page.goto(f"/g/{MID_CODE}")
    if page.locator("#moves").inner_text() != "0":
        page.click("#restart")
    game = Game.from_code(MID_CODE)
    target = game.playable_positions()[0]
    card(page, target).focus()
    page.keyboard.press(" ")
    expect(page.locator("#moves")).to_have_text("1")
    game.remove(target)
    expect(page.locator("#waste")).to_have_attribute("aria-label", says("en", "Waste: %(card)s", card=game.waste.words()))
    assert card(page, target).evaluate("e => e.tagName") == "SPAN"  # the card left the peaks
    here = int(page.evaluate("document.activeElement.dataset.position"))
    assert here != target and game.is_exposed(here) and abs(here - target) == 1
    # A card that cannot move: Space does nothing to the game and says why.
    wrong = next(p for p in range(18, 28) if game.is_exposed(p) and p not in game.playable_positions())
    card(page, wrong).focus()
    page.keyboard.press(" ")
    reason = says("en", "Rank must be one higher or lower")
    expect(page.locator("#status")).to_have_text(says("en", "%(reason)s. Waste: %(card)s.", reason=reason, card=game.waste.words()))
    expect(page.locator("#moves")).to_have_text("1")
    expect(card(page, wrong)).to_be_focused()


def test_focus_after_each_action(new_page) -> None:  # type: ignore[no-untyped-def]
    """docs/accessibility.md, "Where focus goes": each row of its table."""
    page = new_page()
    page.faults.expect(*REFUSED_MOVES)  # the refused moves, on purpose
    page.faults.expect(*refusal(400, "POST", "/new"))  # the bad code, on purpose
    code = GameCode(Rules.EASY, 21)
    page.goto(f"/g/{code.text()}")
    # A refused move: focus stays on the card (Error help says why).
    start = Game(code)
    refused = next(p for p in range(18, 28) if p not in start.playable_positions())
    card(page, refused).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#status")).not_to_be_empty()
    expect(page.locator("#moves")).to_have_text("0")
    expect(card(page, refused)).to_be_focused()
    # The settings' toggles: focus stays on the toggle (the button is swapped, its id kept).
    for toggle in ("#error-help", "#large-cards"):
        pressed = page.locator(toggle).get_attribute("aria-pressed")
        for _ in range(2):
            page.focus(toggle)
            page.keyboard.press("Enter")
            expect(page.locator(toggle)).not_to_have_attribute("aria-pressed", str(pressed))
            expect(page.locator(toggle)).to_be_focused()
            pressed = page.locator(toggle).get_attribute("aria-pressed")
    # Draw with the stock: focus stays on the stock.
    page.focus("#stock")
    page.keyboard.press("Enter")
    expect(page.locator("#moves")).to_have_text("1")
    expect(page.locator("#stock")).to_be_focused()
    # Undo with its button: focus stays on it while there is more to undo, then the board.
    page.focus("#undo")
    page.keyboard.press("Enter")
    expect(page.locator("#stock-count")).to_have_text("23")
    board_focused(page)
    # Hint: focus stays on the button.
    page.focus("#hint")
    page.keyboard.press("Enter")
    expect(page.locator("#hints")).to_have_text("1")
    expect(page.locator("#hint")).to_be_focused()
    # New game: the window takes focus, on its first choice; Escape gives it back.
    page.focus("#new-game-button")
    page.keyboard.press("Enter")
    expect(page.locator("#new-game")).to_be_visible()
    expect(page.locator("input[name=rules][value=easy]")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#new-game")).to_be_hidden()
    expect(page.locator("#new-game-button")).to_be_focused()
    # A bad code: focus back on the field, which names its error; an edit clears the error.
    page.keyboard.press("n")
    expect(page.locator("#code-input")).to_be_focused()
    page.keyboard.type("TP1-Q")
    page.keyboard.press("Enter")
    expect(page.locator("#code-error")).to_be_visible()
    expect(page.locator("#code-input")).to_be_focused()
    expect(page.locator("#code-input")).to_have_attribute("aria-describedby", "code-error")
    page.keyboard.press("Backspace")
    expect(page.locator("#code-error")).to_have_count(0)
    # A code dealt from the window: the board.
    page.fill("#code-input", "try this: https://example.org/g/TP1-C-AAAAABC!")
    page.keyboard.press("Enter")
    expect(page.locator("#code")).to_have_text("TP1-C-AAAAABC")
    expect(page.locator("#new-game")).to_be_hidden()
    board_focused(page)
    # Restart asks nothing but offers the way back; both land on the board.
    page.keyboard.press("d")
    expect(page.locator("#moves")).to_have_text("1")
    page.focus("#restart")
    page.keyboard.press("Enter")
    expect(page.locator("#moves")).to_have_text("0")
    board_focused(page)
    page.focus("#resume")
    page.keyboard.press("Enter")
    expect(page.locator("#moves")).to_have_text("1")
    board_focused(page)
    page.reload()  # the way back is kept: this is the current game of the deal
    expect(page.locator("#moves")).to_have_text("1")


def test_focus_after_a_win_and_a_block(new_page) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal(Rules.EASY)
    page = new_page()
    page.goto(f"/g/{code.text()}")
    play_line_by_keys(page, line)
    expect(page.locator("#result-new-game")).to_be_focused()
    expect(page.locator("#hint")).to_be_disabled()
    expect(page.locator("#undo")).to_be_disabled()
    # The box's New game opens the window on its rules choice; Escape gives focus back.
    page.keyboard.press("Enter")
    expect(page.locator("input[name=rules]:checked")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#result-new-game")).to_be_focused()
    # "Play this deal again": the board.
    page.focus("#play-again")
    page.keyboard.press("Enter")
    expect(page.locator("#moves")).to_have_text("0")
    board_focused(page)
    blocked = blocked_by_drawing()
    page.goto(f"/g/{blocked.text()}")
    for count in range(22, -1, -1):
        page.keyboard.press("d")
        expect(page.locator("#stock-count")).to_have_text(str(count))
    expect(page.locator("#result-undo")).to_be_focused()
    expect(page.locator("#hint")).to_be_disabled()
    page.keyboard.press("Enter")  # the box's own Undo
    expect(page.locator("#stock-count")).to_have_text("1")
    expect(page.locator("#result")).to_have_count(0)
    # The box went away with its button: focus goes to the board (docs/accessibility.md).
    expect(page.locator("#peaks button.card.face").and_(page.locator(":focus"))).to_have_count(1)
    expect(page.locator("#peaks button.card.face[tabindex='0']")).to_be_focused()


# -- announcements -----------------------------------------------------------------------------


def test_one_live_region_says_what_each_action_did(new_page) -> None:  # type: ignore[no-untyped-def]
    """In the page's language, from a capital letter: the card to the waste, the cards turned
    face up, a peak cleared, the game won or blocked, and the score."""
    code, line = won_deal(Rules.EASY)
    for lang in ("en", "uk"):
        page = new_page(locale=BROWSER_LOCALES[lang])
        page.goto(f"/g/{code.text()}")
        # one region for the actions; the offline note (role=alert, hidden while online) speaks
        # only when a tap finds no network (issue 42), never of an action
        assert page.locator(LIVE).count() == 2 and page.locator(f"#offline-note:is({LIVE})").is_hidden()
        game = Game(code)
        words = page.evaluate("document.documentElement.lang")
        assert words == lang
        for action in line:
            before = game.peaks_cleared
            if action == DRAW:
                page.click("#stock")
                game.draw()
                said = [cap(says(lang, "Drew %(card)s.", card=card_name(lang, game.waste)))]
            else:
                exposed = {p for p in range(28) if game.is_exposed(p)}
                card(page, action).click()
                game.remove(action)
                said = [cap(says(lang, "%(card)s to the waste.", card=card_name(lang, game.waste)))]
                turned = [p for p in range(28) if game.is_exposed(p) and p not in exposed]
                if turned:
                    cards = ", ".join(card_name(lang, game.deal.tableau[p]) for p in sorted(turned))
                    said.append(says(lang, "Turned face up: %(cards)s.", cards=cards))
                if sum(game.peaks_cleared) > sum(before):
                    said.append(says(lang, "Peak cleared: %(points)s points!", points=PEAK_BONUS))
            if game.status.value == "won":
                said.append(won_words(lang, game))
            else:
                said.append(says(lang, "Score %(score)s.", score=game.score))
            if action == DRAW and game.status.value == "playing":  # whether a move is possible now
                said.append(can_be_played(lang, game))
            expect(page.locator("#status")).to_have_text(" ".join(said))
            assert page.locator(LIVE).count() == 2  # the actions' region and the (hidden) offline note
        assert game.status.value == "won"


def can_be_played(lang: str, game: Game) -> str:
    """What a draw adds, from the catalog: the cards that can be played now, in the board's order."""
    playable = set(game.playable_positions())
    cards = [card_name(lang, game.deal.tableau[p]) for p in tableau_order(game.layout) if p in playable]
    if cards:
        return says(lang, "Can be played now: %(cards)s.", cards=", ".join(cards))
    if game.stock_count:
        return says(lang, "No card can be played now: draw from the stock.")
    return says(lang, "No card can be played now.")


def test_the_blocked_game_and_undo_are_announced(new_page) -> None:  # type: ignore[no-untyped-def]
    code = blocked_by_drawing()
    page = new_page(locale="th-TH")
    page.goto(f"/g/{code.text()}")
    game = Game(code)
    for _ in range(23):
        page.keyboard.press("d")
        game.draw()
        expect(page.locator("#stock-count")).to_have_text(str(game.stock_count))
    blocked = says("th", "No more possible moves")
    expect(page.locator("#status")).to_contain_text(blocked)
    expect(page.locator("#status")).to_contain_text(says("th", "Score %(score)s.", score=game.score))
    # The box shows the heading; the status line does not repeat it on screen.
    expect(page.locator("#result h2")).to_have_text(blocked)
    expect(page.locator("#status")).not_to_be_in_viewport()
    page.click("#undo")
    game.undo()
    expect(page.locator("#status")).to_have_text(
        says("th", "Took back the draw. Waste: %(waste)s.", waste=card_name("th", game.waste))
        + " " + says("th", "Score %(score)s.", score=game.score)
    )


def test_an_undone_removal_says_how_many_cards_turned_back_down(new_page) -> None:  # type: ignore[no-untyped-def]
    code, line = won_deal(Rules.EASY)
    game = Game(code)
    page = new_page()
    page.goto(f"/g/{code.text()}")
    for action in line:
        if action == DRAW:
            page.click("#stock")
            game.draw()
            expect(page.locator("#moves")).to_have_text(str(game.moves))
            continue
        exposed = {p for p in range(28) if game.is_exposed(p)}
        card(page, action).click()
        game.remove(action)
        expect(page.locator("#moves")).to_have_text(str(game.moves))
        turned = sorted(p for p in range(28) if game.is_exposed(p) and p not in exposed)
        if turned:
            page.click("#undo")
            turned_down = "A card turned face down." if len(turned) == 1 else "Two cards turned face down."
            expect(page.locator("#status")).to_contain_text(says("en", turned_down))
            for p in turned:  # how many, never which: they are face down again
                expect(page.locator("#status")).not_to_contain_text(game.deal.tableau[p].words())
            for p in turned:
                expect(card(page, p)).to_have_class(re.compile(r"\bback\b"))
            return
    raise AssertionError("no removal turned a card")


def test_the_board_in_words_says_what_can_be_played(new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.goto(f"/g/{MID_CODE}")
    game = Game.from_code(MID_CODE)
    page.locator("details.words summary").click()
    names = ", ".join(game.deal.tableau[p].words() for p in sorted(game.playable_positions()))
    if page.locator("#moves").inner_text() == "0":
        expect(page.locator("#words-text")).to_contain_text(says("en", "Can be played now: %(cards)s.", cards=names))
    # Face-down cards are not in the reading order as 18 buttons; the words name them.
    assert page.locator("#peaks .card.back[aria-hidden='true']").count() >= 1
    assert page.get_by_role("button", name="hidden card").count() == 0


def won_words(lang: str, game: Game) -> str:
    """The win's words as the catalog spells them, in the catalog's own plural form."""
    from tests.support.catalogs import po_plural

    return po_plural(lang, "You won! Final score %(score)s in %(count)s move.", game.moves) % {
        "score": game.score,
        "count": game.moves,
    }


