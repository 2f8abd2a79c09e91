"""Layouts in codes and deals (docs/deals.md sections 1 and 6b), and games played on them."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from app.engine import DRAW, CodeError, Game, GameCode, Rules, Variants, shuffle_tp1
from app.engine.layout import LAYOUTS, THREE_PEAKS
from app.engine.rules import best_score

DEALS_MD = Path(__file__).resolve().parents[2] / "docs" / "deals.md"


def vectors() -> list[tuple[list[str], list[str], str | None, list[str]]]:
    text = DEALS_MD.read_text(encoding="utf-8")
    block = text.split("<!-- layout-vectors -->")[1].split("<!-- /layout-vectors -->")[0]
    found = []
    for item in block.split("\n- ")[1:]:
        item = " ".join(item.split())
        codes = re.findall(r"`(TP1-[A-Z]+-[A-Z]{7})`", item.split(":")[0])
        tableau = re.search(r"tableau `([^`]+)`", item).group(1).split()  # type: ignore[union-attr]
        waste = re.search(r"waste `([^`]+)`", item)
        stock = re.search(r"stock `([^`]+)`", item).group(1).split()  # type: ignore[union-attr]
        found.append((codes, tableau, None if waste is None else waste.group(1), stock))
    return found


def test_the_documented_vectors_deal_as_written() -> None:
    checked = 0
    for codes, tableau, waste, stock in vectors():
        for text in codes:
            deal = GameCode.parse(text).deal()
            assert [c.text() for c in deal.tableau] == tableau, text
            assert (deal.waste and deal.waste.text()) == waste, text
            assert [c.text() for c in deal.stock] == stock, text
            checked += 1
    assert checked == 6


@pytest.mark.parametrize("layout", list(LAYOUTS.values()), ids=list(LAYOUTS))
@pytest.mark.parametrize("number", [0, 1, 12_345, 8_031_810_175])
def test_a_layout_takes_the_first_cards_of_the_same_shuffle(layout, number: int) -> None:  # type: ignore[no-untyped-def]
    for variants in (Variants(), Variants.parse("J"), Variants.parse("W"), Variants.parse("OJWT")):
        code = GameCode(Rules.CLASSIC, number, variants, layout)
        cards = [c.text() for c in shuffle_tp1(number, joker=variants.joker)]
        deal = code.deal()
        n = layout.count
        assert [c.text() for c in deal.tableau] == cards[:n]
        if variants.empty_waste:
            assert deal.waste is None and [c.text() for c in deal.stock] == cards[n:]
        else:
            assert deal.waste is not None and deal.waste.text() == cards[n]
            assert [c.text() for c in deal.stock] == cards[n + 1 :]
        again = GameCode.parse(code.text().lower())
        assert again == code and again.layout is layout


def test_today_s_codes_are_three_peaks_and_unchanged() -> None:
    for text in ("TP1-E-AAAAAAB", "TP1-C-ZZZZZZZ", "TP1-EOJ-AAAAAAB", "TP1-CWT-BAAAAAA"):
        code = GameCode.parse(text)
        assert code.layout is THREE_PEAKS and code.text() == text
        assert code == GameCode(code.rules, code.number, code.variants)
    assert GameCode.parse("TP1-N-AAAAAAB").text() == "TP1-E-AAAAAAB"


def test_the_layout_letter_is_read_anywhere_and_written_after_the_rules() -> None:
    assert GameCode.parse("tp1-eojv-aaaaaab").text() == "TP1-EVOJ-AAAAAAB"
    assert GameCode.parse("https://example.org/g/tp1-cu-aaaaaab").layout is LAYOUTS["up-down"]
    for bad in ("TP1-EVD-AAAAAAB", "TP1-EVV-AAAAAAB"):
        with pytest.raises(CodeError, match="two layouts"):
            GameCode.parse(bad)
    with pytest.raises(CodeError):
        GameCode.parse("TP1-EX-AAAAAAB")


def plain_win(game: Game, seen: set[tuple[int, int, int]]) -> list[int] | None:
    """A winning line by plain search over the game's own moves (no solver)."""
    if game.status.value == "won":
        return []
    key = (game.removed_mask, game.drawn, game.waste.rank if game.waste else 0)
    if key in seen:
        return None
    seen.add(key)
    for action in [*game.playable_positions(), DRAW] if game.can_draw() else game.playable_positions():
        game.replay([action])
        rest = plain_win(game, seen)
        if rest is not None:
            return [action, *rest]
        game.undo()
    return None


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_games_on_every_layout_follow_the_cover_rule_and_win_with_the_layout_s_best_score(word: str) -> None:
    layout = LAYOUTS[word]
    rng = random.Random(word)
    won = 0
    for number in range(40):
        game = Game(GameCode(Rules.EASY, number, Variants(), layout), undo_limit=10**6)
        assert game.stock_count == 52 - layout.count - 1 and game.cards_left() == layout.count
        for _ in range(60):  # random play: exposure is the cover rule, face up is exposure
            for p in range(layout.count):
                covered = any(not game.is_removed(q) for q in layout.covered_by[p])
                assert game.is_exposed(p) is (not game.is_removed(p) and not covered)
            moves = game.playable_positions() + ([DRAW] if game.can_draw() else [])
            if not moves:
                break
            game.replay([rng.choice(moves)])
        line = plain_win(Game(game.code, undo_limit=10**6), set()) if won < 2 else None
        if line is not None:
            end = Game(game.code)
            end.replay(line)
            assert end.status.value == "won" and end.cards_left() == 0
            assert end.score == best_score(layout) - line.count(DRAW)
            assert all(end.peaks_cleared) and len(end.peaks_cleared) == layout.peak_count
            won += 1
    assert won == 2


def test_the_cli_deal_names_the_layout_and_its_positions(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from app.cli import main

    assert main(["deal", "tp1-ev-aaaaaab", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    valley = LAYOUTS["valley"]
    assert data["code"] == "TP1-EV-AAAAAAB" and data["layout"] == "valley" and len(data["tableau"]) == 30
    assert data["positions"] == [
        {"row": s.row, "column": s.column, "covered_by": list(valley.covered_by[p])} for p, s in enumerate(valley.spots)
    ]
    assert main(["deal", "TP1-EU-AAAAAAB"]) == 0
    assert "Row 1: " in capsys.readouterr().out


@pytest.mark.parametrize("word", list(LAYOUTS))
def test_the_cli_places_every_layout_s_positions_as_its_table_does(word: str, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from app.cli import main
    from tests.support.layout_tables import tables

    layout = LAYOUTS[word]
    code = GameCode(Rules.CLASSIC, 12345, Variants.parse("WJ"), layout)
    assert main(["deal", code.text().lower(), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    cards, cover_masks = tables(word)  # read again from docs/layouts.md's text
    assert data["layout"] == word and data["code"] == code.text()
    assert [(p["row"], p["column"]) for p in data["positions"]] == [(row, column) for row, column, _ in cards]
    assert [sum(1 << q for q in p["covered_by"]) for p in data["positions"]] == cover_masks
    assert len(data["tableau"]) == layout.count


def test_the_layout_letter_is_read_in_any_place_and_case_among_the_variant_letters() -> None:
    import itertools

    for layout in LAYOUTS.values():
        for letters in ("", "W", "OJ", "OWJT"):
            canonical = GameCode(Rules.CLASSIC, 7, Variants.parse(letters), layout).text()
            for order in itertools.permutations(layout.letter + letters):
                written = "".join(order)
                for text in (f"TP1-C{written}-AAAAAAH", f"tp1-c{written.lower()}-aaaaaah",
                             f"https://example.org/g/TP1-C{written}-AAAAAAH"):
                    code = GameCode.parse(text)
                    assert code.text() == canonical and code.layout is layout, text
