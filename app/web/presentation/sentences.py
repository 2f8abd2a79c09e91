"""The game's sentences: the status line after a request (spoken by screen readers), what the
deal allowed once a game has ended, a list of cards and what can be played now, all in the
current language. The templates have them as globals (``render.make_environment``)."""

from __future__ import annotations

from collections.abc import Sequence

from app.engine import Card, Game, Refusal, Status
from app.i18n import current_locale
from app.web.presentation.views import Event, Happened, playable_cards
from app.web.solver_worker import Outlook


def card_list(cards: Sequence[Card]) -> str:
    """Cards in words, in the current language, joined by commas: ``2 of clubs, king of hearts``."""
    words = current_locale()
    return ", ".join(words.card_words(card) for card in cards)


def playable_words(game: Game) -> str:
    """What the board in words adds: which cards can be played now (the engine decides)."""
    words, cards = current_locale(), playable_cards(game)
    if game.is_over:
        return ""
    if not cards:
        if game.stock_count:
            return words.gettext("No card can be played now: draw from the stock.")
        return words.gettext("No card can be played now.")
    return words.gettext("Can be played now: %(cards)s.") % {"cards": card_list(cards)}


def outlook_sentence(outlook: Outlook, won: bool) -> str:
    """What the deal allowed, as the result box says it once a game has ended: the best
    possible score after a win; after a loss, whether the deal could be won and its best
    score; nothing while the answer is unknown or hidden."""
    words, best = current_locale(), outlook.best_score
    if won:
        if best is None:
            return ""
        return words.gettext("The best possible score on this deal is %(best)s.") % {"best": best}
    if outlook.winnable and best is not None:
        return words.gettext("This deal could be won: the best possible score is %(best)s.") % {"best": best}
    if outlook.winnable:
        return words.gettext("This deal could be won.")
    if outlook.winnable is False:
        return words.gettext("No one could win this deal.")
    return ""


def status_sentence(game: Game, event: Event | None, error_help: bool) -> str:
    """The status line after a request (``templates/game.html``, spoken by screen readers): what
    the action did, what it turned over, what a peak paid, and the score or the game's end.
    A refusal is said only with Error help on; a hint names its card, or the undos back to a
    winning line."""
    words = current_locale()
    gettext, ngettext = words.gettext, words.ngettext
    happened = event.happened if event is not None else None
    if event is not None and happened is Happened.REFUSED:
        if not error_help or event.refusal is None:
            return ""
        reason = words.refusal_message(event.refusal)
        if event.refusal is Refusal.RANK_MISMATCH and game.waste is not None:
            waste = words.waste_words(game.waste)
            return gettext("%(reason)s. Waste: %(card)s.") % {"reason": reason, "card": waste}
        return reason
    if event is not None and happened is Happened.HINTED:
        return _hint_sentence(event)
    if event is not None and happened is Happened.RESUMED:
        return gettext("Back to game %(code)s. Waste: %(waste)s.") % {
            "code": game.code_text(), "waste": words.waste_words(game.waste)
        }
    won = ngettext(
        "You won! Final score %(score)s in %(count)s move.",
        "You won! Final score %(score)s in %(count)s moves.",
        game.moves,
    ) % {"score": game.score, "count": game.moves}
    if event is None:
        if game.status is Status.WON:
            return won
        return gettext("No more possible moves") if game.status is Status.BLOCKED else ""
    parts = [_action_words(game, event)]
    if event.turned_up:
        parts.append(gettext("Turned face up: %(cards)s.") % {"cards": card_list(event.turned_up)})
    if event.turned_down:
        parts.append(gettext("A card turned face down.") if event.turned_down == 1
                     else gettext("Two cards turned face down."))
    if event.peak_points:
        parts.append(gettext("Peak cleared: %(points)s points!") % {"points": event.peak_points})
    if game.status is Status.WON:
        parts.append(won)
    elif game.status is Status.BLOCKED:
        score = gettext("Score %(score)s.") % {"score": game.score}
        parts.append(gettext("No more possible moves") + ". " + score)
    else:
        parts.append(gettext("Score %(score)s.") % {"score": game.score})
        if happened is Happened.DREW:  # whether a card can be played now, said with the rest
            parts.append(playable_words(game))
    return " ".join(parts)


def _action_words(game: Game, event: Event) -> str:
    words = current_locale()
    card = words.card_words(event.card) if event.card is not None else ""
    if event.happened is Happened.REMOVED:
        return words.gettext("%(card)s to the waste.") % {"card": card}
    if event.happened is Happened.DREW:
        return words.gettext("Drew %(card)s.") % {"card": card}
    if event.happened is Happened.UNDID and event.card is not None:
        return words.gettext("Took back %(card)s. Waste: %(waste)s.") % {
            "card": card, "waste": words.waste_words(game.waste)
        }
    if event.happened is Happened.UNDID:
        waste = words.waste_words(game.waste)
        return words.gettext("Took back the draw. Waste: %(waste)s.") % {"waste": waste}
    if event.happened is Happened.DEALT:
        return words.gettext("Dealt %(code)s. Waste: %(waste)s.") % {
            "code": game.code_text(), "waste": words.waste_words(game.waste)
        }
    return ""


def _hint_sentence(event: Event) -> str:
    words = current_locale()
    card = {"card": words.card_words(event.card)} if event.card is not None else None
    if not event.lost:
        if card is not None:
            return words.gettext("Hint: play the %(card)s.") % card
        return words.gettext("Hint: draw from the stock.") if event.hint_draw else ""
    if event.undos is not None:
        lost = words.ngettext(
            "No winning line from here: undo %(count)s move to get back to one.",
            "No winning line from here: undo %(count)s moves to get back to one.",
            event.undos,
        ) % {"count": event.undos}
    else:
        lost = words.gettext("No one could win this deal.")
    if card is not None:
        return lost + " " + words.gettext("For the best score still possible, play the %(card)s.") % card
    if event.hint_draw:
        return lost + " " + words.gettext("For the best score still possible, draw from the stock.")
    return lost
