"""The web fixtures (an app on a memory store, TestClient browsers) shared with tests/web."""

from tests.web.conftest import app_settings, client, other_client, store

__all__ = ["app_settings", "client", "other_client", "store"]
