"""The result box's sentence of what the deal allowed (app.web.presentation.game_context.outlook_sentence):
one case per outcome, in English and in Ukrainian."""

from __future__ import annotations

import pytest

from app.i18n import get_locale, use_locale
from app.web.presentation.game_context import HIDDEN_OUTLOOK
from app.web.presentation.sentences import outlook_sentence
from app.web.solver_worker import Outlook


@pytest.mark.parametrize(
    ("outlook", "won", "english"),
    [
        (Outlook(True, 772), True, "The best possible score on this deal is 772."),
        (Outlook(True, None), True, ""),  # the search ran late: nothing said
        (Outlook(True, 640), False, "This deal could be won: the best possible score is 640."),
        (Outlook(True, None), False, "This deal could be won."),
        (Outlook(False, None), False, "No one could win this deal."),
        (Outlook(False, 215), False, "No one could win this deal."),
        (HIDDEN_OUTLOOK, False, ""),  # the day's deal before the player's attempt has ended
        (HIDDEN_OUTLOOK, True, ""),
    ],
)
def test_the_outlook_is_said_for_each_outcome(outlook: Outlook, won: bool, english: str) -> None:
    with use_locale(get_locale("en")):
        assert outlook_sentence(outlook, won) == english


def test_the_outlook_is_said_in_the_players_language() -> None:
    with use_locale(get_locale("uk")):
        assert outlook_sentence(Outlook(True, 640), False) == (
            "Цю роздачу можна було виграти: найкращий можливий рахунок — 640."
        )
        assert outlook_sentence(Outlook(True, 772), True) == "Найкращий можливий рахунок у цій роздачі — 772."  # noqa: RUF001
        assert outlook_sentence(Outlook(False, None), False) == "Цю роздачу не може виграти ніхто."
