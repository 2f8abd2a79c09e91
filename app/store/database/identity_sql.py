"""A player on every device in the SQL store (SQLite and PostgreSQL): the statements and the jobs.

Mixed into :class:`app.store.database.sql.SqlStore`. A merge or a deletion runs as one write
transaction; it locks the players' rows first (in the order of their ids, so two merges never
deadlock), then writes games, results, deals and daily attempts, the store's order
(player → game → deal). The rules are :mod:`app.store.identity`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any, TypeVar

from app.store.attempts import FIELDS, AttemptRow
from app.store.database import queries as q
from app.store.database import records
from app.store.database.identity_queries import (
    ANONYMOUS_HOLDERS,
    ANONYMOUS_RESULTS,
    ATTEMPT,
    ATTEMPT_DAYS,
    CODES_KEPT_S,
    DELETE_ATTEMPT,
    DELETE_CODES,
    DELETE_DEVICE,
    DELETE_PASSKEY,
    DELETE_PASSKEYS,
    DELETE_PLAYER,
    DELETE_RECOVERY,
    DELETE_TOKEN,
    DEVICE_IDS,
    DEVICES,
    DROP_DEVICE,
    EXPIRED_CODES,
    GAME_SUMMARIES,
    HAS_HISTORY,
    IS_SIGNED_OUT,
    LIVE_LINK_CODES,
    LOCK_PLAYERS,
    MOVE_ATTEMPT,
    MOVE_ATTEMPTS,
    MOVE_GAMES,
    MOVE_HOLDERS,
    MOVE_MAKERS,
    MOVE_RESULTS,
    MOVE_SEATS,
    NEW_CODE,
    NEW_PASSKEY,
    NEW_TOKEN,
    OWN_GAMES,
    PASSKEY,
    PASSKEY_USED,
    PLAYER_ATTEMPTS,
    PLAYER_PASSKEYS,
    PLAYER_TOKENS,
    RECOVERY,
    RECOVERY_MADE,
    REDEEM,
    SEATS,
    SET_RECOVERY,
    SIGN_OUT,
    SIGNED_OUT_SINCE,
    TAKE_OVER,
    TOKEN,
    TOKEN_IDS,
    TOUCH_DEVICE,
    VOID_LINK_CODES,
)
from app.store.database.queries import Db, run
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
from app.store.orders import DayOrders

T = TypeVar("T")

def _attempt(values: Any) -> AttemptRow:
    return AttemptRow(**dict(zip(FIELDS, values, strict=True)))


def _passkey(row: Any) -> Passkey:
    credential, player, public_key, count, created, last_used, kind = row
    return Passkey(credential, player, base64.b64decode(public_key), int(count), created, last_used, kind)


class SqlIdentities(Identities):
    """The identity methods of :class:`app.store.database.sql.SqlStore`."""

    _clock: Callable[[], float]
    _orders: DayOrders

    def _read(self, query: Callable[[Db], T]) -> T:
        raise NotImplementedError  # pragma: no cover - SqlStore's

    def _write(self, job: Callable[[Db], T]) -> T:
        raise NotImplementedError  # pragma: no cover - SqlStore's

    def _merge_tables(self, db: Db, old: str, new: str) -> None:
        raise NotImplementedError  # pragma: no cover - SqlTables'

    def _delete_tables_of(self, db: Db, player: str) -> None:
        raise NotImplementedError  # pragma: no cover - SqlTables'

    # -- devices ----------------------------------------------------------------------------

    def touch_device(self, device: str, player: str, kind: str) -> None:
        params = {"b_id": device, "b_player": player, "b_kind": kind[:80]}
        gone = {"b_device": SignedOut.DEVICE.id(device), "b_player": SignedOut.PLAYER.id(player)}

        def job(db: Db) -> None:
            if run(db, IS_SIGNED_OUT, gone).fetchone() is None:  # a signed-out device is never back
                run(db, TOUCH_DEVICE, {**params, "b_now": self._clock()})

        self._write(job)

    def devices(self, player: str) -> list[Device]:
        rows = self._read(lambda db: run(db, DEVICES, {"b_player": player}).fetchall())
        return [Device(*row) for row in rows]

    def _sign_out(self, db: Db, what: SignedOut, value: str) -> None:
        run(db, SIGN_OUT, {"b_id": what.id(value), "b_at": self._clock()})

    def _sign_out_device(self, db: Db, player: str, device: str) -> bool:
        if run(db, DELETE_DEVICE, {"b_id": device, "b_player": player}).rowcount != 1:
            return False
        self._sign_out(db, SignedOut.DEVICE, device)
        return True

    def sign_out_device(self, player: str, device: str) -> bool:
        return self._write(lambda db: self._sign_out_device(db, player, device))

    def sign_out_others(self, player: str, keep: str) -> int:
        def job(db: Db) -> int:
            ids = [row[0] for row in run(db, DEVICE_IDS, {"b_player": player}).fetchall()]
            return sum(self._sign_out_device(db, player, device) for device in ids if device != keep)

        return self._write(job)

    def signed_out_since(self, since: float) -> list[str]:
        return [
            row[0] for row in self._read(lambda db: run(db, SIGNED_OUT_SINCE, {"b_since": since}).fetchall())
        ]

    # -- single-use codes -------------------------------------------------------------------

    def keep_code(self, kind: CodeKind, digest: str, player: str | None, ttl: float) -> None:
        def job(db: Db) -> None:
            now = self._clock()
            run(db, EXPIRED_CODES, {"b_before": now - CODES_KEPT_S})
            if kind is CodeKind.LINK and player is not None:
                run(db, VOID_LINK_CODES, {"b_player": player})
            params = {"b_digest": digest, "b_kind": kind.value, "b_player": player, "b_expires": now + ttl}
            run(db, NEW_CODE, params)

        self._write(job)

    def redeem_code(self, kind: CodeKind, digest: str) -> tuple[str | None] | None:
        def job(db: Db) -> tuple[str | None] | None:
            params = {"b_digest": digest, "b_kind": kind.value, "b_now": self._clock()}
            found = run(db, REDEEM, params).fetchone()
            return (found[0],) if found is not None else None

        return self._write(job)

    # -- becoming a player ------------------------------------------------------------------

    def has_history(self, player: str) -> bool:
        return bool(self._read(lambda db: run(db, HAS_HISTORY, {"b_player": player}).fetchone()[0]))

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
        def job(db: Db) -> list[str]:
            now = self._clock()
            run(db, TOUCH_DEVICE, {"b_id": device, "b_player": player, "b_kind": kind[:80], "b_now": now})
            if left_device is not None and left_device != device:
                run(db, DROP_DEVICE, {"b_id": left_device})
                self._sign_out(db, SignedOut.DEVICE, left_device)
            if leaving is None or leaving == player or not bring_history:
                return []
            return self._merge(db, leaving, player, now)

        days = self._write(job)
        self._changed(days, leaving)
        return days

    def _changed(self, days: list[str], player: str | None) -> None:
        """This process's leaderboards of the days a merge or a deletion changed, dropped."""
        for day in days:
            self._orders.forget(day)
        if player is not None:
            self._orders.renamed(player)

    def _merge(self, db: Db, old: str, new: str, now: float) -> list[str]:
        """Everything of ``old`` to ``new``, in the caller's transaction; the days changed."""
        for who in (old, new):
            run(db, q.NEW_PLAYER, {"b_id": who, "b_created": now, "b_updated": now})
        rows = {row[0]: row for row in run(db, LOCK_PLAYERS, {"b_a": old, "b_b": new}).fetchall()}
        _, old_name, old_game = rows[old]
        _, new_name, new_game = rows[new]
        run(db, MOVE_GAMES, {"b_old": old, "b_new": new})
        self._merge_tables(db, old, new)
        run(
            db,
            TAKE_OVER,
            {
                "b_id": new,
                "b_name": new_name if new_name is not None else old_name,
                "b_game": new_game if new_game is not None else old_game,
                "b_now": now,
            },
        )
        run(db, DELETE_PLAYER, {"b_id": old})
        run(db, MOVE_RESULTS, {"b_old": old, "b_new": new})
        for statement in MOVE_HOLDERS:
            run(db, statement, {"b_old": old, "b_new": new})
        days = []
        for values in run(db, PLAYER_ATTEMPTS, {"b_player": old}).fetchall():
            brought = _attempt(values)
            found = run(db, ATTEMPT, {"b_day": brought.day, "b_player": new}).fetchone()
            if found is not None:
                if kept_attempt(_attempt(found), brought) is brought:
                    run(db, DELETE_ATTEMPT, {"b_day": brought.day, "b_player": new})
                else:
                    run(db, DELETE_ATTEMPT, {"b_day": brought.day, "b_player": old})
                    days.append(brought.day)
                    continue
            run(db, MOVE_ATTEMPT, {"b_day": brought.day, "b_old": old, "b_new": new})
            days.append(brought.day)
        return days

    # -- the recovery code, passkeys, personal tokens ---------------------------------------

    def set_recovery(self, player: str, selector: str, digest: str) -> None:
        params = {"b_player": player, "b_selector": selector, "b_digest": digest}

        def job(db: Db) -> None:
            for statement in SET_RECOVERY:
                run(db, statement, {**params, "b_now": self._clock()})

        self._write(job)

    def recovery(self, selector: str) -> tuple[str, str] | None:
        found = self._read(lambda db: run(db, RECOVERY, {"b_selector": selector}).fetchone())
        return (found[0], found[1]) if found is not None else None

    def add_passkey(self, passkey: Passkey) -> None:
        params = {
            "b_id": passkey.id,
            "b_player": passkey.player,
            "b_public_key": base64.b64encode(passkey.public_key).decode("ascii"),
            "b_sign_count": passkey.sign_count,
            "b_last_used": None,
            "b_kind": passkey.kind[:80],
        }
        self._write(lambda db: run(db, NEW_PASSKEY, {**params, "b_created": self._clock()}))

    def passkey(self, credential_id: str) -> Passkey | None:
        found = self._read(lambda db: run(db, PASSKEY, {"b_id": credential_id}).fetchone())
        return _passkey(found) if found is not None else None

    def passkey_used(self, credential_id: str, sign_count: int) -> None:
        params = {"b_id": credential_id, "b_count": sign_count}
        self._write(lambda db: run(db, PASSKEY_USED, {**params, "b_now": self._clock()}))

    def passkeys(self, player: str) -> list[Passkey]:
        rows = self._read(lambda db: run(db, PLAYER_PASSKEYS, {"b_player": player}).fetchall())
        return [_passkey(row) for row in rows]

    def remove_passkey(self, player: str, credential_id: str) -> bool:
        params = {"b_id": credential_id, "b_player": player}
        return bool(self._write(lambda db: run(db, DELETE_PASSKEY, params).rowcount == 1))

    def add_token(self, player: str, token_id: str, digest: str) -> None:
        params = {"b_id": token_id, "b_player": player, "b_digest": digest}
        self._write(lambda db: run(db, NEW_TOKEN, {**params, "b_now": self._clock()}))

    def token(self, token_id: str) -> tuple[str, str] | None:
        found = self._read(lambda db: run(db, TOKEN, {"b_id": token_id}).fetchone())
        return (found[0], found[1]) if found is not None else None

    def tokens(self, player: str) -> list[Token]:
        return [
            Token(*row)
            for row in self._read(lambda db: run(db, PLAYER_TOKENS, {"b_player": player}).fetchall())
        ]

    def _revoke(self, db: Db, player: str, token_id: str) -> bool:
        if run(db, DELETE_TOKEN, {"b_id": token_id, "b_player": player}).rowcount != 1:
            return False
        self._sign_out(db, SignedOut.TOKEN, token_id)
        return True

    def revoke_token(self, player: str, token_id: str) -> bool:
        return self._write(lambda db: self._revoke(db, player, token_id))

    # -- the player's data ------------------------------------------------------------------

    def holdings(self, player: str) -> Holdings:
        def query(db: Db) -> Holdings:
            params = {"b_player": player}
            game_names = ("id", "code", "status", "moves", "score", "cards_left", "updated")
            found = [
                dict(zip(game_names, row, strict=True)) for row in run(db, GAME_SUMMARIES, params).fetchall()
            ]
            seat_names = ("race", "round", "seat", "game_id", "joined")
            seats = [dict(zip(seat_names, row, strict=True)) for row in run(db, SEATS, params).fetchall()]
            made = run(db, RECOVERY_MADE, params).fetchone()
            live = run(db, LIVE_LINK_CODES, {**params, "b_now": self._clock()}).fetchone()[0]
            return Holdings(found, seats, made[0] if made else None, int(live))

        return self._read(query)

    def delete_player(self, player: str) -> None:
        def job(db: Db) -> list[str]:
            now = self._clock()
            params = {"b_player": player}
            run(db, q.PLAYER_TO_CHANGE, {"b_id": player}).fetchall()  # locked first: player → game → deal
            for (game_id,) in run(db, OWN_GAMES, params).fetchall():
                records.record(db, game_id, None, now)
                run(db, q.DELETE_GAME, {"b_id": game_id})
            run(db, DELETE_PLAYER, {"b_id": player})
            self._delete_tables_of(db, player)
            old = {"b_old": player}
            run(db, ANONYMOUS_RESULTS, old)
            for statement in ANONYMOUS_HOLDERS:
                run(db, statement, old)
            anonymous = {**old, "b_new": anonymous_id()}
            days = [row[0] for row in run(db, ATTEMPT_DAYS, params).fetchall()]
            for statement in (MOVE_ATTEMPTS, MOVE_SEATS, MOVE_MAKERS):
                run(db, statement, anonymous)
            for (device,) in run(db, DEVICE_IDS, params).fetchall():
                self._sign_out_device(db, player, device)
            for (token_id,) in run(db, TOKEN_IDS, params).fetchall():
                self._revoke(db, player, token_id)
            for removal in (DELETE_RECOVERY, DELETE_PASSKEYS, DELETE_CODES):
                run(db, removal, params)
            self._sign_out(db, SignedOut.PLAYER, player)
            return days

        self._changed(self._write(job), player)
