"""The chaos soak's race streams held at their bounds, on every server, all along (issue 41).

Each server gets a race room of its own (a lobby nobody plays) and, behind the "trusted proxy"
the soak runs its servers behind, two addresses:

* one holds :data:`PER_ADDRESS` streams, each opened with no cookie (each a new player: the
  attack of the issue), the server's bound for one address;
* the other holds :data:`PER_PLAYER` streams of one player (one cookie), the bound for a player.

Each stream is opened again whenever it ends (:class:`StreamWatcher`), as a page would; its
ends are classified as the racers' are (only in an outage). Now and then one more stream of
each is asked for: 429 wanted while the held ones are all open (a 200 then, outside an outage,
is a bound not kept). The players' moves go on meanwhile: the soak reports their answers' time.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Final

import httpx

from tests.support.soak_players import StreamWatcher

if TYPE_CHECKING:
    from tests.support.soak import Soak

PER_ADDRESS: Final = 3
PER_PLAYER: Final = 2
ENV: Final = {
    "TRIPEAKS_TRUST_PROXY": "true",
    "TRIPEAKS_FORWARDED_ALLOW_IPS": "127.0.0.1",
    "TRIPEAKS_RACE_STREAMS_PER_ADDRESS": str(PER_ADDRESS),
    "TRIPEAKS_RACE_STREAMS_PER_PLAYER": str(PER_PLAYER),
}
"""What the servers run with when the soak holds streams at their bounds."""
PROBE_EVERY_S: Final = 2.0


def forwarded(server_index: int, which: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"198.51.100.{10 * server_index + which}"}


class HeldStreams:
    """The streams held at their bounds on one server, and the probes beyond them."""

    def __init__(self, soak: Soak, index: int) -> None:
        self.soak, self.server = soak, soak.urls[index]
        made = httpx.post(f"{self.server}/api/races", json={"code": "TP1-E-AAAAAAB"}, timeout=30)
        assert made.status_code == 201, made.text
        self.url = f"{self.server}/races/{made.json()['id']}/events"
        self.by_address = forwarded(index, 1)
        self.by_player = forwarded(index, 2)
        with httpx.Client(timeout=30) as client:  # the one player of the second address
            client.get(f"{self.server}/healthz")
            client.get(f"{self.server}/api/daily", headers=self.by_player)  # a signed cookie
            self.cookies = httpx.Cookies(client.cookies)
        self.watchers = [StreamWatcher(soak, self.server, self.url, headers=self.by_address, fresh=True)
                         for _ in range(PER_ADDRESS)]
        self.watchers += [StreamWatcher(soak, self.server, self.url, headers=self.by_player, cookies=self.cookies)
                          for _ in range(PER_PLAYER)]
        self.refused: dict[str, int] = {"address": 0, "player": 0}
        self.problems: list[str] = []

    def threads(self) -> list[threading.Thread]:
        return [threading.Thread(target=w.run, daemon=True) for w in self.watchers] + [
            threading.Thread(target=self.probe, daemon=True)
        ]

    def probe(self) -> None:
        """Now and then, one stream more than each bound."""
        held = {"address": self.watchers[:PER_ADDRESS], "player": self.watchers[PER_ADDRESS:]}
        timeout = httpx.Timeout(10, read=40)
        with httpx.Client(timeout=timeout) as anyone, httpx.Client(timeout=timeout, cookies=self.cookies) as player:
            probed = dict.fromkeys(held, 0.0)
            # Looked at often, probed at most every PROBE_EVERY_S: in a short soak with kills the
            # moments when every held stream is open are short, and a probe must fall in one.
            while not self.soak.stopping.wait(0.1):
                for bound, watchers in held.items():
                    if time.monotonic() - probed[bound] < PROBE_EVERY_S:
                        continue
                    if not all(w.connected for w in watchers):
                        continue  # reopening after an outage: the bound is not full now
                    start = probed[bound] = time.monotonic()
                    anyone.cookies.clear()  # no cookie: a new player
                    client, headers = (anyone, self.by_address) if bound == "address" else (player, self.by_player)
                    try:
                        with client.stream("GET", self.url, headers=headers) as answer:
                            status = answer.status_code
                    except httpx.HTTPError:
                        continue
                    if status == 429:
                        self.refused[bound] += 1
                    elif status == 200 and all(w.connected for w in watchers) \
                            and self.soak.outage_of(self.server, start, time.monotonic()) is None:
                        self.problems.append(f"{self.server}: a stream beyond the {bound}'s bound was let in")

    def verify(self) -> list[str]:
        found = list(self.problems)
        for watcher in self.watchers:
            found += watcher.problems()
        found += [f"{self.server}: the {bound}'s bound was never seen kept" for bound, n in self.refused.items() if not n]
        return found
