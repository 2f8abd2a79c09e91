"""Test helpers: a small depth-first search for winning lines of a deal."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from app.engine import DECK, DRAW, Card, Deal, Game, GameCode, Rules
from app.engine.state import state_of
from app.engine.words import describe_board


class NodeCapReached(Exception):
    """The search looked at more positions than it was allowed to."""


def find_win(
    code: GameCode | str,
    *,
    draws: int | None = None,
    node_cap: int = 200_000,
) -> list[int] | None:
    """A winning line of ``code`` (positions, and ``DRAW`` for draws), or ``None``.

    ``draws`` asks for a win with exactly that many draws (``0``: never draw,
    ``23``: the whole stock drawn before the last removal); ``None`` takes any win.
    Removals are tried before drawing, so draws come as late as the search allows.
    Raises :class:`NodeCapReached` when the search grows past ``node_cap`` positions
    without settling the question.
    """
    game = Game(code if isinstance(code, GameCode) else GameCode.parse(code))
    seen: set[tuple[int, int, int]] = set()
    line: list[int] = []
    nodes = 0

    def search() -> bool:
        nonlocal nodes
        key = (game.removed_mask, game.drawn, game.waste.index)
        if key in seen:
            return False
        seen.add(key)
        nodes += 1
        if nodes > node_cap:
            raise NodeCapReached(str(code))
        last_card = game.cards_left() == 1
        for position in game.playable_positions():
            if last_card:
                # The winning removal ends the game (no undo after a win): check, don't play.
                if draws is None or game.drawn == draws:
                    line.append(position)
                    return True
                continue
            game.remove(position)
            line.append(position)
            if search():
                return True
            line.pop()
            game.undo()
        if game.can_draw() and (draws is None or game.drawn < draws):
            game.draw()
            line.append(DRAW)
            if search():
                return True
            line.pop()
            game.undo()
        return False

    return list(line) if search() else None


class CraftedCode(GameCode):
    """A game code whose ``deal()`` is a hand-made deal (for worked examples no real deal gives).

    ``Game(CraftedCode(rules, 0, deal))`` plays that deal under ``rules``. Only for tests.
    """

    __slots__ = ("crafted",)

    def __init__(self, rules: Rules, number: int, crafted: Deal) -> None:
        super().__init__(rules, number)
        object.__setattr__(self, "crafted", crafted)

    def deal(self) -> Deal:
        return self.crafted  # type: ignore[no-any-return]

    # The engine may cache per code (``GameCode`` equality is rules and number):
    # two crafted codes are the same code only if they deal the same cards.
    def __eq__(self, other: object) -> bool:
        return (
            type(other) is CraftedCode
            and (self.rules, self.number, self.crafted) == (other.rules, other.number, other.crafted)
        )

    def __hash__(self) -> int:
        return hash((self.rules, self.number, self.crafted))


def craft_deal(script: list[int], rules: Rules = Rules.EASY) -> Deal:
    """A deal on which ``script`` (positions in removal order, ``DRAW`` for draws) is legal.

    Ranks are chosen by a small backtracking search so that each removed card is
    one rank above or below the waste card before it under ``rules``; a drawn card
    may be any card. Positions the script never removes and stock cards it never
    draws get the cards left over. The script must remove positions in an order
    that exposure allows.
    """
    left = {rank: [c for c in DECK if c.rank == rank] for rank in range(1, 14)}
    chosen: list[Card] = []

    def neighbours(rank: int) -> list[int]:
        ranks = [r for r in (rank - 1, rank + 1) if 1 <= r <= 13]
        if rules.king_ace_joined and rank in (1, 13):
            ranks.append(14 - rank)
        return ranks

    def place(step: int, rank: int) -> bool:
        if step == len(script):
            return True
        options = list(range(1, 14)) if script[step] == DRAW else neighbours(rank)
        for r in sorted(options, key=lambda r: -len(left[r])):
            if not left[r]:
                continue
            chosen.append(left[r].pop())
            if place(step + 1, r):
                return True
            left[r].append(chosen.pop())
        return False

    waste = left[7].pop()
    if not place(0, waste.rank):
        raise ValueError("no deal plays this script")
    tableau: list[Card | None] = [None] * 28
    stock: list[Card] = []
    for action, card in zip(script, chosen, strict=True):
        if action == DRAW:
            stock.append(card)
        else:
            tableau[action] = card
    rest = [c for rank in range(1, 14) for c in left[rank]]
    for position in range(28):
        if tableau[position] is None:
            tableau[position] = rest.pop()
    stock.extend(rest)
    cards = tuple(c for c in tableau if c is not None)
    assert len(cards) == 28 and len(stock) == 23
    return Deal(cards, waste, tuple(stock))


@functools.cache
def winning_line(code: str, draws: int | None = None) -> tuple[int, ...]:
    """:func:`find_win` for a deal known to have such a win (cached across tests)."""
    line = find_win(code, draws=draws)
    assert line is not None, f"{code} has no win with draws={draws}"
    return tuple(line)


def new_game(code: str, line: Iterable[int] = ()) -> Game:
    """A game of ``code`` with ``line`` (positions, ``DRAW``) played."""
    game = Game.from_code(code)
    game.replay(line)
    return game


def snapshot(game: Game, *, with_moves: bool = True) -> tuple[object, ...]:
    """Everything observable about a game, to compare before and after.

    ``with_moves=False`` leaves out the move counter (which undo does not take back).
    """
    state = state_of(game)
    if not with_moves:
        del state["moves"]
    return (
        state,
        describe_board(game),
        game.score,
        game.moves if with_moves else None,
        game.status,
        game.waste,
        game.stock_count,
        game.playable_positions(),
        game.undo_available,
        game.line,
        [game.card_at(p) for p in range(28)],
        [game.is_exposed(p) for p in range(28)],
    )
