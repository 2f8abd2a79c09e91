"""A player on every device (issue 38): the store's part, as an interface and its pure rules.

A player is a random id; each browser that is that player is a **device** of it (a random id
of its own, named in the browser's signed cookie with the player). The store keeps:

* the devices (``tp_devices``): whose, what kind (browser and system), when last seen (written
  at most once an hour a device);
* what is **signed out** (``tp_signed_out``): devices, revoked personal tokens and deleted
  players, by id (``d:…``, ``t:…``, ``p:…``) and when. Each server keeps the set and reads
  what was added since its last look every ~10 s (:meth:`Identities.signed_out_since`);
* single-use **codes** (``tp_codes``): link codes and passkey challenges, as keyed hashes
  (:mod:`app.store.codes`), each with its kind, player, expiry and use;
* the **recovery code** (``tp_recovery``: one a player, selector and scrypt digest), the
  **passkeys** (``tp_passkeys``) and the **personal tokens** (``tp_tokens``: id and digest).

How a browser becomes a player (:meth:`Identities.become`) and what "bring this browser's
games along" does (:meth:`Identities.become`, rule :func:`kept_attempt`) are docs/store.md's
"Devices and merges"; what "Delete me" keeps (:meth:`Identities.delete_player`) too.
"""

from __future__ import annotations

import abc
import enum
import secrets
from dataclasses import dataclass
from typing import Final

from app.store.attempts import AttemptRow

DEVICE_SEEN_EVERY_S: Final = 3600.0
"""A device's ``last_seen`` is written at most this often (per server)."""


class CodeKind(enum.Enum):
    LINK = "link"
    """A link code: makes another browser the player."""
    PASSKEY_ADD = "passkey-add"
    """The challenge of a passkey being added to the player."""
    PASSKEY_IN = "passkey-in"
    """The challenge of a sign-in with a passkey (no player yet)."""


class SignedOut(enum.Enum):
    """What a ``tp_signed_out`` id names (its first letter and a colon)."""

    DEVICE = "d"
    TOKEN = "t"
    PLAYER = "p"

    def id(self, value: str) -> str:
        return f"{self.value}:{value}"


@dataclass(frozen=True, slots=True)
class Device:
    id: str
    player: str
    kind: str
    """``Browser/System`` as :func:`app.web.presentation.devices.device_kind` read it."""
    created: float
    last_seen: float


@dataclass(frozen=True, slots=True)
class Passkey:
    id: str
    """The credential id, base64url."""
    player: str
    public_key: bytes
    """The credential's public key (COSE), as the authenticator gave it."""
    sign_count: int
    created: float
    last_used: float | None
    kind: str
    """The kind of device it was added on."""


@dataclass(frozen=True, slots=True)
class Token:
    id: str
    player: str
    created: float


@dataclass(frozen=True, slots=True)
class Holdings:
    """What the store keeps of a player besides their results, statistics and name (their
    export, "Download my data")."""

    games: list[dict[str, object]]
    """Each game: id, code, status, moves, score, cards_left, created, updated (no card)."""
    race_seats: list[dict[str, object]]
    recovery_code_made: float | None
    live_link_codes: int


def new_device_id() -> str:
    """A device's id: 128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


def kept_attempt(mine: AttemptRow, brought: AttemptRow) -> AttemptRow:
    """Of two attempts of one day, the player's own and one brought along by a merge, the one
    that stays the day's: a ranked one before a late one, else the one begun first. The other
    becomes practice (its game stays, its attempt row goes)."""
    return min((mine, brought), key=lambda row: (row.late, row.started, row is brought))


def anonymous_id() -> str:
    """The id a deleted player's rows on the leaderboards take: random, tied to nothing."""
    return "gone-" + secrets.token_urlsafe(12)


class Identities(abc.ABC):
    """The store's identity methods (mixed into :class:`app.store.base.GameStore`). Blocking;
    the web layer calls them in a thread (or on the loop for a local store)."""

    # -- devices ----------------------------------------------------------------------------

    @abc.abstractmethod
    def touch_device(self, device: str, player: str, kind: str) -> None:
        """Keep (or refresh) the device: its player, its kind, seen now; nothing when the device
        or its player is signed out (another server may not know it yet)."""

    @abc.abstractmethod
    def devices(self, player: str) -> list[Device]:
        """The player's devices, the most recently seen first."""

    @abc.abstractmethod
    def sign_out_device(self, player: str, device: str) -> bool:
        """Sign the player's device out (its row goes, its id is signed out); whether it was theirs."""

    @abc.abstractmethod
    def sign_out_others(self, player: str, keep: str) -> int:
        """Sign out every device of the player but ``keep``; how many."""

    @abc.abstractmethod
    def signed_out_since(self, since: float) -> list[str]:
        """The ids signed out at ``since`` or later (``d:``, ``t:``, ``p:`` and the id)."""

    # -- single-use codes -------------------------------------------------------------------

    @abc.abstractmethod
    def keep_code(self, kind: CodeKind, digest: str, player: str | None, ttl: float) -> None:
        """Keep a code's digest for ``ttl`` seconds. A new link code voids the player's older
        ones that are still live: one live link code a player."""

    @abc.abstractmethod
    def redeem_code(self, kind: CodeKind, digest: str) -> tuple[str | None] | None:
        """Use the code once: ``(its player,)`` when it was live (and is used now), else ``None``
        (wrong, used or expired alike)."""

    # -- becoming a player ------------------------------------------------------------------

    @abc.abstractmethod
    def has_history(self, player: str) -> bool:
        """Whether the player has anything of their own: a game, a result, a daily attempt or a name."""

    @abc.abstractmethod
    def become(
        self,
        player: str,
        device: str,
        kind: str,
        *,
        leaving: str | None,
        left_device: str | None,
        bring_history: bool,
    ) -> list[str]:
        """A browser becomes ``player`` as ``device``, in one transaction: the device is kept;
        the browser's device before (``left_device``) is signed out; with ``bring_history``
        the history of the player it was (``leaving``) moves to ``player``: games, results,
        the deals' records, daily attempts (of a day both played, :func:`kept_attempt` stays
        the day's, the other is practice), the name when ``player`` has none. Returns the
        days whose attempts moved."""

    # -- the recovery code, passkeys, personal tokens ---------------------------------------

    @abc.abstractmethod
    def set_recovery(self, player: str, selector: str, digest: str) -> None:
        """The player's recovery code (the one before, if any, is void)."""

    @abc.abstractmethod
    def recovery(self, selector: str) -> tuple[str, str] | None:
        """(player, digest) of the recovery code with this selector."""

    @abc.abstractmethod
    def add_passkey(self, passkey: Passkey) -> None: ...

    @abc.abstractmethod
    def passkey(self, credential_id: str) -> Passkey | None: ...

    @abc.abstractmethod
    def passkey_used(self, credential_id: str, sign_count: int) -> None: ...

    @abc.abstractmethod
    def passkeys(self, player: str) -> list[Passkey]: ...

    @abc.abstractmethod
    def remove_passkey(self, player: str, credential_id: str) -> bool: ...

    @abc.abstractmethod
    def add_token(self, player: str, token_id: str, digest: str) -> None: ...

    @abc.abstractmethod
    def token(self, token_id: str) -> tuple[str, str] | None:
        """(player, digest) of a personal token that is not revoked."""

    @abc.abstractmethod
    def tokens(self, player: str) -> list[Token]: ...

    @abc.abstractmethod
    def revoke_token(self, player: str, token_id: str) -> bool:
        """Revoke the player's token (its row goes, its id is signed out); whether it was theirs."""

    # -- the player's data ------------------------------------------------------------------

    @abc.abstractmethod
    def holdings(self, player: str) -> Holdings: ...

    @abc.abstractmethod
    def delete_player(self, player: str) -> None:
        """Remove the player: name, devices, codes, passkeys, tokens, games. Their results stay
        with no player, the deals' records name nobody for them, their daily attempts stay on
        the leaderboards under an id tied to nothing (:func:`anonymous_id`), anonymous; the
        player and all their devices and tokens are signed out."""
