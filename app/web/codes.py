"""The game codes the web deals: the engine's reading (SPEC section 3), variants included.

A code may carry variant letters after the rules letter (``TP1-EOJ-AAAAAAB``,
``docs/variants.md``); the engine reads them leniently (any order and case) and writes
them in the canonical order ``OWJT``. A bad letter is refused as any bad code is (a
:class:`~app.engine.CodeError`: the web answers a 4xx quoting the input, nothing stored).
"""

from __future__ import annotations

from app.engine import GameCode


def parse_code(text: str) -> GameCode:
    """Read a code as :meth:`GameCode.parse` does; raises :class:`~app.engine.CodeError`."""
    return GameCode.parse(text)
