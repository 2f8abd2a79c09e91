"""Results, deal records and statistics are kept per code, so per variant (issue 17): a variant
game's result counts in its own rule set with variants, never in the standard one's, and the
longest code (``TP1-EOWJT-…``, 17 characters) fits every store; schema step 3 makes room for it
in a database made before."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DataError

from app.engine import Game, GameCode, Rules, Status
from app.engine.search.analysis import analyse
from app.store.base import GameStore
from app.store.database.schema import SCHEMA_VERSION
from app.store.database.sql import SqlStore
from app.store.results import kind_letters, stats_by_kind
from tests.support.deals import won_deal
from tests.support.store import BACKENDS, SQL_BACKENDS, greedy, line_of

ALICE = "alice-player-id-0000000001"
BOB = "bob-player-id-00000000000002"


def winnable(letters: str, start: int = 1) -> tuple[GameCode, list[int]]:
    """The first deal from ``start`` whose analysis finds a win under ``letters`` (O, W, J)."""
    for number in range(start, start + 50):
        code = GameCode.parse(f"TP1-{letters}-{GameCode(Rules.EASY, number).letters}")
        analysis = analyse(code, scores=False)
        line = analysis.winning_line(0, 0, analysis.waste_after[0])
        if line is not None:
            return code, [-1 if a.position is None else a.position for a in line]
    raise AssertionError(f"no winnable {letters} deal found")


def finish(store: GameStore, owner: str, code: GameCode, line: list[int] | tuple[int, ...]) -> Game:
    stored = store.create(Game(code), owner)
    game = stored.game.copy()
    game.replay(line)
    assert game.status is not Status.PLAYING
    store.save(stored, game)
    return game


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_statistics_are_kept_per_rule_set_and_variants(store: GameStore) -> None:
    joker, joker_line = winnable("EOJ")
    easy, easy_line = won_deal(Rules.EASY)
    traditional = GameCode.parse(f"TP1-CT-{GameCode(Rules.CLASSIC, 7).letters}")
    joker_game = finish(store, ALICE, joker, joker_line)
    finish(store, ALICE, easy, easy_line)
    blocked = greedy(traditional, prefer_draw=True)
    finish(store, ALICE, traditional, line_of(blocked))
    stats = store.player_stats(ALICE)
    assert [(s.rules, s.variants.letters) for s in stats] == [
        (Rules.EASY, ""), (Rules.CLASSIC, ""), (Rules.EASY, "OJ"), (Rules.CLASSIC, "T"),
    ]  # fmt: skip
    by_kind = {s.rules.letter + s.variants.letters: s for s in stats}
    assert (by_kind["E"].played, by_kind["E"].won) == (1, 1)
    assert (by_kind["C"].played, by_kind["C"].won) == (0, 0)  # the CT game is not classic's
    assert (by_kind["EOJ"].played, by_kind["EOJ"].won, by_kind["EOJ"].current_streak) == (1, 1, 1)
    assert by_kind["EOJ"].best_score == joker_game.score
    assert (by_kind["CT"].played, by_kind["CT"].won, by_kind["CT"].best_score) == (1, 0, None)
    # Another player's statistics show no variant they have not played.
    assert [s.variants.letters for s in store.player_stats(BOB)] == ["", ""]


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_a_variant_win_is_its_own_code_s_record(store: GameStore) -> None:
    easy, line = won_deal(Rules.EASY)
    traditional = GameCode.parse(f"TP1-ET-{easy.letters}")  # the same deal, scored by runs
    game = finish(store, ALICE, traditional, line)
    assert game.status is Status.WON
    record = store.deal_record(traditional)
    assert record is not None and record.wins == 1 and record.best_score == game.score
    assert store.deal_record(easy) is None  # the standard deal has no result yet
    standard = finish(store, BOB, easy, line)
    easy_record = store.deal_record(easy)
    assert easy_record is not None and easy_record.best_score == standard.score != game.score
    assert store.deal_record(traditional) == record


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_the_longest_code_is_stored_and_read_back(store: GameStore) -> None:
    code = GameCode.parse(f"TP1-EOWJT-{GameCode(Rules.EASY, 3).letters}")
    assert len(code.text()) == 17
    game = greedy(code, prefer_draw=False)
    stored = store.create(Game(code), ALICE)
    store.save(stored, game)
    found = store.get(stored.id)
    assert found is not None and found.game.code == code and found.game.line == game.line
    result = store.result(stored.id)
    assert result is not None and result.code == code.text() and result.variants == code.variants
    record = store.deal_record(code)
    assert record is not None and record.finished == 1
    assert [s.variants.letters for s in store.player_stats(ALICE)][-1] == "OWJT"


def test_statistics_order_standard_first_then_fewer_variants() -> None:
    rows = [(letters, True, 10, 1, 2.0) for letters in ("CJ", "EOJ", "EJ", "EO", "E", "EW", "CT")]
    order = [s.rules.letter + s.variants.letters for s in stats_by_kind(rows)]
    assert order == ["E", "C", "EO", "EW", "EJ", "EOJ", "CJ", "CT"]
    assert kind_letters(GameCode.parse("tp1-cjw-aaaaaab")) == "CWJ"


def test_statistics_of_other_layouts_come_after_three_peaks_each_grouped_alike() -> None:
    """Layouts (issue 25): a result counts under its code's rules, layout and variants
    letters; each other layout follows three peaks, in the layouts' order, grouped alike."""
    rows = [(letters, True, 10, 1, 2.0) for letters in ("CUO", "EV", "EO", "CU", "EDJ", "C", "EVT")]
    stats = stats_by_kind(rows)
    order = [s.rules.letter + s.layout.letter + s.variants.letters for s in stats]
    assert order == ["E", "C", "EO", "EDJ", "EV", "EVT", "CU", "CUO"]
    assert [s.played for s in stats] == [0, 1, 1, 1, 1, 1, 1, 1]
    assert kind_letters(GameCode.parse("tp1-cjuw-aaaaaab")) == "CUWJ"
    assert kind_letters(GameCode.parse("TP1-EH-AAAAAAB")) == "EH"


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_schema_step_3_makes_room_for_variant_codes(database_url: str) -> None:
    """A database made at schema 2 (codes of 16 characters, the rules letter alone) opens at
    schema 3 and then keeps a 17-character code, its result and its record."""
    easy, line = won_deal(Rules.EASY)
    store = SqlStore(database_url)
    finish(store, ALICE, easy, line)
    postgres = store._engine.dialect.name == "postgresql"
    with store._engine.begin() as conn:  # back to schema 2: as the release before left it
        if postgres:
            for table in ("tp_games", "tp_results", "tp_deals"):
                conn.execute(text(f"ALTER TABLE {table} ALTER COLUMN code TYPE VARCHAR(16)"))
            conn.execute(text("ALTER TABLE tp_results ALTER COLUMN rules TYPE VARCHAR(1)"))
        conn.execute(text("UPDATE tp_schema SET version = 2"))
    if postgres:  # the old schema refuses a variant code: the step is needed
        with pytest.raises(DataError), store._engine.begin() as conn:
            conn.execute(text("INSERT INTO tp_deals (code, wins, finished) VALUES ('TP1-EOWJT-AAAAAAB', 0, 0)"))
    store.close()
    store = SqlStore(database_url)
    try:
        with store._engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM tp_schema")).scalar_one() == SCHEMA_VERSION
        code = GameCode.parse(f"TP1-EOWJT-{easy.letters}")
        game = greedy(code, prefer_draw=True)
        stored = store.create(Game(code), ALICE)
        store.save(stored, game)
        result = store.result(stored.id)
        assert result is not None and result.code == code.text()
        assert [s.rules.letter + s.variants.letters for s in store.player_stats(ALICE)] == ["E", "C", "EOWJT"]
        assert store.player_stats(ALICE)[0].won == 1  # the result made before still counts
    finally:
        store.close()
