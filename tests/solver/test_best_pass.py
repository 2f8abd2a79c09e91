"""The best-score pass against the pass before it (tests/support/best_pass_before.py): the
same table, bit for bit, on every layout, under both rules, with every variant deck that
changes the pass (the empty waste, the joker, both; open peaks change nothing here)."""

from __future__ import annotations

import numpy as np
import pytest

from app.engine import GameCode, Rules, Variants
from app.engine.layout import LAYOUTS
from app.engine.search.best_pass import best_after_draws
from tests.support.best_pass_before import best_after_draws as best_after_draws_before


@pytest.mark.parametrize("word", list(LAYOUTS))
@pytest.mark.parametrize("letters", ["", "W", "J", "WJ"])
def test_the_pass_gives_the_table_the_pass_before_gave(word: str, letters: str) -> None:
    layout = LAYOUTS[word]
    for number, rules in ((0, Rules.EASY), (1, Rules.CLASSIC), (7, Rules.EASY)):
        code = GameCode(rules, number, Variants.parse(letters), layout)
        deal = code.deal()
        table = best_after_draws(deal, rules, layout)
        before = best_after_draws_before(deal, rules, layout)
        assert table.dtype == before.dtype and table.shape == before.shape
        assert np.array_equal(table, before), f"{code.text()}: {int((table != before).sum())} cells differ"
