"""Answers kept for a retry (the JSON API's ``Idempotency-Key``, docs/api.md).

A bot that lost the answer to a move sends it again with the same key: the first answer is
given again and the game moves once. Each answer is kept under its *scope* (the game's id) and
its key, with a fingerprint of the request (method, path, body), for :data:`ANSWER_LIFETIME_S`;
the idle cleanup forgets older ones. Kept in the store (memory, SQLite, PostgreSQL), so a retry
that reaches another server, or a restarted one, finds it.

:meth:`KeptAnswers.claim_answer` reserves a key in one atomic step (the first request to
claim it acts; any other finds the claim), :meth:`keep_answer` keeps the answer made,
:meth:`drop_answer` lets the key go when the action could not be made (a store error).
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

ANSWER_LIFETIME_S: Final = 24 * 3600.0
"""How long a kept answer is given again for the same key: a day."""


@dataclass(frozen=True, slots=True)
class KeptAnswer:
    """A key's claim: the request's fingerprint, and its answer once made (``None``: the first
    request with the key is still being answered)."""

    request: str
    status: int | None
    body: str | None


class KeptAnswers(abc.ABC):
    """The store's answers kept for a retry."""

    @abc.abstractmethod
    def claim_answer(self, scope: str, key: str, request: str) -> KeptAnswer | None:
        """Claim ``key`` for ``request`` in ``scope`` (``None``: claimed now, by this caller);
        else the claim already there (its own request's fingerprint, and its answer once kept)."""

    @abc.abstractmethod
    def keep_answer(self, scope: str, key: str, status: int, body: str) -> None:
        """Keep the answer to the claimed key."""

    @abc.abstractmethod
    def drop_answer(self, scope: str, key: str) -> None:
        """Let a claimed key go, unanswered (the action was not made)."""

    @abc.abstractmethod
    def forget_answers(self, before: float) -> int:
        """Forget the answers claimed before ``before`` (seconds since the epoch); how many."""


class MemoryAnswers(KeptAnswers):
    """:class:`KeptAnswers` in a dictionary (the memory store's)."""

    _clock: Callable[[], float]
    _answers: dict[tuple[str, str], tuple[float, KeptAnswer]]
    _answers_lock: threading.Lock

    def _answer_tables(self) -> None:
        self._answers = {}
        self._answers_lock = threading.Lock()

    def _kept(self) -> dict[tuple[str, str], tuple[float, KeptAnswer]]:
        return self._answers

    def _now(self) -> float:
        return self._clock()

    def claim_answer(self, scope: str, key: str, request: str) -> KeptAnswer | None:
        with self._answers_lock:
            kept = self._kept()
            found = kept.get((scope, key))
            if found is not None:
                return found[1]
            kept[(scope, key)] = (self._now(), KeptAnswer(request, None, None))
            return None

    def keep_answer(self, scope: str, key: str, status: int, body: str) -> None:
        with self._answers_lock:
            kept = self._kept()
            found = kept.get((scope, key))
            if found is not None:
                kept[(scope, key)] = (found[0], KeptAnswer(found[1].request, status, body))

    def drop_answer(self, scope: str, key: str) -> None:
        with self._answers_lock:
            self._kept().pop((scope, key), None)

    def forget_answers(self, before: float) -> int:
        with self._answers_lock:
            kept = self._kept()
            old = [where for where, (at, _) in kept.items() if at < before]
            for where in old:
                del kept[where]
            return len(old)
