"""The Dockerfile, compose.yaml and packaging rules, read without an engine (fast).

The image itself is built and run in test_container.py; these catch a rule broken in the files
before that (slow) test runs, and where no container engine is.
"""

from __future__ import annotations

import json
import re
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")
COMPOSE = (ROOT / "compose.yaml").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def instructions() -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def test_the_base_is_a_build_argument_named_in_full() -> None:
    steps = instructions()
    assert steps[0][0] == "ARG" and steps[0][1].startswith("BASE=")
    default = steps[0][1].removeprefix("BASE=")
    # The default may float or be pinned by digest; it is named in full (no short-name lookup).
    assert re.fullmatch(r"docker\.io/library/python:3\.\d+-slim(@sha256:[0-9a-f]{64})?", default), default
    assert dict(steps)["FROM"] == "${BASE}"


def test_dependencies_are_installed_before_the_code_is_copied_and_not_editable() -> None:
    steps = instructions()
    copies = [i for i, (keyword, _) in enumerate(steps) if keyword == "COPY"]
    deps = next(i for i, (k, rest) in enumerate(steps) if k == "RUN" and "-r /tmp/requirements.txt" in rest)
    assert steps[copies[0]][1].split()[:-1] == ["pyproject.toml", "constraints.txt"]
    assert copies[0] < deps < copies[1], "the dependency layer must depend only on pyproject and constraints"
    assert not any(k == "RUN" and re.search(r"pip install[^&]*\s-e\s", rest) for k, rest in steps)
    assert "--mount=type=secret,id=ca" in steps[deps][1]  # the CA bundle is a secret, not a layer


def test_the_user_volume_command_and_health_check() -> None:
    steps = instructions()
    user = [rest for keyword, rest in steps if keyword == "USER"]
    assert user and user[-1] not in ("root", "0")
    cmd = json.loads(dict(steps)["CMD"])  # exec form; sh only to read the port and workers, then exec
    assert cmd[:2] == ["sh", "-c"] and "--reload" not in cmd[2]
    # The soft open-file limit raised to the hard one (each race stream holds a file), then the
    # server exec'd: it is PID 1 and gets SIGTERM.
    raise_files, serve = cmd[2].split("; ", 1)
    assert raise_files == 'ulimit -n "$(ulimit -Hn)" 2>/dev/null' and serve.startswith("exec tripeaks serve")
    assert '"$TRIPEAKS_PORT"' in cmd[2] and '"$TRIPEAKS_WORKERS"' in cmd[2]
    assert "/data" in dict(steps)["VOLUME"]
    health = dict(steps)["HEALTHCHECK"]
    assert "8000" not in health
    interval = int(re.search(r"--interval=(\d+)s", health).group(1))  # type: ignore[union-attr]
    retries = int(re.search(r"--retries=(\d+)", health).group(1))  # type: ignore[union-attr]
    assert interval * retries <= 30, "an unhealthy server must show within half a minute"
    env = " ".join(rest for keyword, rest in steps if keyword == "ENV")
    assert "TRIPEAKS_WORKERS=1" in env and "TRIPEAKS_PORT=8000" in env
    assert "TRIPEAKS_SECRET_KEY_FILE" in DOCKERFILE  # documented where operators look


def test_compose_names_images_in_full_binds_loopback_and_waits_for_health() -> None:
    assert "image: docker.io/library/postgres:16" in COMPOSE
    assert not re.search(r"^\s+image:\s+postgres", COMPOSE, re.M)
    assert "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD" in COMPOSE  # from .env or the environment
    assert not re.search(r"POSTGRES_PASSWORD:\s+[\w\"']", COMPOSE)  # never a written password
    ports = re.findall(r'^\s+- "([^"]+)"$', COMPOSE, re.M)
    loopback = ("127.0.0.1:", "${TRIPEAKS_PROXY_BIND:-127.0.0.1}:")  # Caddy's: a public site sets 0.0.0.0
    assert ports and all(port.startswith(loopback) for port in ports), ports
    assert COMPOSE.count("condition: service_healthy") == 2
    assert "tripeaks-data:/data" in COMPOSE and "profiles:" in COMPOSE


def test_the_license_is_an_spdx_string_and_setuptools_is_bounded() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    requires = PYPROJECT["build-system"]["requires"]
    setuptools = next(r for r in requires if r.startswith("setuptools"))
    low = re.search(r">=(\d+)", setuptools)
    high = re.search(r"<(\d+)", setuptools)
    assert low and int(low.group(1)) >= 77, "the SPDX string form needs setuptools 77"
    assert high, "an unbounded setuptools breaks the build when it drops what it deprecates"
    # The installed package carries it as a License-Expression (core metadata 2.4).
    assert metadata.metadata("tripeaks")["License-Expression"] == "MIT"


def test_uvicorn_comes_without_watchfiles() -> None:
    dependencies = PYPROJECT["project"]["dependencies"]
    assert not any(d.startswith("uvicorn[") for d in dependencies), "uvicorn[standard] brings watchfiles"
    names = {re.split(r"[<>=;\s\[]", d, maxsplit=1)[0] for d in dependencies}
    assert {"uvicorn", "httptools", "uvloop"} <= names


def test_the_proxy_profile_puts_caddy_from_debian_in_front_of_two_servers_on_postgresql() -> None:
    """compose.yaml's "proxy" profile: Caddy, built from Debian's package with the repository's
    Caddyfile, the only service with ports; two servers on PostgreSQL that trust it; the
    database and Redis with them; open-file limits raised."""
    import yaml

    services = yaml.safe_load(COMPOSE)["services"]
    proxied = {name for name, service in services.items() if "proxy" in service.get("profiles", [])}
    assert proxied == {"caddy", "tripeaks-a", "tripeaks-b", "postgres", "redis"}, proxied
    caddy = services["caddy"]
    upstreams = caddy["environment"]["TRIPEAKS_UPSTREAMS"].split()
    assert upstreams == ["tripeaks-a:8000", "tripeaks-b:8000"]
    for name in ("tripeaks-a", "tripeaks-b"):
        server = services[name]
        assert "ports" not in server  # reached through Caddy only
        assert server["environment"]["TRIPEAKS_TRUST_PROXY"] == "true"
        assert server["environment"]["TRIPEAKS_DATABASE_URL"].startswith("postgresql+psycopg://")
        assert server["ulimits"]["nofile"]["soft"] >= 65536
    assert caddy["build"]["dockerfile"] == "deploy/caddy.Dockerfile" and caddy["ulimits"]["nofile"]["soft"] >= 65536
    dockerfile = (ROOT / "deploy" / "caddy.Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"apt-get install [^\n]*\bcaddy\b", dockerfile)  # Debian's own Caddy
    assert "COPY deploy/Caddyfile /etc/caddy/Caddyfile" in dockerfile
