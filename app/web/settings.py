"""Configuration from the environment (``TRIPEAKS_*``), read once at start."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRIPEAKS_", extra="ignore")

    database_url: str = "sqlite:///./data/tripeaks.db"
    """Where games live: ``sqlite:///path``, ``postgresql+psycopg://…`` or ``memory://``."""

    idle_days: float = 30.0
    """Unfinished games untouched this long are removed (their results kept); 0 turns it off."""

    cleanup_every_hours: float = 24.0
    """How often idle games are looked for (also once at start)."""

    secret_key: str | None = None
    """Signs the player cookie. Unset: read from ``secret_key_file``; unset too, a key is made
    once and kept in ``data_dir/secret_key``."""

    secret_key_file: Path | None = None
    """A file holding the key (a Docker or compose secret: ``/run/secrets/tripeaks_key``)."""

    workers: int = Field(default=1, ge=1, le=64)
    """Worker processes ``tripeaks serve`` starts (its ``--workers`` overrides it). More than
    one wants PostgreSQL, or SQLite on a local disk, and shared rate limit counters (Redis)."""

    keep_alive_s: int = Field(default=75, ge=1, le=3600)
    """How long ``tripeaks serve`` keeps an idle connection open for the next request. Longer
    than the idle connections a proxy in front keeps to it (nginx 60 s, deploy/Caddyfile 60 s, a
    cloud load balancer's usual 60 s): the proxy, not the game, closes them, so a move is never
    sent down a connection the game has just closed (a 502: proxies do not send a POST again).
    uvicorn's own 5 s was shorter than all of them."""

    metrics: bool = False
    """Serve Prometheus metrics at ``/metrics`` (see app/web/ops/metrics.py). Off: 404."""

    metrics_token: str | None = None
    """Set: ``/metrics`` is served (even with ``metrics`` off) only to a request carrying
    ``Authorization: Bearer <token>``; others get 401."""

    access_log: bool = True
    """One line per request (logger ``tripeaks.access``), with its request id."""

    data_dir: Path = Path("data")
    cookie_secure: bool = False
    """Mark cookies ``Secure`` always. They are marked anyway on a request made over https
    (as uvicorn sees it: behind a TLS-terminating proxy, see ``trust_proxy``)."""

    trust_proxy: bool = False
    """Honour ``X-Forwarded-Proto`` and ``X-Forwarded-For`` from ``forwarded_allow_ips``
    (the address of the proxy in front): the scheme (for ``Secure`` cookies) and the client
    address (for rate limits) are then the ones the proxy saw. Off: the headers are ignored."""

    forwarded_allow_ips: str = "127.0.0.1"
    """Comma-separated addresses or networks of trusted proxies (``*``: any); with ``trust_proxy``."""

    max_body_bytes: int = 16_384

    max_games_per_player: int = 200
    """A player keeping more games than this loses their oldest (not won first) when a new
    one is dealt; their results are recorded first. 0: no bound."""

    rate_limits: bool = True
    """Off: no rate limit at all (benchmarks). Each limit below is a ``limits`` string such as
    ``"60/minute"`` or ``"20/second;600/minute"`` (all must hold), or ``"off"``."""

    rate_limit_new_games: str = "60/minute"
    """Games dealt by ``POST /new``, ``/games/{id}/restart``, ``/api/games``, ``/daily/{day}``
    and a race's (``/races``, its join and "race again"), per client address."""

    rate_limit_pages: str = "300/minute"
    """``GET /``, ``GET /g/{code}`` and ``GET /daily/…`` (each may deal a game or find a day's
    deal), and the reviews, per client address."""

    rate_limit_actions: str = "600/minute"
    """Moves and other state changes (any other POST or PUT), per player (cookie), or per
    client address for a request without a valid player cookie."""

    rate_limit_hints: str = "120/minute"
    """Hints (a solver search each), per player; they count as actions too."""

    rate_limit_actions_per_address: str = "3000/minute"
    """All actions from one client address, whatever cookies they carry (a ceiling against
    clients that make up fresh cookies; generous, for many players behind one NAT)."""

    race_signals_url: str | None = None
    """Where races' "this race changed" signals go between servers: ``redis://host:6379/0``.
    Unset: PostgreSQL's LISTEN/NOTIFY when the games are kept in PostgreSQL; on SQLite, within
    the one server."""
    race_streams_per_player: int = Field(default=4, ge=1, le=100)
    """Live race pages (streams) one player may have open on one server at once."""
    race_streams_per_address: int = Field(default=40, ge=1)
    """Live race streams one client address may have open on one server at once (behind a
    trusted proxy, the address it forwards): a player is a cookie, and cookies cost nothing.
    40 leaves room for a class of racers behind one NAT."""
    race_streams_per_server: int = Field(default=10_000, ge=1)
    """Live race streams one server keeps open at most (each about 17 KiB and an open file;
    docs/deploy.md, "How many streams a server"); lowered at start to what the process's
    open-file limit allows (:func:`app.web.race_stream.bound_by_open_files`)."""
    ghost_pace: float = Field(default=1.0, gt=0, le=100)
    """How many times faster than it was played a run to beat ("Race this run") moves: 1, its
    own pace; tests take it faster (the offsets sent are the recorded ones whatever it is)."""
    rate_limit_codes: str = "10/minute;100/hour"
    """Link codes tried (``POST /link``, ``/api/link``) and passkey sign-ins begun, per client
    address (docs/security.md works out what a guesser can do at these limits)."""
    rate_limit_codes_everyone: str = "300/minute"
    """The same, for the whole installation (with Redis counters; else for each server)."""
    rate_limit_recovery: str = "5/minute;30/hour"
    """Recovery codes tried or made (each is a slow hash, scrypt), per client address."""
    rate_limit_recovery_everyone: str = "60/minute"
    """The same, for the whole installation (with Redis counters; else for each server)."""
    public_url: str | None = None
    """The address players reach the game at (``https://tripeaks.example``): the links and QR
    codes of link codes, and the passkeys' relying party (its host) and origin. Unset: the
    address each request came to, and passkeys work only on ``http://localhost``
    (docs/deploy.md)."""
    sign_out_refresh_s: float = Field(default=10.0, gt=0, le=15)
    """How often each server reads the devices signed out on the others: a signed-out browser
    is a new player on every server within this and a request (at most 15 s: within 30 s)."""
    rate_limit_storage: str = "memory://"
    """Where the counters live: ``memory://`` (per process: with N workers a client gets up to
    N times the limits) or ``redis://host:port`` (shared; needs the ``redis`` package)."""

    @field_validator(
        "rate_limit_new_games",
        "rate_limit_pages",
        "rate_limit_actions",
        "rate_limit_hints",
        "rate_limit_actions_per_address",
        "rate_limit_codes",
        "rate_limit_codes_everyone",
        "rate_limit_recovery",
        "rate_limit_recovery_everyone",
    )
    @classmethod
    def _limit(cls, value: str) -> str:
        from app.web.middleware.ratelimit import parse_limits

        parse_limits(value)  # raises ValueError, reported with the setting's name
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        from urllib.parse import urlsplit

        if not value:
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an address: {value!r} (write, say, https://tripeaks.example)")
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def metrics_on(self) -> bool:
        return self.metrics or bool(self.metrics_token)

    def signing_key(self) -> str:
        """The key that signs player cookies: ``secret_key``, else ``secret_key_file``, else the
        one kept in ``data_dir/secret_key`` (made there by the first process to need it).

        The kept key is written to a temporary file, synced, and then linked to its name: a
        link fails when the name exists, so of processes starting at once one makes the key
        and every other reads that one, whole. No process can read a part-written key."""
        if self.secret_key:
            return self.secret_key
        if self.secret_key_file is not None:
            where = f"TRIPEAKS_SECRET_KEY_FILE {str(self.secret_key_file)!r}"
            try:
                key = self.secret_key_file.read_text(encoding="utf-8").strip()
            except OSError as error:
                raise ValueError(f"{where}: {error}") from error
            if not key:
                raise ValueError(f"{where} is empty")
            return key
        path = self.data_dir / "secret_key"
        kept = _read_key(path)
        if kept is not None:
            return kept
        self.data_dir.mkdir(parents=True, exist_ok=True)
        made = secrets.token_urlsafe(32)
        temporary = path.with_name(f".secret_key.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, made.encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, path)  # fails if another process linked its key first
        except FileExistsError:
            made = ""
        finally:
            temporary.unlink()
        _sync_folder(self.data_dir)
        if made:
            return made
        kept = _read_key(path)
        if kept is None:  # pragma: no cover - it was linked whole a moment ago
            raise ValueError(f"the secret key file {str(path)!r} vanished")
        return kept


def _read_key(path: Path) -> str | None:
    """The key kept in ``path``; ``None`` if there is none. An empty file (an older version was
    writing it) is waited for a moment, then refused with a clear message."""
    for _ in range(50):
        try:
            key = path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        if key:
            return key
        time.sleep(0.02)
    raise ValueError(f"the secret key file {str(path)!r} is empty: delete it and a new key is made")


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - a folder that cannot be opened (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
