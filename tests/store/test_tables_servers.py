"""A table of friends across two real servers on one PostgreSQL schema (issue 39): a member's
daily result written through one server is on the table's board read through the other within
1 s, and "Race the table" made on one reaches a member's table-page stream on the other
(PostgreSQL's NOTIFY, the races' signals)."""

from __future__ import annotations

import datetime as dt
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.support.pages import HX, game_id_of
from tests.support.races import Stream
from tests.support.store import start_server

WITHIN_S = 1.0


def todays_row(client: httpx.Client, table_id: str, member: str) -> dict[str, object]:
    answer = client.get(f"/api/tables/{table_id}")
    assert answer.status_code == 200, answer.text
    return next(row for row in answer.json()["today"] if row["member"] == member)  # type: ignore[no-any-return]


@pytest.mark.parametrize("database_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True)
def test_a_result_and_a_race_offer_cross_from_one_server_to_the_other(database_url: str, tmp_path: Path) -> None:
    with ThreadPoolExecutor(2) as pool:
        one, two = pool.map(lambda name: start_server(database_url, tmp_path / name), ("one", "two"))
    try:
        with httpx.Client(base_url=one.url) as ann, httpx.Client(base_url=one.url) as bob:
            table = ann.post("/api/tables", json={"name": "Friday club"}).json()
            token = table["invite_url"].rsplit("/", 1)[1]
            assert bob.post("/api/tables/join", json={"token": token}).status_code == 200
            with httpx.Client(base_url=two.url, cookies=ann.cookies) as ann_on_two, httpx.Client(
                base_url=two.url, cookies=bob.cookies
            ) as bob_on_two:
                members = ann_on_two.get(f"/api/tables/{table['id']}").json()["members"]
                bobs = next(m["id"] for m in members if not m["maker"])
                assert todays_row(ann_on_two, table["id"], bobs)["played"] is False
                # Bob's daily through server one: begun, a card drawn, ended by him.
                today = dt.datetime.now(dt.UTC).date().isoformat()
                page = bob.post(f"/daily/{today}", follow_redirects=True)
                assert page.status_code == 200, page.text[:300]
                assert bob.post(f"/games/{game_id_of(page.text)}/draw", headers=HX).status_code == 200
                ended = bob.post(f"/daily/{today}", data={"end_attempt": "true"}, follow_redirects=False)
                assert ended.status_code == 303
                written = time.monotonic()
                while not todays_row(ann_on_two, table["id"], bobs)["played"]:
                    assert time.monotonic() - written < WITHIN_S, "not on the other server's board"
                    time.sleep(0.05)  # the other server's next answer
                # "Race the table" on server one reaches Bob's table page's stream on server two.
                stream = Stream(bob_on_two, f"/tables/{table['id']}/events").open()
                try:
                    assert stream.status == 200
                    made = ann.post(f"/tables/{table['id']}/race", data={"rules": "easy"}, follow_redirects=False)
                    assert made.status_code == 303, made.text[:300]
                    race_id = made.headers["location"].rsplit("/", 1)[1]
                    offer = stream.until(f"/races/{race_id}/join", timeout=10)
                    assert offer.id == race_id
                finally:
                    stream.close()
    finally:
        one.stop()
        two.stop()
