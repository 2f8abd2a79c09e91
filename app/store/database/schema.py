"""The SQL schema: every table as this code's version (:data:`SCHEMA_VERSION`) has it.

A new database is created from these definitions; an older one is brought to them step by
step (:mod:`app.store.database.migrations`). To change the schema: change the definitions
here, raise :data:`SCHEMA_VERSION`, and add its step there.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Double,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
)

SCHEMA_VERSION: Final = 11

CODE_LENGTH: Final = 24
"""Room for any game code: ``TP1-EOWJT-AAAAAAB`` is 17 characters (16 before the variants)."""
KIND_LENGTH: Final = 8
"""Room for a code's rules and variant letters: ``EOWJT`` is 5."""

metadata = MetaData()

schema_table = Table(
    "tp_schema",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", Integer, nullable=False),
    Column("migrated", Double, nullable=False),
)

players = Table(
    "tp_players",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("display_name", String(40)),
    Column("current_game_id", String(64)),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
)

games = Table(
    "tp_games",
    metadata,
    Column(
        "seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("id", String(64), nullable=False, unique=True),
    Column("owner", String(64)),
    Column("code", String(CODE_LENGTH), nullable=False),
    Column("state", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("status", String(8), nullable=False),
    Column("moves", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("cards_left", Integer, nullable=False),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
    Index("tp_games_owner_code", "owner", "code", "seq"),
    Index("tp_games_updated", "updated"),
)

results = Table(
    "tp_results",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("game_seq", BigInteger, nullable=False),
    Column("player", String(64)),
    Column("code", String(CODE_LENGTH), nullable=False),
    # The code's rules letter and its variants' letters (``E``, ``CWJ``): statistics are kept
    # per rule set and variants. Version 3 widened it from the rules letter alone.
    Column("rules", String(KIND_LENGTH), nullable=False),
    Column("won", Boolean, nullable=False),
    Column("score", Integer, nullable=False),
    Column("cards_left", Integer, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("feats", String(64), nullable=False),
    Column("at", Double, nullable=False),
    # Version 2: the game's longest run and its time, for display (NULL in older results).
    Column("longest_run", Integer),
    Column("seconds", Double),
    Column("line", Text, nullable=False, server_default=""),
    Index("tp_results_player", "player", "rules", "game_seq"),
)

deals = Table(
    "tp_deals",
    metadata,
    Column("code", String(CODE_LENGTH), primary_key=True),
    Column("wins", Integer, nullable=False),
    Column("finished", Integer, nullable=False),
    Column("first_game", String(64)),
    Column("first_player", String(64)),
    Column("first_score", Integer),
    Column("first_at", Double),
    Column("best_score", Integer),
    Column("best_game", String(64)),
    Column("best_player", String(64)),
    Column("best_at", Double),
    Column("unfinished_cards_left", Integer),
    Column("unfinished_game", String(64)),
    Column("unfinished_player", String(64)),
    Column("unfinished_at", Double),
)

DEAL_FIELDS: Final = tuple(c.name for c in deals.columns if c.name != "code")

DAY_LENGTH: Final = 10
"""A UTC day as ISO text: ``2026-12-03``."""

daily = Table(
    # Version 4: the daily challenge (docs/deals.md). One row per player and day: the
    # player's first game of that day's deal (the ranked attempt, or "late" when begun
    # after its day), kept up to date by every save while its day runs, so that an attempt
    # still unfinished when the day ends is left as it was then.
    "tp_daily",
    metadata,
    Column("day", String(DAY_LENGTH), primary_key=True),
    Column("player", String(64), primary_key=True),
    Column("game_id", String(64), nullable=False),
    Column("code", String(CODE_LENGTH), nullable=False),
    Column("late", Boolean, nullable=False),
    # Won or blocked within its day: it counts from then on (an unfinished one, once the
    # day is over).
    Column("ended", Boolean, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("score", Integer, nullable=False),
    Column("seconds", Double),
    Column("hints", Integer, nullable=False),
    Column("plausible", Boolean, nullable=False),
    # The intervals between actions seen so far, and how many were quicker than a person
    # plays (app.store.ranking.plausible).
    Column("gaps", Integer, nullable=False),
    Column("quick", Integer, nullable=False),
    # Its place in the day's order as one number (app.store.ranking.board_key).
    Column("board_key", BigInteger, nullable=False),
    Column("started", Double, nullable=False),
    Column("last_action", Double),
    # When it ended, or (while playing) its latest change: the last tie-break, "who
    # finished first".
    Column("at", Double, nullable=False),
    # Version 7: ended by its player as it stood (to practise the deal: it counts as
    # unfinished), and the peaks its game had cleared (a bit each) for the share text.
    Column("stopped", Boolean, nullable=False, server_default=false()),
    Column("peaks", Integer),
    # The leaderboard's order, the columns it filters on last: the top 100 and "12th of
    # 340" are index ranges, never a sort or a table read.
    Index("tp_daily_board", "day", "late", "board_key", "at", "ended"),
    Index("tp_daily_game", "game_id", unique=True),
    Index("tp_daily_player", "player", "day"),
)

daily_pace = Table(
    # Version 11: the pace of each daily attempt (app/store/paces.py): one row per action
    # while the attempt runs, as the live strip shows it after it, and when it came on the
    # game's clock. A ghost of the run replays them ("Race this run").
    "tp_daily_pace",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("n", Integer, primary_key=True, autoincrement=False),
    Column("after", Double, nullable=False),
    Column("cards_left", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("stock_left", Integer, nullable=False),
)


races = Table(
    # Version 5: race rooms (issue 24, app/store/races.py). One row per room: its maker, the
    # deal of its current round, when that round's deal is (None: the lobby) and when it was
    # seen to finish.
    "tp_races",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("maker", String(64), nullable=False),
    Column("code", String(CODE_LENGTH), nullable=False),
    Column("round", Integer, nullable=False),
    Column("created", Double, nullable=False),
    Column("starts", Double),
    Column("ended", Double),
    Column("updated", Double, nullable=False),
    Index("tp_races_maker", "maker", "updated"),
    Index("tp_races_updated", "updated"),
)

racers = Table(
    # Version 5: the racers of each round of a room, and their (ordinary, stored) games.
    "tp_racers",
    metadata,
    Column("race_id", String(64), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("player", String(64), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("game_id", String(64), nullable=False),
    Column("joined", Double, nullable=False),
    # When the racer's page was last connected (None: never, a JSON API client).
    Column("seen", Double),
    # Version 6: when the racer left with "Leave the race" (None: not left, or back since).
    Column("left_at", Double),
    Index("tp_racers_game", "game_id", unique=True),
)


devices = Table(
    # Version 7: a player on every device (issue 38, app/store/identity.py). Each browser that
    # is a player: its kind (browser and system) and when it was last seen (to the hour).
    "tp_devices",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("player", String(64), nullable=False),
    Column("kind", String(80), nullable=False),
    Column("created", Double, nullable=False),
    Column("last_seen", Double, nullable=False),
    Index("tp_devices_player", "player"),
)

signed_out = Table(
    # Version 7: what is signed out, for good: a device (``d:``), a personal token (``t:``) or
    # a deleted player (``p:``), and since when (each server reads what is new every ~10 s).
    "tp_signed_out",
    metadata,
    Column("id", String(70), primary_key=True),
    Column("at", Double, nullable=False),
    Index("tp_signed_out_at", "at"),
)

codes = Table(
    # Version 7: single-use codes (link codes, passkey challenges), kept as keyed hashes.
    "tp_codes",
    metadata,
    Column("digest", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("player", String(64)),
    Column("expires", Double, nullable=False),
    Column("used", Boolean, nullable=False),
    Index("tp_codes_player", "player", "kind"),
    Index("tp_codes_expires", "expires"),
)

recovery = Table(
    # Version 7: each player's recovery code: its public selector and its scrypt digest.
    "tp_recovery",
    metadata,
    Column("player", String(64), primary_key=True),
    Column("selector", String(16), nullable=False, unique=True),
    Column("digest", String(200), nullable=False),
    Column("created", Double, nullable=False),
)

passkeys = Table(
    # Version 7: passkeys (WebAuthn credentials) by credential id.
    "tp_passkeys",
    metadata,
    Column("id", String(1400), primary_key=True),
    Column("player", String(64), nullable=False),
    Column("public_key", Text, nullable=False),
    Column("sign_count", BigInteger, nullable=False),
    Column("kind", String(80), nullable=False),
    Column("created", Double, nullable=False),
    Column("last_used", Double),
    Index("tp_passkeys_player", "player"),
)

tokens = Table(
    # Version 7: personal tokens: a public id and the SHA-256 of the secret.
    "tp_tokens",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("player", String(64), nullable=False),
    Column("digest", String(64), nullable=False),
    Column("created", Double, nullable=False),
    Index("tp_tokens_player", "player"),
)

IDENTITY_TABLES: Final = (devices, signed_out, codes, recovery, passkeys, tokens)

friends_tables = Table(
    # Version 10 (issue 39): tables of friends. ``invite`` is the invite link's token now
    # (renewed: the old one no longer matches anything); ``members`` their count, kept by
    # the joins and leaves (the 1,000 limit checked with the row locked).
    "tp_tables",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("name", String(40), nullable=False),
    Column("maker", String(64)),
    Column("invite", String(32), nullable=False),
    Column("members", Integer, nullable=False),
    Column("created", Double, nullable=False),
    # The latest race made for the table ("Race the table"), and when.
    Column("race", String(64)),
    Column("race_at", Double),
    Index("tp_tables_invite", "invite", unique=True),
)

table_members = Table(
    # A membership: its own id is what pages and the API show, never the player's.
    "tp_table_members",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("table_id", String(24), nullable=False),
    Column("player", String(64), nullable=False),
    Column("joined", Double, nullable=False),
    Index("tp_table_members_table", "table_id", "player", unique=True),
    Index("tp_table_members_player", "player", "joined"),
)


answers = Table(
    # Version 9: the JSON API's answers kept for a retry with the same Idempotency-Key
    # (app.store.answers): by the game's id and the key; the request's fingerprint; the
    # answer once made (status NULL: being made); when claimed, for their lifetime.
    "tp_answers",
    metadata,
    Column("scope", String(64), primary_key=True),
    Column("key", String(128), primary_key=True),
    Column("request", String(64), nullable=False),
    Column("status", Integer),
    Column("body", Text),
    Column("created", Double, nullable=False),
    Index("tp_answers_created", "created"),
)
