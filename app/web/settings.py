"""Configuration from the environment (``TRIPEAKS_*``), read once at start."""

from __future__ import annotations

import secrets
from pathlib import Path

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
    """Mark cookies ``Secure`` (set this when the game is served over https)."""

    max_body_bytes: int = 16_384

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
