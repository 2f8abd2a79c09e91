"""How results count, the same in every backend: what a result keeps of a game, when a
new outcome improves it (:func:`recorded`, which both backends record with), and a player's
statistics from their results (pure functions).

The backends (:mod:`app.store.database.records` for SQL, :mod:`app.store.memory`) store and load
the rows; the rules of ``docs/store.md`` ("Results and records: the rules") are here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.engine import STANDARD, Game, GameCode, Rules, Variants
from app.engine.layout import LAYOUT_LETTERS, LAYOUTS, THREE_PEAKS, Layout
from app.engine.line import Line
from app.store.base import GameResult, PlayerStats
from app.store.deal_records import DealRow, epoch_to_datetime, merge


def streaks(won_in_order: list[bool]) -> tuple[int, int]:
    """(current, longest) winning streak of results in game order."""
    current = longest = 0
    for won in won_in_order:
        current = current + 1 if won else 0
        longest = max(longest, current)
    return current, longest


def improves(won: bool, cards_left: int, previous: GameResult | None) -> bool:
    """Whether a game's outcome is better than the result already recorded for it."""
    if previous is None:
        return True
    if previous.won:
        return False
    return won or cards_left < previous.cards_left


def kind_letters(code: GameCode) -> str:
    """What a result's statistics are kept under: its code's rules, layout and variant letters
    (``E``, ``CWJ``, ``CUO``), as the code writes them."""
    return code.rules.letter + code.layout.letter + code.variants.letters


def _kind(letters: str) -> tuple[Rules, Layout, Variants]:
    layout = LAYOUT_LETTERS.get(letters[1:2], THREE_PEAKS)
    return Rules(letters[0]), layout, Variants.parse(letters[1 + bool(layout.letter) :])


def stats_by_kind(
    rows: Iterable[tuple[str, bool, int, int | None, float | None]],
) -> list[PlayerStats]:
    """A player's statistics per rule set and variants, from their results in game order:
    (kind letters, won, score, longest run, seconds) each.

    Both standard rule sets of three peaks come first, always (a new player sees their
    columns at 0); then each rule set with variants that the player has a result in, easy
    before classic, fewer variants first, in the variants' order (``EO`` before ``EJ`` before
    ``EOJ``); then the same of each other layout the player has a result in, in the layouts'
    order.
    """
    kinds: dict[str, list[tuple[bool, int, int | None, float | None]]]
    kinds = {rules.letter: [] for rules in Rules}
    for letters, won, score, longest_run, seconds in rows:
        kinds.setdefault(letters, []).append((bool(won), score, longest_run, seconds))
    kind = {letters: _kind(letters) for letters in kinds}
    layouts = list(LAYOUTS.values())
    order = sorted(
        kinds,
        key=lambda letters: (
            layouts.index(kind[letters][1]),
            bool(kind[letters][2]),
            list(Rules).index(kind[letters][0]),
            len(letters),
            [not on for on in _flags(kind[letters][2])],
        ),
    )
    return [
        player_stats_of(kind[letters][0], kinds[letters], kind[letters][2], kind[letters][1])
        for letters in order
    ]


def _flags(variants: Variants) -> tuple[bool, bool, bool, bool]:
    return variants.open_peaks, variants.empty_waste, variants.joker, variants.traditional


def player_stats_of(
    rules: Rules,
    results: list[tuple[bool, int, int | None, float | None]],
    variants: Variants = STANDARD,
    layout: Layout = THREE_PEAKS,
) -> PlayerStats:
    """A player's statistics of one rule set, variants and layout from their results in game
    order: (won, score, longest run, seconds) each."""
    wins = [score for won, score, _, _ in results if won]
    current, longest = streaks([won for won, _, _, _ in results])
    runs = [run for _, _, run, _ in results if run is not None]
    times = [seconds for won, _, _, seconds in results if won and seconds is not None]
    return PlayerStats(
        rules,
        variants,
        len(results),
        len(wins),
        max(wins, default=None),
        current,
        longest,
        max(runs, default=None),
        min(times, default=None),
        layout,
    )


def line_text(game: Game) -> str:
    """The game's line as a replay link writes it (``d.18.27``, see :mod:`app.engine.line`)."""
    return Line.of(game).text()


def recorded(
    game_id: str,
    owner: str | None,
    game: Game,
    previous: GameResult | None,
    deal: Callable[[str], DealRow],
    now: float,
) -> GameResult | None:
    """A game's new result, when it has one worth keeping that improves on ``previous`` (its
    recorded result); else ``None``. The one place both backends record a result.

    Only then is the deal's record asked for: ``deal(code)`` gives its row (the SQL store
    loads and locks it), into which this counts the result (:func:`app.store.deal_records.merge`);
    the caller writes the row and the result back. Nothing else is read or changed.
    """
    if game.moves == 0:  # no move made: nothing to record
        return None
    won, cards_left = game.cards_left() == 0, game.cards_left()
    if not improves(won, cards_left, previous):
        return None
    code = game.code_text()
    feats = merge(
        deal(code),
        game_id=game_id,
        player=owner,
        won=won,
        score=game.score,
        cards_left=cards_left,
        at=now,
        first_result=previous is None,
    )
    return GameResult(
        game_id, owner, code, won, game.score, cards_left, game.moves, feats, epoch_to_datetime(now),
        game.longest_run, game.ended_after, line_text(game),
    )  # fmt: skip
