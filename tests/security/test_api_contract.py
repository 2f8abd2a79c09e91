"""The JSON API keeps its own contract: schemathesis with every check, on SQLite and PostgreSQL.

A live server per database gets generated requests (positive and negative, a fixed seed,
``TRIPEAKS_CONTRACT_EXAMPLES`` per operation, 12 by default) for every operation under
``/api/`` in its ``/openapi.json``, and every check schemathesis has (``st run --checks all``):
the status codes, content types, headers and bodies the document lists, schema-valid requests
accepted and schema-invalid ones refused, no 5xx. Ids are sometimes swapped for real ones, so
that moves and refusals are reached, not only 404s.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from tests.support.apps import live_server  # noqa: E402
from tests.support.pages import CODE  # noqa: E402
from tests.support.servers import LiveServer  # noqa: E402
from tests.support.store import SQL_BACKENDS, fresh_schema, reachable_postgres  # noqa: E402

EXAMPLES = int(os.environ.get("TRIPEAKS_CONTRACT_EXAMPLES", "12"))


@pytest.fixture(scope="module", params=SQL_BACKENDS)
def contract_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    import requests

    data = tmp_path_factory.mktemp("contract")
    with fresh_schema(reachable_postgres()) if request.param == "postgresql" else _sqlite(data) as url:
        env = {"TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_DATABASE_URL": url}
        with live_server(data, env) as server:
            session = requests.Session()
            session.get(f"{server.url}/", timeout=10)
            game = session.post(f"{server.url}/api/games", json={"code": CODE}, timeout=10).json()["id"]
            race = session.post(f"{server.url}/api/races", json={"code": CODE}, timeout=10).json()["id"]
            ids = {"game": game, "race": race, "cookie": session.cookies.get("tp_player") or ""}
            yield server, ids
            log = Path(server.log).read_text(errors="replace")
            assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-3000:]


class _sqlite:
    def __init__(self, data: Path) -> None:
        self.url = f"sqlite:///{data / 'contract.db'}"

    def __enter__(self) -> str:
        return self.url

    def __exit__(self, *_: object) -> None:
        return None


def api_operations() -> list[tuple[str, str]]:
    from app.web.main import create_app
    from app.web.settings import Settings

    document = create_app(Settings(secret_key="x" * 32, database_url="memory://")).openapi()
    return [
        (method.upper(), path)
        for path, ops in document["paths"].items()
        if path.startswith("/api/")
        for method in ops
    ]


OPERATIONS = api_operations()

ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "429"]
"""What schemathesis expects of a schema-valid request (its default, 5xx left out)."""
BEYOND_A_SCHEMA: dict[str, list[str]] = {
    # A line of the right form may break the rules on its deal: 400 bad_line with its index.
    "/api/replay/{code}/{line}": ["400"],
    # A name's rules (visible characters, no controls, 40 at most once cleaned) are Unicode's
    # categories, which no JSON Schema pattern says: 422 tells why.
    "/api/players/me/name": ["422"],
    # A table's name follows the display names' rules (the same categories).
    "/api/tables": ["422"],
}
"""Operations whose documented refusals include a schema-valid request, and their statuses."""


def contract_config() -> Any:
    from schemathesis.config import SchemathesisConfig

    operations = [
        {"include-path": path,
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + more}}}
        for path, more in BEYOND_A_SCHEMA.items()
    ]
    return SchemathesisConfig.from_dict({"operations": operations})


def test_every_api_operation_keeps_the_document(contract_server: tuple[LiveServer, dict[str, str]]) -> None:
    server, ids = contract_server
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json", config=contract_config())
    failures: dict[str, str] = {}
    for method, path in OPERATIONS:
        operation = schema[path][method]

        @seed(41)
        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                  derandomize=True, database=None)
        def fuzz(case: Any) -> None:
            params = case.path_parameters or {}
            for name, real in (("game_id", "game"), ("race_id", "race")):
                if isinstance(params.get(name), str) and len(params[name]) % 2:
                    params[name] = ids[real]  # now and then a real one
            cookies = {"tp_player": ids["cookie"]} if len(str(case.body)) % 2 else None
            case.call_and_validate(base_url=server.url, cookies=cookies, timeout=10)

        try:
            fuzz()
        except BaseException as failure:  # every operation is tried; all failures are told at once
            if isinstance(failure, KeyboardInterrupt):
                raise
            failures[f"{method} {path}"] = str(failure)[:1500]
    assert not failures, "\n\n".join(f"{name}:\n{text}" for name, text in failures.items())
