"""The order of a day's attempts (app.store.ranking): pure rules, no database."""

from __future__ import annotations

import itertools
import random

from app.store.ranking import QUICK_GAP_S, QUICKEST_WIN_S, Entry, board_key, order_key, plausible, standings

WIN = Entry(won=True, score=741, seconds=252.0, finished=100.0)


def ranked_names(entries: dict[str, Entry]) -> list[tuple[int | None, str]]:
    return [(s.rank, s.item) for s in standings(entries, lambda name: entries[name])]


def test_won_before_not_won_then_score_then_time_then_who_finished_first() -> None:
    entries = {
        "blocked high": Entry(won=False, score=900, seconds=10.0, finished=1.0),
        "won low": Entry(won=True, score=600, seconds=100.0, finished=5.0),
        "won high slow": Entry(won=True, score=741, seconds=300.0, finished=2.0),
        "won high fast late": Entry(won=True, score=741, seconds=200.0, finished=9.0),
        "won high fast early": Entry(won=True, score=741, seconds=200.0, finished=3.0),
        "blocked low": Entry(won=False, score=200, seconds=50.0, finished=0.5),
    }
    assert ranked_names(entries) == [
        (1, "won high fast early"),
        (2, "won high fast late"),
        (3, "won high slow"),
        (4, "won low"),
        (5, "blocked high"),
        (6, "blocked low"),
    ]


def test_hints_rank_after_every_attempt_without_and_implausible_ones_are_not_ranked() -> None:
    entries = {
        "won with a hint": Entry(won=True, score=770, seconds=60.0, finished=1.0, hints=1),
        "blocked, no hints": Entry(won=False, score=100, seconds=60.0, finished=2.0),
        "bot": Entry(won=True, score=772, seconds=2.0, finished=0.0, plausible=False),
        "won with three hints": Entry(won=True, score=770, seconds=50.0, finished=3.0, hints=3),
    }
    assert ranked_names(entries) == [
        (1, "blocked, no hints"),
        (2, "won with three hints"),
        (3, "won with a hint"),
        (None, "bot"),
    ]


def test_no_time_ranks_after_any_time_and_negative_scores_order_too() -> None:
    timed = Entry(won=False, score=-3, seconds=9999.0, finished=5.0)
    untimed = Entry(won=False, score=-3, seconds=None, finished=1.0)
    lower = Entry(won=False, score=-40, seconds=1.0, finished=0.0)
    assert sorted([lower, untimed, timed], key=order_key) == [timed, untimed, lower]


def test_the_index_key_orders_as_the_rules_do() -> None:
    """board_key (one integer, for the store's index) sorts exactly as the rules written out."""
    rng = random.Random(29)
    entries = [
        Entry(
            won=rng.random() < 0.5,
            score=rng.randrange(-50, 800),
            seconds=rng.choice([None, round(rng.uniform(0, 5000), 3)]),
            finished=rng.uniform(0, 1e9),
            hints=rng.choice([0, 0, 1, 4]),
            plausible=rng.random() < 0.9,
        )
        for _ in range(2000)
    ]

    def by_rules(e: Entry) -> tuple[object, ...]:
        time = (0, e.seconds) if e.seconds is not None else (1, 0.0)
        return (not e.plausible, e.hints > 0, not e.won, -e.score, time, e.finished)

    assert sorted(entries, key=order_key) == sorted(entries, key=by_rules)
    assert all(0 <= board_key(e) < 2**55 for e in entries)
    for a, b in itertools.pairwise(sorted(entries, key=order_key)):
        assert board_key(a) <= board_key(b)


def test_plausibility() -> None:
    assert plausible(won=True, seconds=120.0, gaps=60, quick=5)
    assert not plausible(won=True, seconds=QUICKEST_WIN_S - 0.5, gaps=40, quick=0)  # a whole win in seconds
    assert plausible(won=False, seconds=3.0, gaps=2, quick=0)  # blocked quickly: a person can
    assert not plausible(won=False, seconds=60.0, gaps=40, quick=21)  # median under QUICK_GAP_S
    assert plausible(won=False, seconds=60.0, gaps=40, quick=20)  # exactly half quick: the median is not
    assert plausible(won=False, seconds=None, gaps=0, quick=0)
    assert QUICK_GAP_S == 0.150
