"""Answers kept for a retry (the API's Idempotency-Key, app/store/answers.py), on every backend:
one claim per key, the answer kept and given back, let go when unanswered, forgotten after a
day by the idle cleanup; on SQL, one claim even from two stores (two servers) at once."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import httpx
import pytest

from app.store.answers import ANSWER_LIFETIME_S, KeptAnswer
from app.store.base import GameStore
from app.store.database.schema import SCHEMA_VERSION
from tests.support.store import BACKENDS, SQL_BACKENDS, Clock, StoreFactory, running_server


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_a_key_is_claimed_once_and_its_answer_kept(store: GameStore, clock: Clock) -> None:
    assert store.claim_answer("game-1", "k", "req-a") is None  # claimed: this caller acts
    assert store.claim_answer("game-1", "k", "req-a") == KeptAnswer("req-a", None, None)  # being made
    store.keep_answer("game-1", "k", 200, '{"moves": 1}')
    assert store.claim_answer("game-1", "k", "req-b") == KeptAnswer("req-a", 200, '{"moves": 1}')
    assert store.claim_answer("game-2", "k", "req-b") is None  # keys are kept by game
    store.drop_answer("game-2", "k")
    assert store.claim_answer("game-2", "k", "req-c") is None  # let go: claimed afresh
    clock.advance(ANSWER_LIFETIME_S - 10)
    assert store.claim_answer("game-3", "k", "req-d") is None
    clock.advance(20)  # game-1's and game-2's answers are a day old; game-3's is not
    store.cleanup_idle(dt.timedelta(days=30))
    assert store.claim_answer("game-1", "k", "req-e") is None
    assert store.claim_answer("game-3", "k", "req-x") == KeptAnswer("req-d", None, None)


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_two_stores_claiming_one_key_at_once_claim_it_once(make_store: StoreFactory) -> None:
    stores = [make_store(), make_store()]
    assert SCHEMA_VERSION >= 9
    for round_ in range(10):
        claimed: list[KeptAnswer | None] = []
        start = threading.Barrier(len(stores))

        def claim(
            store: GameStore, key: str = f"key-{round_}", start: threading.Barrier = start,
            claimed: list[KeptAnswer | None] = claimed,
        ) -> None:
            start.wait()
            claimed.append(store.claim_answer("game", key, "req"))

        threads = [threading.Thread(target=claim, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(claimed, key=lambda c: c is not None) == [None, KeptAnswer("req", None, None)]


@pytest.mark.slow
@pytest.mark.parametrize("database_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True)
def test_a_retry_on_another_server_is_answered_from_the_first(database_url: str, tmp_path: Path) -> None:
    with (
        running_server(database_url, tmp_path) as a,
        running_server(database_url, tmp_path) as b,
        httpx.Client(base_url=a.url, timeout=10) as ca,
        httpx.Client(base_url=b.url, timeout=10) as cb,
    ):
        game_id = ca.post("/api/games", json={"code": "TP1-E-AAAAAAB"}).json()["id"]
        key = {"Idempotency-Key": "across"}
        first = ca.post(f"/api/games/{game_id}/draw", headers=key)
        again = cb.post(f"/api/games/{game_id}/draw", headers=key)
        assert first.status_code == again.status_code == 200 and again.json() == first.json()
        assert again.headers["idempotent-replayed"] == "true"
        assert cb.get(f"/api/games/{game_id}").json()["moves"] == 1
