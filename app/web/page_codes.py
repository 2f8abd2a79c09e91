"""The codes the pages play: every code but another layout's (``docs/layouts.md``).

The engine, the search, the CLI and the JSON API play every layout; the board, the review
and the race pages still draw three peaks only, so a code naming another layout is refused
there as a code the page cannot deal (a 400 with the code's usual message), never drawn
as the wrong board.
"""

from __future__ import annotations

from app.engine import CodeError, GameCode


def page_code(text: str) -> GameCode:
    """The code a page is asked for; :class:`CodeError` for a bad code or another layout's."""
    code = GameCode.parse(text)
    if code.layout.letter:
        raise CodeError(f"{code.text()}: the page draws three peaks only (the API plays every layout)")
    return code
