"""The answers kept for a retry (:mod:`app.store.answers`) in SQL, for both dialects.

A claim is one ``INSERT … ON CONFLICT DO NOTHING`` on the key (the table's primary key): of two
requests with one key, on one server or two, exactly one inserts its row; the other reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

from sqlalchemy import bindparam, delete, select, update

from app.store.answers import KeptAnswer, KeptAnswers
from app.store.database.queries import Db, insert_ignore, run
from app.store.database.schema import answers

T = TypeVar("T")

_WHERE: Final = (answers.c.scope == bindparam("b_scope")) & (answers.c.key == bindparam("b_key"))
CLAIM: Final = {
    dialect: statement.returning(answers.c.scope)
    for dialect, statement in insert_ignore(
        answers,
        scope=bindparam("b_scope"),
        key=bindparam("b_key"),
        request=bindparam("b_request"),
        status=None,
        body=None,
        created=bindparam("b_now"),
    ).items()
}
"""``INSERT … ON CONFLICT DO NOTHING RETURNING``: a row when this claim inserted it (the
drivers' rowcount is not that on PostgreSQL)."""
CLAIMED: Final = select(answers.c.request, answers.c.status, answers.c.body).where(_WHERE)
KEEP: Final = update(answers).where(_WHERE).values(status=bindparam("b_status"), body=bindparam("b_body"))
DROP: Final = delete(answers).where(_WHERE)
FORGET: Final = delete(answers).where(answers.c.created < bindparam("b_before"))


class SqlAnswers(KeptAnswers):
    """The kept answers of :class:`app.store.database.sql.SqlStore`."""

    _clock: Callable[[], float]

    def _write(self, job: Callable[[Db], T]) -> T:
        raise NotImplementedError  # pragma: no cover - SqlStore's

    def claim_answer(self, scope: str, key: str, request: str) -> KeptAnswer | None:
        where = {"b_scope": scope, "b_key": key}

        def job(db: Db) -> KeptAnswer | None:
            if run(db, CLAIM, {**where, "b_request": request, "b_now": self._clock()}).fetchone() is not None:
                return None
            row = run(db, CLAIMED, where).fetchone()
            return None if row is None else KeptAnswer(row[0], row[1], row[2])

        return self._write(job)

    def keep_answer(self, scope: str, key: str, status: int, body: str) -> None:
        values = {"b_scope": scope, "b_key": key, "b_status": status, "b_body": body}
        self._write(lambda db: run(db, KEEP, values))

    def drop_answer(self, scope: str, key: str) -> None:
        self._write(lambda db: run(db, DROP, {"b_scope": scope, "b_key": key}))

    def forget_answers(self, before: float) -> int:
        return int(self._write(lambda db: run(db, FORGET, {"b_before": before}).rowcount))
