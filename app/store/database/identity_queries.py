"""The statements of a player on every device (issue 38), for both dialects: devices, sign-outs,
single-use codes, merges, the recovery code, passkeys, tokens and Delete me. Built once, at
import, run by :func:`app.store.database.queries.run`; the jobs are
:mod:`app.store.database.identity_sql`.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import bindparam, delete, exists, false, func, insert, select, update
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect

from app.store.attempts import FIELDS
from app.store.database.queries import insert_ignore
from app.store.database.schema import (
    codes,
    daily,
    deals,
    devices,
    games,
    passkeys,
    players,
    racers,
    races,
    recovery,
    results,
    signed_out,
    tokens,
)
from app.store.identity import CodeKind

CODES_KEPT_S: Final = 86_400.0
"""Codes expired for a day are deleted (by the next code kept)."""

_DEVICE: Final[dict[str, Any]] = {
    "id": bindparam("b_id"),
    "player": bindparam("b_player"),
    "kind": bindparam("b_kind"),
    "created": bindparam("b_now"),
    "last_seen": bindparam("b_now"),
}
TOUCH_DEVICE = {
    "sqlite": sqlite_dialect.insert(devices)
    .values(**_DEVICE)
    .on_conflict_do_update(
        index_elements=[devices.c.id],
        set_={"player": bindparam("b_player"), "kind": bindparam("b_kind"), "last_seen": bindparam("b_now")},
    ),
    "postgresql": pg_dialect.insert(devices)
    .values(**_DEVICE)
    .on_conflict_do_update(
        index_elements=[devices.c.id],
        set_={"player": bindparam("b_player"), "kind": bindparam("b_kind"), "last_seen": bindparam("b_now")},
    ),
}
DEVICES = (
    select(devices.c.id, devices.c.player, devices.c.kind, devices.c.created, devices.c.last_seen)
    .where(devices.c.player == bindparam("b_player"))
    .order_by(devices.c.last_seen.desc(), devices.c.id)
)
DEVICE_IDS = select(devices.c.id).where(devices.c.player == bindparam("b_player"))
DROP_DEVICE = delete(devices).where(devices.c.id == bindparam("b_id"))
DELETE_DEVICE = delete(devices).where(
    devices.c.id == bindparam("b_id"), devices.c.player == bindparam("b_player")
)
SIGN_OUT = insert_ignore(signed_out, id=bindparam("b_id"), at=bindparam("b_at"))
IS_SIGNED_OUT = select(signed_out.c.id).where(
    signed_out.c.id.in_([bindparam("b_device"), bindparam("b_player")])
)
SIGNED_OUT_SINCE = select(signed_out.c.id).where(signed_out.c.at >= bindparam("b_since"))

EXPIRED_CODES = delete(codes).where(codes.c.expires < bindparam("b_before"))
VOID_LINK_CODES = (
    update(codes)
    .where(
        codes.c.player == bindparam("b_player"), codes.c.kind == CodeKind.LINK.value, codes.c.used == false()
    )
    .values(used=True)
)
NEW_CODE = insert(codes).values(
    digest=bindparam("b_digest"),
    kind=bindparam("b_kind"),
    player=bindparam("b_player"),
    expires=bindparam("b_expires"),
    used=False,
)
REDEEM = (
    update(codes)
    .where(
        codes.c.digest == bindparam("b_digest"),
        codes.c.kind == bindparam("b_kind"),
        codes.c.used == false(),
        codes.c.expires > bindparam("b_now"),
    )
    .values(used=True)
    .returning(codes.c.player)
)
LIVE_LINK_CODES = (
    select(func.count())
    .select_from(codes)
    .where(
        codes.c.player == bindparam("b_player"),
        codes.c.kind == CodeKind.LINK.value,
        codes.c.used == false(),
        codes.c.expires > bindparam("b_now"),
    )
)

HAS_HISTORY = select(
    exists().where(players.c.id == bindparam("b_player"), players.c.display_name.is_not(None))
    | exists().where(games.c.owner == bindparam("b_player"))
    | exists().where(results.c.player == bindparam("b_player"))
    | exists().where(daily.c.player == bindparam("b_player"))
)
LOCK_PLAYERS = (
    select(players.c.id, players.c.display_name, players.c.current_game_id)
    .where(players.c.id.in_([bindparam("b_a"), bindparam("b_b")]))
    .order_by(players.c.id)
    .with_for_update()
)
MOVE_GAMES = update(games).where(games.c.owner == bindparam("b_old")).values(owner=bindparam("b_new"))
TAKE_OVER = (
    update(players)
    .where(players.c.id == bindparam("b_id"))
    .values(display_name=bindparam("b_name"), current_game_id=bindparam("b_game"), updated=bindparam("b_now"))
)
DELETE_PLAYER = delete(players).where(players.c.id == bindparam("b_id"))
MOVE_RESULTS = update(results).where(results.c.player == bindparam("b_old")).values(player=bindparam("b_new"))
MOVE_HOLDERS = [
    update(deals).where(deals.c[column] == bindparam("b_old")).values({column: bindparam("b_new")})
    for column in ("first_player", "best_player", "unfinished_player")
]
_DAILY_COLUMNS: Final = tuple(daily.c[name] for name in FIELDS)
PLAYER_ATTEMPTS = select(*_DAILY_COLUMNS).where(daily.c.player == bindparam("b_player")).order_by(daily.c.day)
ATTEMPT = select(*_DAILY_COLUMNS).where(
    daily.c.day == bindparam("b_day"), daily.c.player == bindparam("b_player")
)
DELETE_ATTEMPT = delete(daily).where(
    daily.c.day == bindparam("b_day"), daily.c.player == bindparam("b_player")
)
MOVE_ATTEMPT = (
    update(daily)
    .where(daily.c.day == bindparam("b_day"), daily.c.player == bindparam("b_old"))
    .values(player=bindparam("b_new"))
)
ATTEMPT_DAYS = select(daily.c.day).where(daily.c.player == bindparam("b_player"))
MOVE_ATTEMPTS = update(daily).where(daily.c.player == bindparam("b_old")).values(player=bindparam("b_new"))
MOVE_SEATS = update(racers).where(racers.c.player == bindparam("b_old")).values(player=bindparam("b_new"))
MOVE_MAKERS = update(races).where(races.c.maker == bindparam("b_old")).values(maker=bindparam("b_new"))
OWN_GAMES = select(games.c.id).where(games.c.owner == bindparam("b_player")).order_by(games.c.seq)
GAME_SUMMARIES = (
    select(
        games.c.id,
        games.c.code,
        games.c.status,
        games.c.moves,
        games.c.score,
        games.c.cards_left,
        games.c.updated,
    )
    .where(games.c.owner == bindparam("b_player"))
    .order_by(games.c.seq)
)
SEATS = (
    select(racers.c.race_id, racers.c.round, racers.c.seat, racers.c.game_id, racers.c.joined)
    .where(racers.c.player == bindparam("b_player"))
    .order_by(racers.c.joined)
)

SET_RECOVERY = [
    delete(recovery).where(recovery.c.player == bindparam("b_player")),
    insert(recovery).values(
        player=bindparam("b_player"),
        selector=bindparam("b_selector"),
        digest=bindparam("b_digest"),
        created=bindparam("b_now"),
    ),
]
RECOVERY = select(recovery.c.player, recovery.c.digest).where(recovery.c.selector == bindparam("b_selector"))
RECOVERY_MADE = select(recovery.c.created).where(recovery.c.player == bindparam("b_player"))
DELETE_RECOVERY = delete(recovery).where(recovery.c.player == bindparam("b_player"))

_PASSKEY_COLUMNS: Final = (
    passkeys.c.id,
    passkeys.c.player,
    passkeys.c.public_key,
    passkeys.c.sign_count,
    passkeys.c.created,
    passkeys.c.last_used,
    passkeys.c.kind,
)
NEW_PASSKEY = insert(passkeys).values({c.name: bindparam("b_" + c.name) for c in _PASSKEY_COLUMNS})
PASSKEY = select(*_PASSKEY_COLUMNS).where(passkeys.c.id == bindparam("b_id"))
PASSKEY_USED = (
    update(passkeys)
    .where(passkeys.c.id == bindparam("b_id"))
    .values(sign_count=bindparam("b_count"), last_used=bindparam("b_now"))
)
PLAYER_PASSKEYS = (
    select(*_PASSKEY_COLUMNS).where(passkeys.c.player == bindparam("b_player")).order_by(passkeys.c.created)
)
DELETE_PASSKEY = delete(passkeys).where(
    passkeys.c.id == bindparam("b_id"), passkeys.c.player == bindparam("b_player")
)
DELETE_PASSKEYS = delete(passkeys).where(passkeys.c.player == bindparam("b_player"))

NEW_TOKEN = insert(tokens).values(
    id=bindparam("b_id"),
    player=bindparam("b_player"),
    digest=bindparam("b_digest"),
    created=bindparam("b_now"),
)
TOKEN = select(tokens.c.player, tokens.c.digest).where(tokens.c.id == bindparam("b_id"))
PLAYER_TOKENS = (
    select(tokens.c.id, tokens.c.player, tokens.c.created)
    .where(tokens.c.player == bindparam("b_player"))
    .order_by(tokens.c.created)
)
TOKEN_IDS = select(tokens.c.id).where(tokens.c.player == bindparam("b_player"))
DELETE_TOKEN = delete(tokens).where(
    tokens.c.id == bindparam("b_id"), tokens.c.player == bindparam("b_player")
)
DELETE_CODES = delete(codes).where(codes.c.player == bindparam("b_player"))
ANONYMOUS_RESULTS = update(results).where(results.c.player == bindparam("b_old")).values(player=None)
ANONYMOUS_HOLDERS = [
    update(deals).where(deals.c[column] == bindparam("b_old")).values({column: None})
    for column in ("first_player", "best_player", "unfinished_player")
]
