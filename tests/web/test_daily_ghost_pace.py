"""The ghost's pace (issue 39) over real HTTP: its strip arrives on the stream at the times its
actions were played (the recorded offsets, on the player's game clock, which starts with their
first action), four times faster here (``ghost_pace``); the lead is told when it changes hands;
the finish says who was ahead and by how much."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.engine import DRAW
from app.store import MemoryStore
from app.web.main import create_app
from app.web.settings import Settings
from tests.support.daily import KEY, MORNING, blocked_line, won_line
from tests.support.pages import game_id_of
from tests.support.races import Stream
from tests.support.servers import server_in_thread
from tests.support.store import Clock

DAY = "/daily/2026-12-03"
PACE = 4.0
LATE_S = 0.75
"""How late an event of the ghost's may arrive: its look's timer, and the machine's load."""
STEPS = (1.2, 0.4, 2.0, 0.6)
"""Bob's intervals between actions, in turn (seconds on the clock moved by hand)."""
RUN = re.compile(r'id="ghost-run" data-n="(\d*)" data-after="([\d.]*)"')


SCORE = re.compile(r'id="ghost-(you|run)".*?class="racer-score">(\d+)<', re.S)
NEWS = re.compile(r'id="ghost-news" hx-swap-oob="innerHTML">([^<]*)<')


def lead_of(data: str) -> tuple[str, str]:
    """Who leads in an event's strip (``none`` before Ann's first action), and its news."""
    scores = dict(SCORE.findall(data))
    news = NEWS.search(data)
    if "ghost-finish" in data or "The run starts with your first move." in data:
        return "none", ""
    you, run = int(scores["you"]), int(scores["run"])
    return ("you" if you > run else "run" if run > you else "level"), news.group(1) if news else ""


class Moving(Clock):
    """Moved by hand while the runs are recorded, then running on in real time."""

    def __init__(self, now: float) -> None:
        super().__init__(now)
        self.since: float | None = None

    def __call__(self) -> float:
        return self.now + (time.monotonic() - self.since if self.since is not None else 0.0)


@pytest.fixture
def moving(monkeypatch: pytest.MonkeyPatch) -> Moving:
    clock = Moving(MORNING)
    monkeypatch.setattr("app.web.presentation.clock.now", clock)
    return clock


@pytest.fixture
def url(moving: Moving, tmp_path: Path) -> Iterator[str]:
    settings = Settings(secret_key=KEY, database_url="memory://", data_dir=tmp_path, ghost_pace=PACE, rate_limits=False)
    with server_in_thread(create_app(settings, store=MemoryStore(clock=moving)), graceful_s=1) as running:
        yield running


def act(client: httpx.Client, game_id: str, position: int) -> None:
    if position == DRAW:
        answer = client.post(f"/api/games/{game_id}/draw")
    else:
        answer = client.post(f"/api/games/{game_id}/remove", json={"position": position})
    assert answer.status_code == 200, answer.text[:200]


def test_the_ghost_moves_at_its_recorded_pace_and_the_finish_says_by_how_much(url: str, moving: Moving) -> None:
    bob, ann = httpx.Client(base_url=url, timeout=10), httpx.Client(base_url=url, timeout=10)
    line = won_line()[:12]  # Bob's attempt: twelve actions, then ended as it stood
    bob_game = game_id_of(bob.get(DAY).text)
    offsets, at = [], 0.0
    for i, position in enumerate(line):
        if i:
            moving.advance(STEPS[i % len(STEPS)])
            at += STEPS[i % len(STEPS)]
        act(bob, bob_game, position)
        offsets.append(at)
    assert bob.post(DAY, data={"end_attempt": "true"}, follow_redirects=False).status_code == 303
    ann_game = game_id_of(ann.get(DAY).text)
    moving.advance(1.0)
    act(ann, ann_game, DRAW)  # Ann's attempt: one draw, then ended as it stands
    assert ann.post(DAY, data={"end_attempt": "true"}, follow_redirects=False).status_code == 303
    daily = ann.get("/api/daily").json()
    ref = next(row["run"] for row in daily["leaderboard"] if row["run"] != daily["you"]["run"])
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", ref) and bob_game not in ref

    assert ann.post(f"{DAY}/runs/{ref}", follow_redirects=False).status_code == 303
    practice = game_id_of(ann.get(f"{DAY}/runs/{ref}").text)
    moving.since = time.monotonic()
    stream = Stream(ann, f"{DAY}/runs/{ref}/events").open()
    try:
        race_the_run(stream, ann, bob, practice, line, offsets, bob_game)
    finally:
        stream.close()
        ann.close()  # the stream's connection with it
        bob.close()


def race_the_run(
    stream: Stream, ann: httpx.Client, bob: httpx.Client, practice: str, line: list[int], offsets: list[float], bob_game: str
) -> None:
    assert stream.status == 200
    waiting = stream.next()
    assert RUN.search(waiting.data).groups() == ("", "")  # type: ignore[union-attr]
    assert "The run starts with your first move." in waiting.data
    time.sleep(0.6)
    assert stream.events.empty()  # the ghost waits for Ann's first action
    started = time.monotonic()
    act(ann, practice, blocked_line()[0])  # her first action: the ghost's clock starts
    seen: dict[int, tuple[float, float]] = {}
    last = len(line) - 1
    while last not in seen:
        event = stream.next(timeout=10)
        found = RUN.search(event.data)
        assert found is not None
        if found.group(1):
            seen.setdefault(int(found.group(1)), (float(found.group(2)), event.at - started))
    # Every action of Bob's, at its recorded offset, sent at that time (a quarter of it here);
    # those due before the stream saw Ann's first action (it looks every 0.25 s, later on a
    # loaded machine: a suite on both cores beside Chromium) come as one. LATE_S is that
    # allowance: far under what a wrong pace would be late by (the whole pace is 4x).
    assert sorted(seen) == sorted(seen, key=lambda n: seen[n][1])
    assert {n for n in range(len(line)) if offsets[n] / PACE >= 0.25 + LATE_S} <= set(seen)
    for n, (after, arrived) in seen.items():
        assert after == pytest.approx(offsets[n])
        assert after / PACE - 0.05 <= arrived <= after / PACE + LATE_S, (n, after, arrived)
    # The lead is told (politely) when it changes hands, never at every action
    told = [lead_of(e.data) for e in stream.seen if 'id="ghost-news"' in e.data]
    leaders = [lead_of(e.data)[0] for e in stream.seen if lead_of(e.data)[0] != "none"]
    changes = [who for i, who in enumerate(leaders) if i == 0 or leaders[i - 1] != who]
    assert [who for who, _ in told] == changes and len(told) < len(stream.seen) - 2
    assert all(text.startswith("You lead" if who == "you" else "Level" if who == "level" else "Anonymous") for who, text in told)
    # Ann ends her game: the finish, once, with the difference
    for position in blocked_line()[1:]:
        act(ann, practice, position)
    bob_score = bob.get("/api/daily").json()["you"]["score"]
    ann_score = ann.get(f"/api/games/{practice}").json()["score"]
    finish = html.unescape(stream.until("ghost-finish").data)
    difference = abs(ann_score - bob_score)
    if ann_score > bob_score:
        assert f"You beat Anonymous's run by {difference} point" in finish
    else:
        assert f"Anonymous's run beat you by {difference} point" in finish
    assert 'id="ghost-news"' in finish and bob_game not in "".join(e.data for e in stream.seen)
