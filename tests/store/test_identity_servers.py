"""A player on every device across two real servers on one database (issue 38), on SQLite and
PostgreSQL: a link code made on one server is redeemed on the other, and a device signed out on
one is a new player there at once and on the other within 30 s (each server reads the signed-out
devices every 10 s by default, ``TRIPEAKS_SIGN_OUT_REFRESH_S``)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.support.store import SQL_BACKENDS, start_server

WITHIN_S = 30.0


def name_of(client: httpx.Client) -> str | None:
    answer = client.get("/api/players/me/stats")
    assert answer.status_code == 200, answer.text
    return answer.json()["display_name"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_a_code_from_one_server_works_on_the_other_and_a_sign_out_reaches_both(
    database_url: str, tmp_path: Path
) -> None:
    with ThreadPoolExecutor(2) as pool:
        one, two = pool.map(lambda name: start_server(database_url, tmp_path / name), ("one", "two"))
    try:
        with httpx.Client(base_url=one.url) as ann, httpx.Client(base_url=two.url) as phone:
            assert ann.put("/api/players/me/name", json={"name": "Ann"}).status_code == 200
            code = ann.post("/api/players/me/link-codes").json()["code"]
            linked = phone.post("/api/link", json={"code": code})  # made on one, redeemed on two
            assert linked.status_code == 200 and linked.json()["display_name"] == "Ann"
            assert phone.post("/api/link", json={"code": code}).status_code == 404  # used, on any server
            with httpx.Client(base_url=one.url, cookies=phone.cookies) as phone_on_one:
                assert name_of(phone_on_one) == "Ann" and name_of(phone) == "Ann"
                device = next(
                    d["id"] for d in phone.get("/api/players/me/devices").json() if d["this_device"]
                )
                assert ann.delete(f"/api/players/me/devices/{device}").status_code == 204
                signed_out = time.monotonic()
                assert name_of(phone_on_one) is None  # on the server that signed it out: at once
            waited = 0.0
            while name_of(httpx.Client(base_url=two.url, cookies=phone.cookies)) == "Ann":
                waited = time.monotonic() - signed_out
                assert waited < WITHIN_S, "still signed in on the other server"
                time.sleep(0.5)  # waits for the other server's next look at the signed-out devices
            assert name_of(ann) == "Ann"
    finally:
        one.stop()
        two.stop()
