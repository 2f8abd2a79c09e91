"""The New game window's form, on the game page and on ``/new``: what it offers (the rules,
the layouts, the variants, a winnable deal of a chosen difficulty; the choices remembered in
cookies), and how a code typed or pasted into it is read.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request

from app.engine import GameCode, Rules, Variants
from app.engine.layout import Layout
from app.engine.search.review import Difficulty
from app.web.middleware.player_cookie import read_cookies
from app.web.presentation.layouts_on_page import (
    layout_choices,
    layout_name,
    mostly_unwinnable,
    remembered_layout,
)
from app.web.presentation.reviews import difficulty_word
from app.web.presentation.variants_on_page import remembered_variants, rules_name, variant_choices

WINNABLE_ONLY_COOKIE: Final = "tp_winnable_only"
CHOSEN_DIFFICULTIES: Final = (Difficulty.EASY, Difficulty.MEDIUM, Difficulty.HARD, Difficulty.EXPERT)
"""What "winnable deals only" can ask for."""
MAX_CODE_INPUT: Final = 500


def winnable_only_on(request: Request) -> bool:
    return read_cookies(request.scope).get(WINNABLE_ONLY_COOKIE) == "1"


def read_code(text: str) -> GameCode:
    """A code as typed or pasted: the code itself, a share link, or a text holding one code (a
    share text, ``try this: https://…/g/TP1-E-…``; SPEC section 3, read by the engine).
    Raises :class:`CodeError`."""
    return GameCode.parse(text)


def new_game_form(
    request: Request,
    *,
    code_input: str = "",
    code_error: str | None = None,
    rules: Rules = Rules.EASY,
    winnable_only: bool = False,
    variants: Variants | None = None,
    layout: Layout | None = None,
) -> dict[str, Any]:
    """What ``_new_game_form.html`` shows: the choices offered, those made (``variants`` and
    ``layout``: the remembered ones when ``None``), and a refused code with its message."""
    return {
        "layout_choices": layout_choices(remembered_layout(request) if layout is None else layout),
        "unwinnable": [
            (layout.word, rules.word, layout_name(layout), rules_name(rules), round(share * 100))
            for layout, rules, share in mostly_unwinnable()
        ],
        "rules": list(Rules),
        "chosen_rules": rules,
        "code_input": code_input[:MAX_CODE_INPUT],
        "code_error": code_error,
        "winnable_only": winnable_only,
        "difficulties": [(d.value, difficulty_word(d)) for d in CHOSEN_DIFFICULTIES],
        "variant_choices": variant_choices(remembered_variants(request) if variants is None else variants),
    }
