"""The game codes the web deals: the engine's reading (SPEC section 3), standard games only.

The engine reads variant codes (``TP1-EOJ-…``, ``docs/variants.md``), but the solver,
hints, records and pages do not handle variants yet (issue 17), so the web refuses them
as it refuses any code it cannot deal, and nothing is stored.
"""

from __future__ import annotations

from app.engine import CodeError, GameCode


def parse_code(text: str) -> GameCode:
    """Read a code as :meth:`GameCode.parse` does; refuse one with variant letters."""
    code = GameCode.parse(text)
    if code.variants:
        raise CodeError(f"{code.text()}: variant games are not offered here yet")
    return code
