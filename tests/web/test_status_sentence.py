"""The status line's sentence (app.web.presentation.game_context.status_sentence), one event at
a time, on real games of TP1-E-AAAAAAB (waste Q♣ at the deal; 7♦, J♥ and 4♦ are removable
first: positions 21, 22 and 25)."""

from __future__ import annotations

from app.engine import Card, Game, Refusal
from app.i18n import get_locale, use_locale
from app.web.presentation.sentences import status_sentence
from app.web.presentation.views import Event, Happened

DEAL = "TP1-E-AAAAAAB"


def said(game: Game, event: Event | None, error_help: bool = True, lang: str = "en") -> str:
    with use_locale(get_locale(lang)):
        return status_sentence(game, event, error_help)


def test_a_removal_names_the_card_what_it_turned_over_and_the_score() -> None:
    game = Game.from_code(DEAL)
    game.remove(22)
    event = Event(Happened.REMOVED, card=game.waste, turned_up=(Card.from_text("2C"),))
    assert said(game, event) == (
        f"{game.waste.words()} to the waste. Turned face up: 2 of clubs. Score {game.score}."  # type: ignore[union-attr]
    )


def test_a_peak_cleared_says_its_points() -> None:
    game = Game.from_code(DEAL)
    game.remove(21)
    text = said(game, Event(Happened.REMOVED, card=game.waste, peak_points=15))
    assert "Peak cleared: 15 points!" in text and text.endswith(f"Score {game.score}.")


def test_a_draw_says_the_card_and_what_can_be_played_now() -> None:
    game = Game.from_code(DEAL)
    game.draw()
    text = said(game, Event(Happened.DREW, card=game.waste))
    assert text.startswith(f"Drew {game.waste.words()}. Score {game.score}. ")  # type: ignore[union-attr]
    assert "played now" in text


def test_an_undo_names_the_card_taken_back_and_the_waste() -> None:
    game = Game.from_code(DEAL)
    game.remove(21)
    card = game.waste
    game.undo()
    assert said(game, Event(Happened.UNDID, card=card, turned_down=1)) == (
        f"Took back {card.words()}. Waste: queen of clubs. A card turned face down. Score {game.score}."  # type: ignore[union-attr]
    )
    assert said(game, Event(Happened.UNDID)).startswith("Took back the draw. Waste: queen of clubs.")


def test_a_refusal_is_said_only_with_error_help() -> None:
    game = Game.from_code(DEAL)
    refused = Event(Happened.REFUSED, refusal=Refusal.RANK_MISMATCH)
    assert said(game, refused) == "Rank must be one higher or lower. Waste: queen of clubs."
    assert said(game, refused, error_help=False) == ""


def test_a_hint_names_its_card_or_the_undos_back_to_a_winning_line() -> None:
    game = Game.from_code(DEAL)
    seven = Card.from_text("7D")
    assert said(game, Event(Happened.HINTED, card=seven)) == "Hint: play the 7 of diamonds."
    assert said(game, Event(Happened.HINTED, hint_draw=True)) == "Hint: draw from the stock."
    lost = Event(Happened.HINTED, lost=True, undos=2, card=seven)
    assert said(game, lost) == (
        "No winning line from here: undo 2 moves to get back to one. "
        "For the best score still possible, play the 7 of diamonds."
    )
    assert said(game, Event(Happened.HINTED, lost=True)) == "No one could win this deal."


def test_a_deal_and_a_return_name_the_code_and_the_waste() -> None:
    game = Game.from_code(DEAL)
    assert said(game, Event(Happened.DEALT)) == f"Dealt {DEAL}. Waste: queen of clubs. Score 500."
    assert said(game, Event(Happened.RESUMED)) == f"Back to game {DEAL}. Waste: queen of clubs."


def test_a_page_without_an_action_says_only_how_the_game_ended() -> None:
    game = Game.from_code(DEAL)
    assert said(game, None) == ""


def test_the_sentence_is_in_the_players_language() -> None:
    game = Game.from_code(DEAL)
    assert said(game, Event(Happened.DEALT), lang="uk").startswith(f"Роздано {DEAL}.")
