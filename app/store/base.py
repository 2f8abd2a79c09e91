"""The store interface the web app talks to.

A stored game is a :class:`~app.engine.Game` with an id, its owner (the
player's id from the signed cookie, or ``None`` for a game made through the
JSON API, where the unguessable id is the only key) and a version number that
grows with every save. :meth:`GameStore.save` is a compare-and-set on that
version, so two requests racing on one game can never lose an action: the
loser gets :class:`VersionConflict` and reloads.

Results and records (see ``docs/store.md``): a game's result is recorded when
it is won or blocked (in the same transaction as the save that made it so),
and when its player leaves it unfinished after at least one move (by starting
or switching to another game, or when idle cleanup removes it). A result only
ever improves (a win beats an unfinished result; fewer cards left beats more),
and each recording that improves it updates the deal's record and says what
that achieved (:class:`Feat`).
"""

from __future__ import annotations

import abc
import datetime as dt
import enum
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from anyio import to_thread

from app.engine import Game, GameCode, Rules, Variants
from app.engine.layout import THREE_PEAKS, Layout
from app.store.answers import KeptAnswers
from app.store.attempts import LEADERBOARD_SIZE, Attempt, DayOf, Leaderboard, day_end
from app.store.identity import Identities
from app.store.paces import Mark
from app.store.races import RaceRooms
from app.store.tables import Tables

T = TypeVar("T")


class VersionConflict(Exception):
    """The game was saved by someone else since it was loaded."""


class StoreUnavailable(Exception):
    """The store cannot be reached or written just now; nothing was changed."""


def new_game_id() -> str:
    """An unguessable game id: 128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: str
    owner: str | None
    game: Game
    version: int


def owns(stored: StoredGame, owned_by: str | None) -> bool:
    """Whether ``stored`` passes an ``owned_by`` check (``None``: no check)."""
    return owned_by is None or stored.owner == owned_by


DEFAULT_MAX_GAMES_PER_PLAYER: Final = 200


class GameStore(RaceRooms, Tables, Identities, KeptAnswers, abc.ABC):
    """Games by id, and each player's current game. Thread-safe; every method is blocking.

    The ``a``-prefixed methods (:meth:`aget`, :meth:`aupdate`, :meth:`aread`)
    are the same for a caller on an event loop: by default they run the blocking method
    in a worker thread; a store whose reads are quick local calls (:attr:`local_reads`)
    reads on the loop, and a store may wait for its writes without holding a thread.
    """

    max_games_per_player: int = DEFAULT_MAX_GAMES_PER_PLAYER
    """How many games one player keeps at most (0: no bound); see :meth:`create`."""

    write_failure: str | None = None
    """Why the store's latest write failed (:class:`StoreUnavailable`: a full disk, a database
    away), or ``None``: it went through (or none failed yet). ``/readyz`` follows it."""

    local_reads: bool = False
    """Whether a read is a quick local call (memory, an SQLite file) that may be made on an
    event loop; not for a database server, whose reads wait on the network."""

    _day_of: DayOf | None = None

    @abc.abstractmethod
    def create(self, game: Game, owner: str | None, *, player: str | None = None) -> StoredGame:
        """Keep a new game; when ``owner`` is given it becomes that player's current game.

        When the owner then has more than :attr:`max_games_per_player` games, their oldest
        are removed (the ones not won first, never the new one), in the same transaction,
        each with its result recorded first (as idle cleanup does): records and statistics
        lose nothing. Games made without an owner (the JSON API) are not counted.

        A game of a day's deal (:meth:`know_days`) is the game of that day of its ``owner``
        (else of ``player``: the JSON API's games have no owner, but the cookie's player)
        when they have none yet: their ranked attempt, or their late game of a past day, begun
        in the same transaction (:meth:`begin_attempt`). While their ranked attempt at it is
        under way, :class:`~app.store.attempts.AttemptUnfinished` is raised and nothing kept.
        """

    def know_days(self, day_of: DayOf) -> None:
        """From now on, tell days' deals by ``day_of`` (the app's lifespan hands it the
        installation's, keyed with its secret): every deal of a game made here (:meth:`create`,
        a race's seats) then begins the player's game of its day, the one place attempts begin."""
        self._day_of = day_of

    def dealt_day(self, code: GameCode) -> tuple[dt.date, bool] | None:
        """The day whose deal ``code`` is, and whether that day is over (a game of it is
        "late"), by the store's clock; ``None`` for any other deal. Quick once the day's deal
        is found (the app finds today's at its start and each new day's just after midnight);
        the first asking of a day not found yet runs the solver (tens of milliseconds)."""
        day = self._day_of(code) if self._day_of is not None else None
        if day is None:
            return None
        return day, self.day_over(day)

    @abc.abstractmethod
    def get(self, game_id: str) -> StoredGame | None:
        """The game with this id, or ``None``."""

    @abc.abstractmethod
    def save(self, stored: StoredGame, game: Game) -> StoredGame:
        """Replace ``stored`` by ``game`` if nobody saved it since; else raise :class:`VersionConflict`."""

    @abc.abstractmethod
    def current(self, owner: str) -> StoredGame | None:
        """The player's current game, or ``None``."""

    @abc.abstractmethod
    def find(self, owner: str, code: GameCode) -> StoredGame | None:
        """The player's most recently created game of this deal (same code and rules), or ``None``."""

    @abc.abstractmethod
    def set_current(self, owner: str, game_id: str) -> None:
        """Make one of the player's games their current game."""

    def close(self) -> None:
        """Release connections."""

    def update(
        self, game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        """Apply ``change`` to the latest state and save it, as one step (``None``: no such game).

        ``change`` gets a copy of the game to change in place; what it returns is
        returned with the saved game. If it raises (say :class:`~app.engine.RefusedAction`),
        nothing is saved and the exception propagates. Unlike :meth:`save`, this never
        raises :class:`VersionConflict`: a racing request is applied on top of the other
        (the SQL store locks the game's row for it; this default retries). With
        ``owned_by``, a game of anyone else is as good as none.
        """
        while True:
            stored = self.get(game_id)
            if stored is None or not owns(stored, owned_by):
                return None
            game = stored.game.copy()
            value = change(game)
            try:
                return self.save(stored, game), value
            except VersionConflict:
                continue

    # -- the same, for callers on an event loop -------------------------------------------

    async def aread(self, read: Callable[[], T]) -> T:
        """``read()`` (a function that reads this store), on the loop when reads are local."""
        if self.local_reads:
            return read()
        return await to_thread.run_sync(read)

    async def aget(self, game_id: str) -> StoredGame | None:
        """:meth:`get`, for a caller on an event loop."""
        return await self.aread(lambda: self.get(game_id))

    async def aupdate(
        self, game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        """:meth:`update`, for a caller on an event loop."""
        return await to_thread.run_sync(lambda: self.update(game_id, change, owned_by=owned_by))

    # -- results, records, players (issue 4) -------------------------------------------------

    @abc.abstractmethod
    def record_result(self, game_id: str) -> GameResult | None:
        """Record the game's result now: won, blocked, or left unfinished (at least one move).

        Returns the result when this call recorded it or improved it (with the
        :class:`Feat` s it achieved), ``None`` when nothing changed (unknown game, no
        move made, or no better than the result already recorded). ``save`` calls
        this itself when a game becomes won or blocked, and ``create`` and
        ``set_current`` call it for the game a player leaves.
        """

    @abc.abstractmethod
    def result(self, game_id: str) -> GameResult | None:
        """The game's recorded result (the best it reached), or ``None``."""

    @abc.abstractmethod
    def recent_results(self, player: str, limit: int) -> list[GameResult]:
        """The player's latest ``limit`` results, the most recently recorded first."""

    @abc.abstractmethod
    def deal_record(self, code: GameCode) -> DealRecord | None:
        """The record of this deal (code and rules), or ``None`` while nobody has a result on it."""

    @abc.abstractmethod
    def player_stats(self, player: str) -> list[PlayerStats]:
        """The player's statistics per rule set and variants (:func:`stats_by_kind`): the two
        standard rule sets always, then each with variants the player has a result in."""

    @abc.abstractmethod
    def display_name(self, player: str) -> str | None:
        """The player's display name, or ``None`` (anonymous)."""

    @abc.abstractmethod
    def set_display_name(self, player: str, name: str | None) -> str | None:
        """Set (or with ``None``/blank, clear) the display name; returns it as stored.

        Raises :class:`BadDisplayName` for a name :func:`clean_display_name` refuses.
        """

    # -- the daily challenge (issue 29, app/store/attempts.py) --------------------------------

    @abc.abstractmethod
    def now(self) -> float:
        """The store's clock (seconds since the epoch): it decides when a day is over."""

    def day_over(self, day: dt.date) -> bool:
        """Whether ``day`` (UTC) has ended: its unfinished attempts count, as they were."""
        return self.now() >= day_end(day)

    @abc.abstractmethod
    def begin_attempt(self, day: dt.date, player: str, stored: StoredGame, *, late: bool) -> bool:
        """Make ``stored`` the player's game of ``day`` (``late``: begun after the day) unless
        they have one already; whether it is now. One per player and day, however many tabs
        or servers begin one at once. Every later save of the game while the day runs is
        followed by the attempt (:func:`app.store.attempts.progressed`). The store does this
        itself wherever it deals a game of a day's deal (:meth:`create`, a race's seats); this
        is for a game dealt otherwise (its actions before, if any, count as quick)."""

    @abc.abstractmethod
    def end_attempt(self, day: dt.date, player: str) -> bool:
        """End the player's ranked attempt of ``day`` as it stands (:func:`~app.store.attempts.stopped`),
        so that they may practise the deal; whether there was one under way to end."""

    @abc.abstractmethod
    def attempt(self, day: dt.date, player: str) -> Attempt | None:
        """The player's game of ``day`` with its rank (once it counts), or ``None``."""

    @abc.abstractmethod
    def leaderboard(self, day: dt.date, limit: int = LEADERBOARD_SIZE) -> Leaderboard:
        """The day's attempts that count, in order (:mod:`app.store.ranking`)."""

    @abc.abstractmethod
    def player_days(self, player: str) -> list[Attempt]:
        """Every day's game of the player (ranked or late), the earliest day first."""

    @abc.abstractmethod
    def pace(self, game_id: str) -> list[Mark]:
        """The pace of the daily attempt played in ``game_id``, action by action
        (:mod:`app.store.paces`); empty for a game that is no attempt, or one kept before."""

    @abc.abstractmethod
    def cleanup_idle(self, older_than: dt.timedelta) -> int:
        """Delete unfinished games not touched for ``older_than``; returns how many.

        A deleted game's result is recorded first (when it had a move), so records and
        statistics lose nothing. Won games are finished and kept.
        """


# -- results and records --------------------------------------------------------------------

DISPLAY_NAME_MAX: Final = 40


class BadDisplayName(ValueError):
    """A display name the app does not accept; the message says why."""


def clean_display_name(name: str) -> str:
    """The name as stored: NFC; direction controls and control characters refused; invisible
    code points (:data:`DEFAULT_IGNORABLE`, tag characters among them) removed; stripped;
    1 to 40 characters, at least one of them visible (:func:`is_visible`)."""
    if not isinstance(name, str):
        raise BadDisplayName("A name must be text")
    normal = unicodedata.normalize("NFC", name)
    if any(c in BIDI_CONTROLS for c in normal):  # refused, not removed: a name meant to mislead
        raise BadDisplayName("A name cannot contain control characters or line breaks")
    cleaned = "".join(c for c in normal if not is_default_ignorable(c)).strip()
    if not cleaned:
        raise BadDisplayName("A name needs at least one character")
    if len(cleaned) > DISPLAY_NAME_MAX:
        raise BadDisplayName(f"A name has at most {DISPLAY_NAME_MAX} characters")
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp") for c in cleaned):
        raise BadDisplayName("A name cannot contain control characters or line breaks")
    if not any(map(is_visible, cleaned)):
        raise BadDisplayName("A name needs at least one visible character")
    return cleaned


BIDI_CONTROLS: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Direction marks, embeddings, overrides and isolates: in a name shown beside other text
they could reorder what follows it (a record line reading backwards). Names in any script
read right without them."""

DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt, Unicode 15.1):
code points a font draws as nothing, whatever they mean. Zero-width spaces and joiners, the
soft hyphen, word joiners, the byte order mark, variation selectors, Hangul fillers, the
Mongolian vowel separator, and the tag characters (U+E0000 to U+E0FFF) that would make
"Dana" followed by tags a second, different "Dana"."""

BLANK_SYMBOLS: Final = frozenset("\u2800")
"""Symbols drawn as blank space (the blank Braille pattern): not visible."""


def is_default_ignorable(char: str) -> bool:
    point = ord(char)
    return any(first <= point <= last for first, last in DEFAULT_IGNORABLE)


def is_visible(char: str) -> bool:
    """A letter, digit, punctuation mark or symbol that draws something (a combining mark alone,
    a space, a blank symbol do not)."""
    drawn = unicodedata.category(char)[0] in "LNPS" and char not in BLANK_SYMBOLS
    return drawn and not is_default_ignorable(char)


class Feat(enum.Enum):
    """What recording a result achieved on its deal."""

    FIRST_WIN = "first_win"
    """Nobody had won this deal before."""
    NEW_RECORD = "new_record"
    """A win with a higher score than the deal's best so far (not set with FIRST_WIN)."""
    BEST_UNFINISHED = "best_unfinished"
    """An unfinished game with fewer cards left on the peaks than any before on this deal."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """A game's recorded result: the best it reached."""

    game_id: str
    player: str | None
    code: str
    won: bool
    score: int
    cards_left: int
    moves: int
    feats: frozenset[Feat]
    """What the latest recording that improved this result achieved."""
    at: dt.datetime
    longest_run: int | None = None
    """The longest run of removals without a draw (``None``: recorded before runs were kept)."""
    seconds: float | None = None
    """How long the game took, first action to end (``None``: not ended, or no clock)."""
    line: str = ""
    """The game's line when this result was recorded (``d.18.27``, see :mod:`app.engine.line`):
    its review is ``/replay/<code>/<line>``. Empty for a result kept before lines were."""

    @property
    def rules(self) -> Rules:
        return GameCode.parse(self.code).rules

    @property
    def variants(self) -> Variants:
        return GameCode.parse(self.code).variants


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a part of a deal's record, and since when."""

    player: str | None
    """The player id (never shown to others), ``None`` for a game made through the JSON API."""
    name: str | None
    """Their display name now, ``None`` when anonymous."""
    game_id: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class DealRecord:
    code: str
    wins: int
    """Games that won this deal."""
    finished: int
    """Games with a result on this deal (won or not)."""
    first_winner: Holder | None
    first_win_score: int | None
    best_score: int | None
    best_holder: Holder | None
    best_cards_left: int | None
    """Fewest cards left on the peaks by a game that did not win."""
    best_unfinished_holder: Holder | None


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's statistics of one rule set with one set of variants (none: the standard game)
    on one layout (three peaks: the layout of the daily deal and of every code of before)."""

    rules: Rules
    variants: Variants
    played: int
    """Games with a result: won, blocked, or left unfinished after a move and since removed (a
    game left that can still be taken up again counts neither as played nor as a loss)."""
    won: int
    best_score: int | None
    """The best score of a won game."""
    current_streak: int
    longest_streak: int
    longest_run: int | None = None
    """The longest run of removals without a draw in any game with a result."""
    fastest_win: float | None = None
    """The fewest seconds a won game took (games won before the clock was kept do not count)."""
    layout: Layout = THREE_PEAKS

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0
