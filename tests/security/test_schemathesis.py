"""Property-based fuzzing of the whole HTTP API from its OpenAPI schema (schemathesis), over real HTTP.

A live uvicorn server (SQLite store, rate limits off so that the fuzzer is not throttled)
gets generated requests for every operation in ``/openapi.json``, pages included. No answer
may be a 5xx, and every JSON answer must match the schema of its documented response.
Path ids are sometimes swapped for real ones (the player's game, an API game), so that the
fuzzer reaches games, not only 404s. ``TRIPEAKS_FUZZ_EXAMPLES`` sets the examples per
operation (default 50: about 800 requests, several seconds).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import response_schema_conformance  # noqa: E402

from tests.support.apps import live_server  # noqa: E402
from tests.support.pages import CODE, game_id_of  # noqa: E402
from tests.support.servers import LiveServer  # noqa: E402

EXAMPLES = int(os.environ.get("TRIPEAKS_FUZZ_EXAMPLES", "50"))


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    import requests

    data = tmp_path_factory.mktemp("fuzz")
    with live_server(data, {"TRIPEAKS_RATE_LIMITS": "false"}) as server:
        session = requests.Session()
        page = session.get(f"{server.url}/g/{CODE}", timeout=10)
        api = session.post(f"{server.url}/api/games", json={"code": CODE}, timeout=10).json()["id"]
        ids = {"page": game_id_of(page.text), "api": api, "cookie": session.cookies.get("tp_player") or ""}
        yield server, ids
        assert "Traceback" not in server.output(), server.output()


@pytest.fixture(scope="module")
def api_schema(fuzz_server: tuple[LiveServer, dict[str, str]]) -> Any:
    server, _ = fuzz_server
    return schemathesis.openapi.from_url(f"{server.url}/openapi.json")


def operations() -> list[tuple[str, str]]:
    """(method, path) of every operation the schema documents (read from the app itself)."""
    from app.web.main import create_app
    from app.web.settings import Settings

    document = create_app(Settings(secret_key="x" * 32, database_url="memory://")).openapi()
    return [(method.upper(), path) for path, ops in document["paths"].items() for method in ops]


# schemathesis' own pytest plugin (``schema.parametrize``) does not run on this pytest (it reads
# a node attribute pytest 9 no longer has); its Hypothesis strategies are used directly instead.
@pytest.mark.parametrize(("method", "path"), operations())
def test_the_api_never_answers_5xx_and_matches_its_schema(
    method: str, path: str, api_schema: Any, fuzz_server: tuple[LiveServer, dict[str, str]]
) -> None:
    server, ids = fuzz_server
    operation = api_schema[path][method]
    seen: list[int] = []

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=True, database=None)
    def fuzz(case: Any) -> None:
        game_id = case.path_parameters.get("game_id") if case.path_parameters else None
        if isinstance(game_id, str):
            # Now and then a real game, so that moves, refusals and undos are reached too.
            pick = len(game_id) % 3
            if pick:
                case.path_parameters["game_id"] = ids["page" if pick == 1 else "api"]
        cookies = {"tp_player": ids["cookie"]} if len(str(case.body)) % 2 else None
        response = case.call(base_url=server.url, cookies=cookies, timeout=10, allow_redirects=False)
        seen.append(response.status_code)
        case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])

    fuzz()
    assert seen and max(seen) < 500


def test_the_fuzzed_server_wrote_no_error_to_its_log(fuzz_server: tuple[LiveServer, dict[str, str]]) -> None:
    server, _ = fuzz_server
    log = Path(server.log).read_text(errors="replace")
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-3000:]
