from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.store import MemoryStore
from app.web.main import create_app
from app.web.settings import Settings


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def app_settings(tmp_path) -> Settings:  # type: ignore[no-untyped-def]
    return Settings(secret_key="test-secret-" + "x" * 20, database_url="memory://", data_dir=tmp_path)


@pytest.fixture
def client(app_settings: Settings, store: MemoryStore) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings, store=store)) as test_client:
        yield test_client


@pytest.fixture
def other_client(client: TestClient) -> Iterator[TestClient]:
    """A second browser (its own cookies) on the same server."""
    with TestClient(client.app) as second:
        yield second


HX = {"HX-Request": "true"}


def game_id_of(html: str) -> str:
    match = re.search(r'data-game-id="([^"]+)"', html)
    assert match, "page has no game"
    return match.group(1)


def text_of(html: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</', html, re.S)
    assert match, f"no #{element_id}"
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()
