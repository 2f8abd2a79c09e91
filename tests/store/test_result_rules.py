"""The pure parts of records: which result a game gets (``recorded``, what both backends record
with), how a result changes a deal's record, streaks, names."""

from __future__ import annotations

import datetime as dt

import pytest

from app.engine import DRAW, Game, GameCode
from app.store.base import BadDisplayName, Feat, GameResult, clean_display_name
from app.store.deal_records import DealRow, feats_from_text, feats_text, merge
from app.store.results import improves, recorded, streaks
from tests.support.deals import blocked_by_drawing, won_deal
from tests.support.store import greedy

NOW = 1_800_000_000.0


def record(
    row: DealRow, game: str, *, won: bool, score: int = 0, left: int = 0, first: bool = True
) -> set[Feat]:
    return set(
        merge(row, game_id=game, player="p-" + game, won=won, score=score, cards_left=left, at=1.0,
              first_result=first)
    )  # fmt: skip


def test_merge_wins() -> None:
    row = DealRow("TP1-E-AAAAAAB")
    assert record(row, "a", won=True, score=700) == {Feat.FIRST_WIN}
    assert (row.first_game, row.best_game, row.best_score, row.wins, row.finished) == (
        "a",
        "a",
        700,
        1,
        1,
    )
    assert record(row, "b", won=True, score=690) == set()
    assert record(row, "c", won=True, score=700) == set()  # a tie does not break the record
    assert record(row, "d", won=True, score=701) == {Feat.NEW_RECORD}
    assert (row.first_game, row.best_game, row.best_player, row.wins) == ("a", "d", "p-d", 4)
    assert row.unfinished_cards_left is None


def test_merge_unfinished() -> None:
    row = DealRow("TP1-E-AAAAAAB")
    assert record(row, "a", won=False, left=5) == {Feat.BEST_UNFINISHED}
    assert record(row, "b", won=False, left=5) == set()
    assert record(row, "c", won=False, left=2) == {Feat.BEST_UNFINISHED}
    assert (row.unfinished_cards_left, row.unfinished_game, row.finished, row.wins) == (
        2,
        "c",
        3,
        0,
    )
    # Game "c" comes back and wins: counted as a win, not as another finished game.
    assert record(row, "c", won=True, score=650, first=False) == {Feat.FIRST_WIN}
    assert (row.wins, row.finished, row.unfinished_cards_left) == (1, 3, 2)


def test_improves() -> None:
    from app.store.base import GameResult

    def result(won: bool, left: int) -> GameResult:
        import datetime as dt

        return GameResult(
            "g", None, "TP1-E-AAAAAAB", won, 500, left, 3, frozenset(), dt.datetime.now(dt.UTC)
        )

    assert improves(False, 28, None)
    assert improves(False, 3, result(False, 4)) and not improves(False, 4, result(False, 4))
    assert improves(True, 0, result(False, 1))
    assert not improves(True, 0, result(True, 0))


def test_streaks() -> None:
    assert streaks([]) == (0, 0)
    assert streaks([True, True, False, True]) == (1, 2)
    assert streaks([False, True, True, True]) == (3, 3)
    assert streaks([True, False]) == (0, 1)


def test_feats_text() -> None:
    for feats in [frozenset(), frozenset({Feat.FIRST_WIN}), frozenset(Feat)]:
        assert feats_from_text(feats_text(feats)) == feats


def test_clean_display_name() -> None:
    assert clean_display_name(" Dana ") == "Dana"
    assert clean_display_name("e\u0301") == "\u00e9"  # NFC
    assert clean_display_name("x" * 40) == "x" * 40
    for bad in ["", " ", "x" * 41, "a\u2028b", "a\rb", "\x1b[31m", "a\u200eb"[:1] + "\x00"]:
        with pytest.raises(BadDisplayName):
            clean_display_name(bad)


class Deals:
    """The deal records ``recorded`` is given: it says which it asked for."""

    def __init__(self) -> None:
        self.rows: dict[str, DealRow] = {}
        self.asked: list[str] = []

    def __call__(self, code: str) -> DealRow:
        self.asked.append(code)
        return self.rows.setdefault(code, DealRow(code))


def test_a_game_without_a_move_gets_no_result_and_its_deal_is_not_asked() -> None:
    deals = Deals()
    assert recorded("g1", "alice", Game(GameCode.parse("TP1-E-AAAAAAB")), None, deals, NOW) is None
    assert deals.asked == []


def test_a_won_game_gets_its_result_and_the_deals_first_win() -> None:
    code, line = won_deal()
    game = Game(code)
    game.replay(line)
    deals = Deals()
    result = recorded("g1", "alice", game, None, deals, NOW)
    assert result == GameResult(
        "g1", "alice", code.text(), True, game.score, 0, len(line), frozenset({Feat.FIRST_WIN}),
        dt.datetime.fromtimestamp(NOW, dt.UTC), game.longest_run, game.ended_after,
        ".".join("d" if action == DRAW else str(action) for action in line),
    )  # fmt: skip
    row = deals.rows[code.text()]
    assert deals.asked == [code.text()]
    assert (row.wins, row.finished, row.first_game, row.first_player, row.best_score) == (1, 1, "g1", "alice", game.score)
    # Recorded again (the game left after its win): nothing improves, the deal is not asked again.
    assert recorded("g1", "alice", game, result, deals, NOW + 60) is None
    assert deals.asked == [code.text()] and row.wins == 1


def test_an_unfinished_game_improves_only_with_fewer_cards_left() -> None:
    code = blocked_by_drawing()
    blocked = Game(code)
    blocked.replay([DRAW] * 23)
    deals = Deals()
    first = recorded("g2", None, blocked, None, deals, NOW)
    assert first is not None and (first.won, first.cards_left, first.moves) == (False, 28, 23)
    assert first.feats == {Feat.BEST_UNFINISHED} and first.player is None
    assert recorded("g2", None, blocked, first, deals, NOW) is None  # the same cards left
    played = greedy(code, prefer_draw=False)  # the same game played on, from the deal's start
    assert played.cards_left() < 28
    better = recorded("g2", None, played, first, deals, NOW + 60)
    assert better is not None and better.cards_left == played.cards_left() and better.moves == played.moves
    row = deals.rows[code.text()]
    assert row.finished == 1  # one game: improved, not counted again
    assert (row.unfinished_cards_left if not better.won else 0) == played.cards_left()
