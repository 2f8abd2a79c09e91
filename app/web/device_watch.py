"""What each server knows of devices between requests, so that a move reads no database for it.

* **What is signed out**: the ids of signed-out devices, revoked personal tokens and deleted
  players, as three sets. Loaded whole when the server starts, then every
  :data:`REFRESH_EVERY_S` (``TRIPEAKS_SIGN_OUT_REFRESH_S``) one query reads what was added
  since the last look (with a minute's overlap: a sign-out committed late on another server
  is not missed). So a browser signed out on one server is a new player on every server
  within that time and a request; on this server, at once.
* **When each device was last written as seen**: a device's ``last_seen`` is written (in the
  background, after the request) at most once an hour per server, never per request.
* **Personal tokens** checked already (id → player and digest), so that a bot's requests do
  not each read the database; a revoked token leaves through the signed-out set.

The player cookie's middleware asks :meth:`DeviceWatch.refused` and :meth:`DeviceWatch.due`
on every request: two set look-ups and a dict look-up (bench/web.py: a move costs no more
server CPU, docs/performance.md).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Final

from anyio import to_thread

from app.store.base import GameStore, StoreUnavailable
from app.store.codes import token_matches, token_parts
from app.store.identity import DEVICE_SEEN_EVERY_S, SignedOut

log = logging.getLogger("tripeaks.devices")

REFRESH_EVERY_S: Final = 10.0
OVERLAP_S: Final = 60.0
"""Each refresh reads back this far before the last one began (clocks of servers a little
apart, transactions that commit late)."""
SEEN_KEPT_MOST: Final = 100_000
TOKENS_KEPT_MOST: Final = 10_000


class DeviceWatch:
    """One server's view of the signed-out ids, the devices' last writes and the tokens."""

    def __init__(
        self, refresh_every: float = REFRESH_EVERY_S, seen_every: float = DEVICE_SEEN_EVERY_S
    ) -> None:
        self.refresh_every = refresh_every
        self.seen_every = seen_every
        self.devices_out: set[str] = set()
        self.players_out: set[str] = set()
        self.tokens_out: set[str] = set()
        self.store: GameStore | None = None
        self.loaded = False
        self._since: float | None = None
        self._seen: dict[str, float] = {}
        self._tokens: dict[str, tuple[str, str]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # -- on every request -------------------------------------------------------------------

    def refused(self, player: str, device: str) -> bool:
        """Whether this cookie's device, or its player, is signed out."""
        return device in self.devices_out or player in self.players_out

    def due(self, device: str, now: float) -> bool:
        """Whether the device's ``last_seen`` is to be written now (then not again for an hour)."""
        if self._seen.get(device, 0.0) > now:
            return False
        if len(self._seen) >= SEEN_KEPT_MOST:
            self._seen.clear()
        self._seen[device] = now + self.seen_every
        return True

    def seen_now(self, device: str) -> None:
        """The device was just written (it became a player): not again for an hour."""
        self._seen[device] = time.monotonic() + self.seen_every

    def touch(self, device: str, player: str, kind: str) -> None:
        """Write the device as seen, after the request (in the background)."""
        if self.store is None:
            return
        task = asyncio.get_running_loop().create_task(self._touch(self.store, device, player, kind))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _touch(self, store: GameStore, device: str, player: str, kind: str) -> None:
        try:  # a write (on SQLite one waits for its sync): never on the event loop
            await to_thread.run_sync(store.touch_device, device, player, kind)
        except StoreUnavailable as error:  # the store is away: try again at the device's next request
            self._seen.pop(device, None)
            log.warning("could not write that a device was seen: %s", error)
        except Exception:
            self._seen.pop(device, None)
            log.exception("could not write that a device was seen")

    # -- what is signed out -----------------------------------------------------------------

    def sign_out(self, what: SignedOut, value: str) -> None:
        """Signed out on this server just now: refused here at once."""
        {SignedOut.DEVICE: self.devices_out, SignedOut.PLAYER: self.players_out,
         SignedOut.TOKEN: self.tokens_out}[what].add(value)  # fmt: skip
        if what is SignedOut.TOKEN:
            self._tokens.pop(value, None)

    def take(self, ids: list[str]) -> None:
        """Ids read from the store (``d:…``, ``t:…``, ``p:…``) into the sets."""
        kinds = {what.value: what for what in SignedOut}
        for text in ids:
            letter, _, value = text.partition(":")
            what = kinds.get(letter)
            if what is not None and value:
                self.sign_out(what, value)

    def refresh(self) -> None:
        """Read what was signed out since the last look (all of it the first time). Blocking."""
        store = self.store
        if store is None:
            return
        began = store.now()
        since = 0.0 if self._since is None else self._since - OVERLAP_S
        self.take(store.signed_out_since(since))
        self._since, self.loaded = began, True

    async def run(self, store: GameStore) -> None:
        """Refresh every :attr:`refresh_every` seconds for as long as the app runs (the lifespan
        made the first read before the first request)."""
        self.store = store
        while True:
            await asyncio.sleep(self.refresh_every)
            try:
                await to_thread.run_sync(self.refresh)
            except StoreUnavailable as error:  # the database is away: keep what is known, look again soon
                log.warning("could not read the signed-out devices (%s); trying again", error)
            except Exception:
                log.exception("could not read the signed-out devices; trying again")

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    # -- personal tokens --------------------------------------------------------------------

    async def token_player(self, text: str) -> tuple[str, str] | None:
        """(player, token id) of a valid personal token ``tpk_<id>.<secret>``, else ``None``."""
        parts = token_parts(text)
        store = self.store
        if parts is None or store is None or parts[0] in self.tokens_out:
            return None
        token_id, secret = parts
        found = self._tokens.get(token_id)
        if found is None:
            found = await store.aread(lambda: store.token(token_id))
            if found is None:
                return None
            if len(self._tokens) >= TOKENS_KEPT_MOST:
                self._tokens.clear()
            self._tokens[token_id] = found
        player, digest = found
        if not token_matches(secret, digest) or player in self.players_out:
            return None
        return player, token_id
