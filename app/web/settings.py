"""Configuration from the environment (``TRIPEAKS_*``), read once at start."""

from __future__ import annotations

import secrets
from pathlib import Path

from pydantic import field_validator
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
    """Signs the player cookie. Unset: a key is made once and kept in ``data_dir/secret_key``."""

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
    """Games dealt by ``POST /new``, ``/games/{id}/restart`` and ``/api/games``, per client address."""

    rate_limit_pages: str = "300/minute"
    """``GET /`` and ``GET /g/{code}`` (either may deal a game), per client address."""

    rate_limit_actions: str = "600/minute"
    """Moves and other state changes (any other POST or PUT), per player (cookie), or per
    client address for a request without a valid player cookie."""

    rate_limit_hints: str = "120/minute"
    """Hints (a solver search each), per player; they count as actions too."""

    rate_limit_actions_per_address: str = "3000/minute"
    """All actions from one client address, whatever cookies they carry (a ceiling against
    clients that make up fresh cookies; generous, for many players behind one NAT)."""

    rate_limit_storage: str = "memory://"
    """Where the counters live: ``memory://`` (per process: with N workers a client gets up to
    N times the limits) or ``redis://host:port`` (shared; needs the ``redis`` package)."""

    @field_validator(
        "rate_limit_new_games",
        "rate_limit_pages",
        "rate_limit_actions",
        "rate_limit_hints",
        "rate_limit_actions_per_address",
    )
    @classmethod
    def _limit(cls, value: str) -> str:
        from app.web.ratelimit import parse_limits

        parse_limits(value)  # raises ValueError, reported with the setting's name
        return value

    def signing_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        path = self.data_dir / "secret_key"
        try:
            return path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            pass
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(32)
        try:
            with path.open("x", encoding="ascii") as file:  # another worker may win the race
                file.write(key)
            path.chmod(0o600)
        except FileExistsError:
            return path.read_text(encoding="ascii").strip()
        return key
