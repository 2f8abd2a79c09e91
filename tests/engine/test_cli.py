"""The command line: ``tripeaks deal CODE [--json]`` and ``tripeaks play``."""

from __future__ import annotations

import io
import json

import pytest

from app.cli import main


def cards(text: str) -> list[str]:
    return text.split()


DEAL_1_TABLEAU = cards(
    "7D 9C 4D 8H 8D 5S JD 6D 9S JC 5D KD 3C 2D JH 5H 7H 4H 2C AD 6S KC KH 10H 10S JS 10D 8S"
)
DEAL_1_STOCK = cards("4S 6C 7C AS 5C AH KS 6H QS QH QD 9D 3D 3S AC 4C 2H 8C 10C 3H 2S 9H 7S")


@pytest.mark.parametrize("text", ["TP1-E-AAAAAAB", " tp1-n-aaaaaab ", "https://x.org/g/TP1-E-AAAAAAB"])
def test_deal_json(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", text, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    data = json.loads(out)
    assert data.pop("layout") == "three-peaks"
    positions = data.pop("positions")
    assert [(p["row"], p["column"]) for p in positions[:4]] == [(0, 3), (0, 9), (0, 15), (1, 2)]
    assert positions[0]["covered_by"] == [3, 4] and positions[27]["covered_by"] == []
    assert data == {
        "code": "TP1-E-AAAAAAB",
        "rules": "easy",
        "deal_number": 1,
        "tableau": DEAL_1_TABLEAU,
        "waste": "QC",
        "stock": DEAL_1_STOCK,
    }
    assert len(data["tableau"]) == 28 and len(data["stock"]) == 23


def test_deal_json_classic(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", "tp1-c-zzzzzzz", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["code"] == "TP1-C-ZZZZZZZ"
    assert data["rules"] == "classic"
    assert data["deal_number"] == 26**7 - 1
    assert data["waste"] == "KH"
    cards = [*data["tableau"], data["waste"], *data["stock"]]
    assert len(cards) == len(set(cards)) == 52


def test_deal_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", "TP1-E-AAAAAAB"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("TP1-E-AAAAAAB (easy rules, deal 1)\n")
    assert "hidden card" not in out
    assert "waste: queen of clubs" in out
    assert "Stock, top first: 4 of spades, 6 of clubs" in out


@pytest.mark.parametrize("bad", ["TP1-E-AAAAAA", "hello", "", "TP1-X-AAAAAAB", "x" * 5000])
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_bad_code(bad: str, json_flag: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", bad, *json_flag]) != 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n")
    assert err.startswith("tripeaks: ")
    assert "Traceback" not in err
    assert "TP1-E-AAAAAAB" in err
    assert len(err) < 300


def test_play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("21\nd\nu\n0\n99\nwhat\nq\n"))
    assert main(["play", "TP1-E-AAAAAAB"]) == 0
    out = capsys.readouterr().out
    assert "waste: king of clubs" in out
    assert "Score 499, moves 1, playing." in out
    assert "Score 498, moves 2, playing." in out
    assert "Score 499, moves 2, playing." in out  # after the undo
    assert "This card is blocked" in out
    assert "position 99 is not on the board" in out
    assert "Type a position 0-27, d, u or q." in out


def test_play_ends_at_end_of_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "TP1-C-AAAAAAB"]) == 0
    out, err = capsys.readouterr()
    hidden = ", ".join(["hidden card"] * 9)
    bottom = ", ".join(in_words(card) for card in DEAL_1_TABLEAU[18:])
    assert out.splitlines() == [
        "TP1-C-AAAAAAB: type a position (0-27) to remove, d to draw, u to undo, q to quit.",
        f"Stock: 23 cards; waste: queen of clubs. Peak tops: {hidden[:37]}; row 2: {hidden[:76]}; "
        f"row 3: {hidden}; bottom row: {bottom}",
        "Score 500, moves 0, playing.",
        "> ",  # the prompt, then the input ended: the game stops without a word more
    ]
    assert err == ""


def in_words(card: str) -> str:
    """``10H`` → ``10 of hearts`` (SPEC section 9)."""
    rank = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}.get(card[:-1], card[:-1])
    return f"{rank} of {dict(C='clubs', D='diamonds', H='hearts', S='spades')[card[-1]]}"


def test_play_bad_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "nope"]) != 0
    err = capsys.readouterr().err
    assert err.startswith("tripeaks: 'nope' is not a game code") and err.count("\n") == 1
