"""Apps made with chosen settings (the security tests'), the routes an app serves, what its
``/metrics`` says, and a live server with idle cleanup off."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from starlette.routing import Mount

from app.web.settings import Settings
from tests.support import servers

SECRET = "security-tests-secret-" + "s" * 24

AppFactory = Callable[..., TestClient]
"""``make_client(store=None, *, client_kwargs=None, **settings)``: the security tests' fixture."""

# The rate limits count in sliding windows over whole minutes of the clock (the previous
# minute's count weighted by how much of it is still inside the window, rounded down): a test
# that crossed a minute would see a count drop by one. So the in-memory counters of the apps
# made by ``make_client`` read a clock that stands still, 30 s into a minute: every count is
# exact, and so is Retry-After. (Redis keeps its own time: see tests/security/test_rate_limits.py.)
NOW = 1_800_000_030.0


def settings(tmp: Path, **overrides: Any) -> Settings:
    """Test settings: memory store, a fixed key, rate limits off unless asked for."""
    values: dict[str, Any] = {
        "secret_key": SECRET,
        "database_url": "memory://",
        "data_dir": tmp,
        "rate_limits": False,
        "idle_days": 0,
    }
    values.update(overrides)
    return Settings(**values)


def live_server(
    data_dir: Path, env: Mapping[str, str] | None = None, *, run_as: Sequence[str] = ()
) -> AbstractContextManager[servers.LiveServer]:
    """The game in a subprocess, with idle cleanup off (``run_as``: a command prefix)."""
    return servers.live_server(data_dir, {"TRIPEAKS_IDLE_DAYS": "0", **(env or {})}, run_as=run_as)


def app_routes(app: Any) -> dict[tuple[str, str], set[str]]:
    """(method, path) of every route the app serves, routers included (``*`` for a mount)."""
    found: dict[tuple[str, str], set[str]] = {}

    def walk(routes: list[Any], prefix: str) -> None:
        for route in routes:
            nested = getattr(route, "original_router", None)
            if nested is not None:  # an included router (FastAPI keeps it as one route)
                context = getattr(route, "include_context", None)
                walk(nested.routes, prefix + (getattr(context, "prefix", "") or ""))
            elif isinstance(route, Mount):
                found[("*", prefix + route.path)] = {"GET"}
            else:
                methods = set(getattr(route, "methods", None) or {"GET"}) - {"HEAD"}
                for method in methods:
                    found[(method, prefix + route.path)] = methods

    walk(list(app.routes), "")
    return found


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one series in ``/metrics``' exposition text (0 when absent)."""
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            found = dict(re.findall(r'(\w+)="([^"]*)"', line.rpartition("}")[0]))
            if all(found.get(k) == v for k, v in labels.items()):
                return float(line.rsplit(" ", 1)[1])
    return 0.0
