"""The solver's counting bound (see :mod:`app.engine.search.solver`): every card still on
the peaks must land on a card of adjacent rank, and each of those takes one card only.
Hall's condition on windows of demand ranks, on integers that pack a count per rank."""

from __future__ import annotations

from typing import Final

from app.engine.deal import Rules
from app.engine.rules import ranks_cycle

_FIELD: Final = 8
"""Bits per rank in the packed rank counts (counts stay below 2**7)."""

_WINDOWS: Final = 3
"""Hall's condition is checked on windows of up to this many demand ranks."""


def rank_unit(rank: int, rules: Rules) -> int:
    """One card of ``rank`` in the packed counts.

    Field ``r`` (bits ``8r`` to ``8r + 7``) counts rank ``r``. With king and ace
    joined, ranks form a cycle and are unrolled: field ``r + 13`` repeats rank
    ``r`` and field 0 repeats the king, so that windows running past the king
    wrap round to the ace.
    """
    unit = 1 << _FIELD * rank
    if ranks_cycle(rules):
        unit |= 1 << _FIELD * (rank + 13)
        if rank == 13:
            unit |= 1
    return unit


_GUARDS: Final = sum(0x80 << _FIELD * f for f in range(32))
_CHECKED: Final = sum(0x80 << _FIELD * f for f in range(1, 14))


def hall_holds(demand: int, supply: int) -> bool:
    """Whether Hall's condition holds on windows of up to ``_WINDOWS`` demand ranks.

    Demand ranks ``r, r + 2, ..., r + 2(L - 1)`` can only be served by supply ranks
    ``r - 1, r + 1, ..., r + 2L - 1``; each field of the packed sums is compared at
    once (the guard bit of a field is cleared when the demand exceeds the supply).
    The search calls it right after each draw; an exhausted search is handed to the
    whole-deal analysis after :data:`~app.engine.search.solver.QUICK_NODES` positions, so
    a call's cost no longer matters enough to keep an inlined copy.
    """
    shifted = supply << _FIELD
    window_supply = shifted + (shifted >> 2 * _FIELD)
    window_demand = demand
    for length in range(1, _WINDOWS + 1):
        if ((window_supply | _GUARDS) - window_demand) & _CHECKED != _CHECKED:
            return False
        window_supply += shifted >> 2 * _FIELD * (length + 1)
        window_demand += demand >> 2 * _FIELD * length
    return True
