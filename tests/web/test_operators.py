"""What an operator relies on, in the app: HEAD on every GET route, /healthz and /readyz without
cookies, request ids, Prometheus metrics (off by default, or behind a token), the settings."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pydantic import ValidationError

from app.engine import DRAW, Rules
from app.store import MemoryStore
from app.web.main import create_app
from app.web.ops.health import PROBE_KEPT_S
from app.web.settings import Settings
from tests.support.apps import app_routes, sample
from tests.support.deals import won_deal
from tests.support.pages import HX, game_id_of

CODE = "TP1-E-AAAAAAB"
SECRET = "operators-secret-" + "o" * 24


def make_client(tmp_path: Path, **overrides: Any) -> TestClient:
    values: dict[str, Any] = {"secret_key": SECRET, "database_url": "memory://", "data_dir": tmp_path,
                              "rate_limits": False, "idle_days": 0, **overrides}
    return TestClient(create_app(Settings(**values), store=MemoryStore()))


# -- HEAD ---------------------------------------------------------------------------------------


def test_every_get_route_answers_head_as_get_without_a_body(client: TestClient) -> None:
    game_id = game_id_of(client.get(f"/g/{CODE}").text)
    routes = [template for (method, template) in app_routes(client.app) if method in ("GET", "*")]
    assert {"/", "/g/{code}", "/healthz", "/readyz", "/daily", "/stats", "/static"} <= set(routes)
    for template in routes:
        path = template.replace("{code}", CODE).replace("{game_id}", game_id)
        if template == "/static":
            path = "/static/tripeaks.css"
        got = client.get(path, follow_redirects=False)
        head = client.head(path, follow_redirects=False)
        assert got.status_code != 405, path
        assert head.status_code == got.status_code, f"HEAD {path}: {head.status_code}, GET {got.status_code}"
        assert head.content == b"", path
        assert head.headers.get("content-type") == got.headers.get("content-type"), path
        if template in ("/static", "/healthz"):
            assert head.headers["content-length"] == got.headers["content-length"] == str(len(got.content))


def test_head_of_an_unknown_path_is_404_and_post_only_routes_still_refuse_head(client: TestClient) -> None:
    assert client.head("/no/such/page").status_code == 404
    assert client.head("/new").status_code == 200  # GET /new exists
    assert client.head("/games/x/draw").status_code == 405  # POST only


# -- health ---------------------------------------------------------------------------------------


def test_healthz_and_readyz_answer_without_setting_a_cookie(client: TestClient) -> None:
    for path in ("/healthz", "/readyz"):
        for method in (client.get, client.head):
            response = method(path)
            assert response.status_code == 200, path
            assert "set-cookie" not in response.headers, path
            assert response.headers["cache-control"] == "no-store"
    assert client.get("/healthz").text == "ok\n" and client.get("/readyz").text == "ready\n"
    assert not client.cookies  # nothing was set on the way
    assert "set-cookie" in client.get(f"/g/{CODE}").headers  # a page still makes a player


def test_readyz_tells_the_public_a_short_reason_and_the_operator_the_details(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A client is told only that the store cannot write; how the database is reached (its
    address, its port, its error) is in the log and on /metrics, behind the token."""
    detail = 'connection to server at "127.0.0.1", port 55433 failed: Connection refused'
    down = [True]

    class Broken(MemoryStore):
        def set_display_name(self, player: str, name: str | None) -> str | None:
            from app.store.base import StoreUnavailable

            if down[0]:
                raise StoreUnavailable(detail)
            return super().set_display_name(player, name)

    token = {"Authorization": "Bearer s3cret-scrape-token"}
    settings = Settings(secret_key=SECRET, database_url="memory://", data_dir=tmp_path,
                        metrics_token="s3cret-scrape-token")
    with caplog.at_level("WARNING", "tripeaks.health"), TestClient(create_app(settings, store=Broken())) as client:
        response = client.get("/readyz")
        assert response.status_code == 503 and response.headers["retry-after"] == "5"
        assert response.text == "not ready: the store cannot write\n"
        assert client.get("/healthz").status_code == 200  # alive all the same
        assert "55433" not in client.get("/metrics").text  # 401 without the token
        scraped = client.get("/metrics", headers=token).text
        assert not_ready(scraped)[f"the store cannot write: {detail}"] == 1
        assert detail in caplog.text
        down[0] = False
        time.sleep(PROBE_KEPT_S)  # the last probe's answer is kept this long: let it go by
        assert client.get("/readyz").text == "ready\n"
        scraped = client.get("/metrics", headers=token).text
        assert not_ready(scraped)[f"the store cannot write: {detail}"] == 0
        assert "ready again" in caplog.text


def not_ready(scraped: str) -> dict[str, float]:
    """The ``tripeaks_not_ready`` series of a scrape, by detail (read by prometheus_client's parser)."""
    return {
        sample.labels["detail"]: sample.value
        for family in text_string_to_metric_families(scraped)
        if family.name == "tripeaks_not_ready"
        for sample in family.samples
    }


# -- request ids --------------------------------------------------------------------------------


def test_a_sane_request_id_is_echoed_and_others_are_replaced(client: TestClient) -> None:
    assert client.get("/healthz", headers={"X-Request-ID": "edge-7f3a.42:9"}).headers["x-request-id"] == "edge-7f3a.42:9"
    made = {client.get("/healthz").headers["x-request-id"] for _ in range(3)}
    assert len(made) == 3 and all(re.fullmatch(r"[0-9a-f]{32}", rid) for rid in made)
    for bad in ("a" * 129, "two words", "<script>", ""):
        rid = client.get("/healthz", headers={"X-Request-ID": bad}).headers["x-request-id"]
        assert rid != bad and re.fullmatch(r"[0-9a-f]{32}", rid)
    # on answers the middlewares give themselves too: 413, 403
    assert "x-request-id" in client.post("/api/games", content=b"x" * 20000).headers
    refused = client.post("/api/games", json={}, headers={"Sec-Fetch-Site": "cross-site"})
    assert refused.status_code == 403 and "x-request-id" in refused.headers


# -- metrics ------------------------------------------------------------------------------------


def test_metrics_are_off_by_default(client: TestClient) -> None:
    assert client.get("/metrics").status_code == 404


def test_metrics_count_requests_by_route_template_games_dealt_and_won(tmp_path: Path) -> None:
    with make_client(tmp_path, metrics=True) as client:
        before = client.get("/metrics").text
        game_id = game_id_of(client.get(f"/g/{CODE}").text)
        for _ in range(3):
            assert client.post(f"/games/{game_id}/draw", headers=HX).status_code == 200
        code, line = won_deal(Rules.EASY)
        state = client.post("/api/games", json={"code": code.text()}).json()
        for action in line:
            if action == DRAW:
                client.post(f"/api/games/{state['id']}/draw")
            else:
                client.post(f"/api/games/{state['id']}/remove", json={"position": action})
        client.get("/no/such/page")
        after = client.get("/metrics")
        assert after.status_code == 200 and after.headers["content-type"].startswith("text/plain")
        text = after.text

        def grew(name: str, **labels: str) -> float:
            return sample(text, name, **labels) - sample(before, name, **labels)

        assert grew("tripeaks_requests_total", method="POST", route="/games/{game_id}/draw", status="200") == 3
        assert grew("tripeaks_request_duration_seconds_count", method="POST", route="/games/{game_id}/draw") == 3
        assert grew("tripeaks_requests_total", method="GET", route="/g/{code}", status="200") == 1
        assert grew("tripeaks_requests_total", method="GET", route="<unmatched>", status="404") == 1
        assert game_id not in text and CODE not in text  # templates, never raw paths
        assert grew("tripeaks_games_dealt_total", rules="easy") == 2
        assert grew("tripeaks_games_won_total", rules="easy") == 1
        assert "process_cpu_seconds_total" in text


def test_metrics_behind_a_token(tmp_path: Path) -> None:
    with make_client(tmp_path, metrics_token="s3cret-scrape-token") as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Basic s3cret-scrape-token"}).status_code == 401
        answer = client.get("/metrics", headers={"Authorization": "Bearer s3cret-scrape-token"})
        assert answer.status_code == 200 and "tripeaks_requests_total" in answer.text
        assert "set-cookie" not in answer.headers


def test_store_errors_and_solver_time_are_counted(tmp_path: Path) -> None:
    from app.web.ops import metrics

    with make_client(tmp_path, metrics=True) as client:
        before = client.get("/metrics").text
        metrics.store_error("request")
        with metrics.solver_timer("hint"):
            pass
        metrics.observe_solver(0.2, "outlook")
        text = client.get("/metrics").text
    assert sample(text, "tripeaks_store_errors_total", where="request") - sample(
        before, "tripeaks_store_errors_total", where="request") == 1
    assert sample(text, "tripeaks_solver_seconds_count", kind="hint") - sample(
        before, "tripeaks_solver_seconds_count", kind="hint") == 1
    assert sample(text, "tripeaks_solver_seconds_bucket", kind="outlook", le="0.25") - sample(
        before, "tripeaks_solver_seconds_bucket", kind="outlook", le="0.25") == 1


# -- settings -----------------------------------------------------------------------------------


def test_workers_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().workers == 1
    monkeypatch.setenv("TRIPEAKS_WORKERS", "4")
    assert Settings().workers == 4
    for bad in ("0", "-1", "many", "1000"):
        monkeypatch.setenv("TRIPEAKS_WORKERS", bad)
        with pytest.raises(ValidationError, match="workers"):
            Settings()


def test_secret_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "tripeaks_key"
    key_file.write_text("a-docker-secret-of-enough-length\n")
    monkeypatch.setenv("TRIPEAKS_SECRET_KEY_FILE", str(key_file))
    monkeypatch.setenv("TRIPEAKS_DATA_DIR", str(tmp_path / "data"))
    assert Settings().signing_key() == "a-docker-secret-of-enough-length"
    assert not (tmp_path / "data" / "secret_key").exists()  # no key of its own is made
    monkeypatch.setenv("TRIPEAKS_SECRET_KEY", "the-plain-setting-wins-over-the-file")
    assert Settings().signing_key() == "the-plain-setting-wins-over-the-file"
    monkeypatch.delenv("TRIPEAKS_SECRET_KEY")
    key_file.write_text("  \n")
    with pytest.raises(ValueError, match="is empty"):
        Settings().signing_key()
    monkeypatch.setenv("TRIPEAKS_SECRET_KEY_FILE", str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="missing"):
        Settings().signing_key()


def test_a_cookie_signed_with_the_key_file_is_read_by_another_process_with_the_same_file(
    tmp_path: Path,
) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("shared-by-two-servers-0123456789\n")
    settings = Settings(secret_key_file=key_file, database_url="memory://", data_dir=tmp_path)
    store = MemoryStore()
    with TestClient(create_app(settings, store=store)) as first:
        game_id = game_id_of(first.get(f"/g/{CODE}").text)
        with TestClient(create_app(settings, store=store), cookies=dict(first.cookies)) as second:
            page = second.get("/")
            assert game_id_of(page.text) == game_id and "set-cookie" not in page.headers


def test_tripeaks_serve_refuses_a_bad_worker_count_clearly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.cli import main

    monkeypatch.setenv("TRIPEAKS_WORKERS", "0")
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "a setting is wrong" in err and "workers" in err
    monkeypatch.delenv("TRIPEAKS_WORKERS")
    assert main(["serve", "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
