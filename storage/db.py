"""What the repositories see of a database, whichever backend holds it: transactions, writes, reads.

Two backends: SQLite (``storage.sqlite``, the default: one file, nothing to run) and PostgreSQL
(``storage.postgres``, ``DATABASE_URL=postgresql://…``, for several bot processes). The repositories write
one SQL for both: ``?`` placeholders, ``ON CONFLICT``, ``RETURNING``, and types both read alike; what truly
differs (the schema's types, how a version is kept, how statements reach the server) lives in the backend
modules and in ``storage.migrations``.

A write is a ``Write``: a statement (or one statement over many rows), what it must change, and what to raise
if it does not. ``Database.write`` applies several atomically, in one round trip where the backend allows, so
that a move (its log line, its snapshot and the table's deadline) costs one trip and one commit.
"""

from __future__ import annotations

import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import psycopg
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
# Records a repository keeps in memory (users, chats): the ones seen lately; memory stays bounded however many
# people and groups the bot has ever seen.
CACHED = 5000

# What a failed read or write raises, whichever the backend (a full disk, an I/O error, a lost connection):
# the caller keeps its state and tells the player that nothing was saved.
DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, psycopg.Error, OSError)


class Row(Protocol):
    """A row by column name (sqlite3.Row and psycopg's dict rows both are)."""

    def __getitem__(self, key: str, /) -> Any: ...

    def keys(self) -> Iterable[str]: ...


def record(model: type[M], row: Row) -> M:
    """A typed record from a row whose columns carry the record's field names (extra columns are ignored)."""
    return model.model_validate({key: row[key] for key in row.keys()})  # noqa: SIM118 (sqlite3.Row iterates values)


class StorageUnusable(RuntimeError):
    """The database cannot be opened or read: not a database, damaged, read-only, or unreachable."""

    def __init__(self, where: str | Path, problem: str) -> None:
        super().__init__(f"the database {where} cannot be used: {problem}")
        self.path = str(where)
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Write:
    """One statement of an atomic write. ``rows``: run once per row of parameters instead of once with
    ``params``. ``returning``: the statement ends in ``RETURNING <one column>``, and its value (or None when
    no row came back) is the outcome; otherwise the outcome is how many rows changed. ``expect``: the rows it
    must change, else ``otherwise`` is raised and nothing of the whole write stays."""

    sql: str
    params: tuple[Any, ...] = ()
    rows: tuple[tuple[Any, ...], ...] | None = None
    returning: bool = False
    expect: int | None = None
    otherwise: Exception | None = None

    def check(self, changed: int) -> None:
        if self.expect is not None and changed != self.expect:
            raise self.otherwise or RuntimeError(
                f"{self.sql.split()[0]} changed {changed} rows, not {self.expect}"
            )


class Database(ABC):
    """One database, shared by the repositories of a process."""

    dialect: str  # "sqlite" or "postgresql"
    where: str  # for messages: the file, or the server and database (never a password)
    batches: int  # transactions the writes outside a transaction committed (benchmarks read it)

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Database]:
        """One atomic unit: everything inside commits together or not at all; a nested ``transaction()`` in
        the same task joins the outer one."""

    # Told how long each write took and whether it failed (the bot's metrics); None: nobody asks.
    on_write: Callable[[float, bool], None] | None = None

    async def write(self, *writes: Write) -> list[Any]:
        """Apply ``writes`` atomically and return each one's outcome (see ``Write``) once committed. Inside
        ``transaction()`` they join it. If one raises, none of them stays."""
        if self.on_write is None:
            return await self._write(*writes)
        began, failed = time.perf_counter(), True
        try:
            outcomes = await self._write(*writes)
            failed = False
            return outcomes
        finally:
            self.on_write(time.perf_counter() - began, failed)

    @abstractmethod
    async def _write(self, *writes: Write) -> list[Any]: ...

    @abstractmethod
    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> Sequence[Row]:
        """The rows of one query: inside a transaction, as that transaction sees them; outside, the last
        committed state, read without waiting for any writer."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def integrity_check(self) -> str:
        """ "ok", or what the database found wrong with itself."""

    @abstractmethod
    async def changed(self, kind: str, key: int) -> None:
        """A cached record changed: tell the other processes on this database."""

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one statement atomically; returns how many rows it changed."""
        changed: int = (await self.write(Write(sql, tuple(params))))[0]
        return changed

    async def insert(self, sql: str, params: Iterable[Any] = ()) -> int | None:
        """Run one ``INSERT … RETURNING id``; returns the new row's id, or None if it inserted nothing (``ON
        CONFLICT DO NOTHING``)."""
        found: int | None = (await self.write(Write(sql, tuple(params), returning=True)))[0]
        return found

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        await self.write(Write(sql, rows=tuple(tuple(r) for r in rows)))


def is_postgres(where: str | Path) -> bool:
    """A PostgreSQL URL (anything else is a SQLite file)."""
    return isinstance(where, str) and where.startswith(("postgresql://", "postgres://"))
