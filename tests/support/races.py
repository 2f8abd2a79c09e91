"""Helpers for the race tests: a reader of a race's event stream over real HTTP, the check that
a stream never names a card, and a quick countdown."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import pytest

from tests.support.servers import ROOT

CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])(10|[2-9AJQK])[SHDC](?![A-Za-z0-9])")
SUITS = "♠♥♦♣"


@dataclass
class Event:
    id: str | None
    data: str
    at: float


@dataclass
class Stream:
    """An open ``/races/{id}/events``: its events arrive on a queue, read by a thread."""

    client: httpx.Client
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    events: queue.Queue[Event | BaseException | None] = field(default_factory=queue.Queue)
    status: int | None = None
    response_headers: httpx.Headers | None = None
    raw: list[str] = field(default_factory=list)
    seen: list[Event] = field(default_factory=list)
    """Every event that arrived, in order (``next`` and ``until`` take them off the queue)."""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def open(self) -> Stream:
        ready = threading.Event()

        def read() -> None:
            try:
                with self.client.stream("GET", self.url, headers=self.headers, timeout=httpx.Timeout(5, read=40)) as answer:
                    self.status, self.response_headers = answer.status_code, answer.headers
                    ready.set()
                    if answer.status_code != 200:
                        answer.read()
                        self.events.put(None)
                        return
                    event_id, data = None, []
                    for line in answer.iter_lines():
                        self.raw.append(line)
                        if self._stop.is_set():
                            return
                        if not line:
                            if data:
                                self.seen.append(Event(event_id, "\n".join(data), time.monotonic()))
                                self.events.put(self.seen[-1])
                            data = []
                            continue
                        name, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if name == "data":
                            data.append(value)
                        elif name == "id":
                            event_id = value
                    self.events.put(None)
            except BaseException as error:  # the reader's end, for the test to see
                ready.set()
                self.events.put(error)

        self._thread = threading.Thread(target=read, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def next(self, timeout: float = 10) -> Event:
        got = self.events.get(timeout=timeout)
        if isinstance(got, BaseException):
            raise got
        if got is None:
            raise EOFError("the stream ended")
        return got

    def until(self, found: str | re.Pattern[str], timeout: float = 10) -> Event:
        """The first event whose data contains ``found``."""
        deadline = time.monotonic() + timeout
        while True:
            event = self.next(max(0.05, deadline - time.monotonic()))
            if (found.search(event.data) if isinstance(found, re.Pattern) else found in event.data):
                return event

    def close(self) -> None:
        self._stop.set()


def deal_cards(code: str) -> list[str]:
    """Every card of the deal, as ``tripeaks deal CODE --json`` knows them."""
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "deal", code, "--json"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    deal = json.loads(out.stdout)
    return [*deal["tableau"], *([deal["waste"]] if deal.get("waste") else []), *deal["stock"]]


def names_no_card(text: str, race_id: str, cards: list[str]) -> list[str]:
    """What in ``text`` names a card of the deal: its text form (``QH``), a suit symbol."""
    text = text.replace(race_id, "")
    found = [m.group(0) for m in CARD_TEXT.finditer(text) if m.group(0) in cards]
    found += [s for s in SUITS if s in text]
    return found


def quick_countdown(seconds: float) -> Callable[[pytest.MonkeyPatch], None]:
    """An autouse fixture for a test module: the memory store's race countdown is ``seconds``
    (``quick = quick_countdown(0.2)`` at the module's top level)."""

    @pytest.fixture(autouse=True)
    def countdown(monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr("app.store.race_memory.COUNTDOWN_S", seconds)

    return countdown
