"""A player on every device in the in-process store (see :mod:`app.store.identity`): mixed into
:class:`app.store.memory.MemoryStore`, under its one lock."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.engine.state import game_from_state
from app.store.attempts import AttemptRow
from app.store.identity import (
    CodeKind,
    Device,
    Holdings,
    Identities,
    Passkey,
    SignedOut,
    Token,
    anonymous_id,
    kept_attempt,
)


@dataclass(slots=True)
class _Code:
    kind: CodeKind
    player: str | None
    expires: float
    used: bool = False


class MemoryIdentities(Identities):
    """The identity methods of :class:`app.store.memory.MemoryStore`."""

    _lock: threading.RLock
    _clock: Callable[[], float]
    _games: dict[str, Any]
    _players: dict[str, Any]
    _results: dict[str, Any]
    _deals: dict[str, Any]
    _daily: dict[tuple[str, str], AttemptRow]
    _daily_games: dict[str, tuple[str, str]]
    _rooms: dict[str, Any]
    _merge_tables: Callable[[str, str], None]
    _delete_tables_of: Callable[[str], None]

    def _identity_tables(self) -> None:
        self._devices: dict[str, Device] = {}
        self._signed_out: dict[str, float] = {}
        self._codes: dict[str, _Code] = {}
        self._recovery: dict[str, tuple[str, str, float]] = {}  # selector → (player, digest, made)
        self._passkeys: dict[str, Passkey] = {}
        self._tokens: dict[str, tuple[str, str, float]] = {}  # id → (player, digest, made)

    # -- devices ----------------------------------------------------------------------------

    def touch_device(self, device: str, player: str, kind: str) -> None:
        with self._lock:
            gone = (SignedOut.DEVICE.id(device), SignedOut.PLAYER.id(player))
            if any(what in self._signed_out for what in gone):  # a signed-out device is never back
                return
            now = self._clock()
            found = self._devices.get(device)
            created = found.created if found is not None and found.player == player else now
            self._devices[device] = Device(device, player, kind, created, now)

    def devices(self, player: str) -> list[Device]:
        with self._lock:
            mine = [d for d in self._devices.values() if d.player == player]
        return sorted(mine, key=lambda d: (-d.last_seen, d.id))

    def _sign_out(self, what: SignedOut, value: str) -> None:
        self._signed_out[what.id(value)] = self._clock()

    def sign_out_device(self, player: str, device: str) -> bool:
        with self._lock:
            found = self._devices.get(device)
            if found is None or found.player != player:
                return False
            del self._devices[device]
            self._sign_out(SignedOut.DEVICE, device)
            return True

    def sign_out_others(self, player: str, keep: str) -> int:
        with self._lock:
            others = [d.id for d in self._devices.values() if d.player == player and d.id != keep]
            for device in others:
                self.sign_out_device(player, device)
            return len(others)

    def signed_out_since(self, since: float) -> list[str]:
        with self._lock:
            return [what for what, at in self._signed_out.items() if at >= since]

    # -- single-use codes -------------------------------------------------------------------

    def keep_code(self, kind: CodeKind, digest: str, player: str | None, ttl: float) -> None:
        with self._lock:
            now = self._clock()
            for key, code in list(self._codes.items()):
                if code.expires < now - 86_400:
                    del self._codes[key]
                elif kind is CodeKind.LINK and code.kind is kind and code.player == player:
                    code.used = True
            self._codes[digest] = _Code(kind, player, now + ttl)

    def redeem_code(self, kind: CodeKind, digest: str) -> tuple[str | None] | None:
        with self._lock:
            code = self._codes.get(digest)
            if code is None or code.kind is not kind or code.used or code.expires <= self._clock():
                return None
            code.used = True
            return (code.player,)

    # -- becoming a player ------------------------------------------------------------------

    def has_history(self, player: str) -> bool:
        with self._lock:
            found = self._players.get(player)
            return (
                (found is not None and found.name is not None)
                or any(row.owner == player for row in self._games.values())
                or any(r.result.player == player for r in self._results.values())
                or any(p == player for (_, p) in self._daily)
            )

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
        with self._lock:
            self.touch_device(device, player, kind)
            if left_device is not None and left_device != device:
                self._devices.pop(left_device, None)
                self._sign_out(SignedOut.DEVICE, left_device)
            if leaving is None or leaving == player or not bring_history:
                return []
            return self._merge(leaving, player)

    def _merge(self, old: str, new: str) -> list[str]:
        """Move everything of ``old`` to ``new`` (the lock held); the days changed."""
        for row in self._games.values():
            if row.owner == old:
                row.owner = new
        self._merge_tables(old, new)
        gone = self._players.pop(old, None)
        if gone is not None:
            mine = self._players.setdefault(new, type(gone)())
            mine.name = mine.name if mine.name is not None else gone.name
            mine.current = mine.current if mine.current is not None else gone.current
        for entry in self._results.values():
            if entry.result.player == old:
                entry.result = dataclasses.replace(entry.result, player=new)
        for deal in self._deals.values():
            for holder in ("first_player", "best_player", "unfinished_player"):
                if getattr(deal, holder) == old:
                    setattr(deal, holder, new)
        days = []
        for day, player in sorted(self._daily):
            if player != old:
                continue
            brought = self._daily.pop((day, old))
            mine_row = self._daily.get((day, new))
            kept = brought if mine_row is None else kept_attempt(mine_row, brought)
            for dropped in (mine_row, brought):
                if dropped is not None and dropped is not kept:
                    self._daily_games.pop(dropped.game_id, None)
            self._daily[(day, new)] = dataclasses.replace(kept, player=new)
            self._daily_games[kept.game_id] = (day, new)
            days.append(day)
        return days

    # -- the recovery code, passkeys, personal tokens ---------------------------------------

    def set_recovery(self, player: str, selector: str, digest: str) -> None:
        with self._lock:
            for key, (owner, _, _) in list(self._recovery.items()):
                if owner == player:
                    del self._recovery[key]
            self._recovery[selector] = (player, digest, self._clock())

    def recovery(self, selector: str) -> tuple[str, str] | None:
        with self._lock:
            found = self._recovery.get(selector)
        return (found[0], found[1]) if found is not None else None

    def add_passkey(self, passkey: Passkey) -> None:
        with self._lock:
            self._passkeys[passkey.id] = dataclasses.replace(passkey, created=self._clock())

    def passkey(self, credential_id: str) -> Passkey | None:
        with self._lock:
            return self._passkeys.get(credential_id)

    def passkey_used(self, credential_id: str, sign_count: int) -> None:
        with self._lock:
            found = self._passkeys.get(credential_id)
            if found is not None:
                self._passkeys[credential_id] = dataclasses.replace(
                    found, sign_count=sign_count, last_used=self._clock()
                )

    def passkeys(self, player: str) -> list[Passkey]:
        with self._lock:
            return sorted((p for p in self._passkeys.values() if p.player == player), key=lambda p: p.created)

    def remove_passkey(self, player: str, credential_id: str) -> bool:
        with self._lock:
            found = self._passkeys.get(credential_id)
            if found is None or found.player != player:
                return False
            del self._passkeys[credential_id]
            return True

    def add_token(self, player: str, token_id: str, digest: str) -> None:
        with self._lock:
            self._tokens[token_id] = (player, digest, self._clock())

    def token(self, token_id: str) -> tuple[str, str] | None:
        with self._lock:
            found = self._tokens.get(token_id)
        return (found[0], found[1]) if found is not None else None

    def tokens(self, player: str) -> list[Token]:
        with self._lock:
            mine = [Token(i, p, made) for i, (p, _, made) in self._tokens.items() if p == player]
        return sorted(mine, key=lambda t: t.created)

    def revoke_token(self, player: str, token_id: str) -> bool:
        with self._lock:
            found = self._tokens.get(token_id)
            if found is None or found[0] != player:
                return False
            del self._tokens[token_id]
            self._sign_out(SignedOut.TOKEN, token_id)
            return True

    # -- the player's data ------------------------------------------------------------------

    def holdings(self, player: str) -> Holdings:
        with self._lock:
            now = self._clock()
            games = [
                _game_summary(game_id, row) for game_id, row in self._games.items() if row.owner == player
            ]
            seats = [
                {
                    "race": race_id,
                    "round": room.round,
                    "seat": number,
                    "game_id": seat.game_id,
                    "joined": seat.joined,
                }
                for race_id, room in self._rooms.items()
                for number, seat in enumerate(room.seats, start=1)
                if seat.player == player
            ]
            made = [made for owner, _, made in self._recovery.values() if owner == player]
            live = sum(
                1
                for code in self._codes.values()
                if code.kind is CodeKind.LINK
                and code.player == player
                and not code.used
                and code.expires > now
            )
        return Holdings(games, seats, made[0] if made else None, live)

    def delete_player(self, player: str) -> None:
        with self._lock:
            for game_id in [g for g, row in self._games.items() if row.owner == player]:
                self._record_by_id(game_id)  # type: ignore[attr-defined]
                del self._games[game_id]
            self._players.pop(player, None)
            self._delete_tables_of(player)
            for entry in self._results.values():
                if entry.result.player == player:
                    entry.result = dataclasses.replace(entry.result, player=None)
            for deal in self._deals.values():
                for holder in ("first_player", "best_player", "unfinished_player"):
                    if getattr(deal, holder) == player:
                        setattr(deal, holder, None)
            anonymous = anonymous_id()
            for day, owner in [key for key in self._daily if key[1] == player]:
                row = dataclasses.replace(self._daily.pop((day, owner)), player=anonymous)
                self._daily[(day, anonymous)] = row
                self._daily_games[row.game_id] = (day, anonymous)
            for room in self._rooms.values():
                room.maker = anonymous if room.maker == player else room.maker
                for seat in room.seats:
                    seat.player = anonymous if seat.player == player else seat.player
            for device in [d.id for d in self._devices.values() if d.player == player]:
                del self._devices[device]
                self._sign_out(SignedOut.DEVICE, device)
            for token_id in [t for t, (owner, _, _) in self._tokens.items() if owner == player]:
                del self._tokens[token_id]
                self._sign_out(SignedOut.TOKEN, token_id)
            for key in [k for k, (owner, _, _) in self._recovery.items() if owner == player]:
                del self._recovery[key]
            for key in [k for k, p in self._passkeys.items() if p.player == player]:
                del self._passkeys[key]
            for key in [k for k, c in self._codes.items() if c.player == player]:
                del self._codes[key]
            self._sign_out(SignedOut.PLAYER, player)


def _game_summary(game_id: str, row: Any) -> dict[str, object]:
    game = game_from_state(row.state)
    return {
        "id": game_id,
        "code": game.code_text(),
        "status": game.status.value,
        "moves": game.moves,
        "score": game.score,
        "cards_left": game.cards_left(),
        "updated": row.updated,
    }
