"""The database connection: pragmas, migrations at open, and transactions.

One connection writes. ``transaction()`` holds an asyncio lock, so the interleaved tasks of many tables never
mix their statements into one another's transaction; a nested ``transaction()`` in the same task joins the
outer one. A single write outside a transaction (a move above all, a message id, a setting) goes through
``batched()``: the writes of many tables that arrive while one commit is under way share the next transaction
(a group commit: one fsync and one hop to the database thread for all of them), each in a savepoint of its
own, and each caller hears back only after the commit.

Reads outside a transaction go to a second, read-only connection with its own thread: in WAL mode it sees
every committed write, never waits for the writer, and a read is one hop. Through the writer's lock, each
read (those the repositories do not cache: boards, results, replays, restore) cost five hops and queued
behind the writes and their fsyncs.
"""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
from pydantic import BaseModel

from storage.migrations import migrate

_in_transaction: contextvars.ContextVar[Database | None] = contextvars.ContextVar(
    "in_transaction", default=None
)

Row = aiosqlite.Row
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]


def record(model: type[M], row: Row) -> M:
    """A typed record from a row whose columns carry the record's field names (extra columns are ignored)."""
    return model.model_validate({key: row[key] for key in row.keys()})  # noqa: SIM118 (Row has no iteration by key)


class StorageUnusable(RuntimeError):
    """The database file cannot be opened or read: not a database, damaged, read-only, or unreachable."""

    def __init__(self, path: str | Path, problem: str) -> None:
        super().__init__(f"the database {path} cannot be used: {problem}")
        self.path = str(path)
        self.problem = problem


class Database:
    def __init__(
        self, conn: aiosqlite.Connection, path: str, reader: aiosqlite.Connection | None = None
    ) -> None:
        self._conn = conn
        self._reader = reader or conn
        self.path = path
        self._lock = asyncio.Lock()
        self._waiting: list[tuple[Work, asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None
        self.batches = 0  # transactions batched() committed (benchmarks read it)

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = "FULL") -> Database:
        """Open (creating if needed) and migrate. ``synchronous=FULL`` makes every commit survive a power
        loss, not only a crash of the process; NORMAL is faster and still safe against crashes in WAL mode."""
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError("synchronous must be FULL or NORMAL")
        if not Path(path).parent.is_dir():
            raise StorageUnusable(path, "its folder does not exist")
        try:
            conn = await aiosqlite.connect(str(path), isolation_level=None)
        except sqlite3.Error as exc:
            # aiosqlite stops its worker thread by a job that answers on this loop: let it, before the loop
            # may close (else the thread reports "Event loop is closed" on stderr).
            await asyncio.sleep(0.05)
            raise StorageUnusable(path, str(exc)) from None
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            await _configure(conn, synchronous)
            await migrate(conn)
            reader = await aiosqlite.connect(str(path), isolation_level=None)
        except sqlite3.Error as exc:
            await conn.close()
            raise StorageUnusable(path, str(exc)) from None
        except BaseException:
            await conn.close()
            raise
        try:
            await _configure(reader, synchronous)
            await reader.execute("PRAGMA query_only = ON")
        except BaseException:
            await reader.close()
            await conn.close()
            raise
        return cls(conn, str(path), reader)

    async def close(self) -> None:
        if self._reader is not self._conn:
            await self._reader.close()
        await self._conn.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Database]:
        """One atomic unit: everything inside commits together or not at all."""
        if _in_transaction.get() is self:
            yield self
            return
        async with self._lock:
            token = _in_transaction.set(self)
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self
            except BaseException:
                # SQLite may have rolled back already (a full disk, an I/O error): a second ROLLBACK would
                # fail and hide the real error.
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                raise
            else:
                await self._conn.execute("COMMIT")
            finally:
                _in_transaction.reset(token)

    async def batched(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` (plain sqlite3 calls, made in the database's thread) atomically, in one transaction
        with whatever other batched work is waiting; returns its result once that transaction committed.
        If ``work`` raises, only its own writes are undone and the exception comes back here; if the commit
        fails, every work in it fails. Inside ``transaction()`` it simply joins that transaction."""
        if _in_transaction.get() is self:
            return await self._in_thread(work)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append((work, future))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_waiting())
        return await future

    async def _commit_waiting(self) -> None:
        await asyncio.sleep(0)  # the other handlers of this loop iteration join the first batch
        while self._waiting:
            async with self._lock:  # after any transaction() under way
                batch, self._waiting = self._waiting, []
                try:
                    outcomes = await self._in_thread(_run_batch, [work for work, _ in batch])
                except asyncio.CancelledError:  # shutting down: whoever waits is told, not left hanging
                    for _, future in batch:
                        future.cancel()
                    raise
                except BaseException as exc:  # the commit itself failed: nothing of the batch was written
                    outcomes = [exc] * len(batch)
                self.batches += 1
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if isinstance(outcome, BaseException):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)

    async def _in_thread(self, fn: Callable[..., T], *args: Any, reader: bool = False) -> T:
        """``fn(sqlite3 connection, *args)`` in aiosqlite's thread: one hop, however many statements.
        aiosqlite has no public call for this; its ``_execute`` is what every one of its methods uses."""
        conn = self._reader if reader else self._conn

        def call() -> T:
            return fn(conn._conn, *args)

        return await conn._execute(call)  # type: ignore[no-untyped-call,no-any-return]

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one statement atomically (outside a transaction, in the next group commit); returns how many
        rows it changed."""
        return await self.batched(partial(_changed, sql, tuple(params)))

    async def insert(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one INSERT atomically; returns the new row's id."""
        return await self.batched(partial(_inserted, sql, tuple(params)))

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        await self.batched(partial(_many, sql, [tuple(r) for r in rows]))

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        """The rows of one query: inside a transaction, as that transaction sees them; outside, the last
        committed state, read without waiting for any writer."""
        inside = _in_transaction.get() is self
        return await self._in_thread(_fetch, sql, tuple(params), None, reader=not inside)

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        inside = _in_transaction.get() is self
        rows = await self._in_thread(_fetch, sql, tuple(params), 1, reader=not inside)
        return rows[0] if rows else None

    async def integrity_check(self) -> str:
        row = await self.fetch_one("PRAGMA integrity_check")
        return str(row[0]) if row else "no answer"


async def _configure(conn: aiosqlite.Connection, synchronous: str) -> None:
    """What every connection to the database is set to (a pragma holds for one connection only)."""
    conn.row_factory = aiosqlite.Row
    await conn.execute(f"PRAGMA synchronous = {synchronous}")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.execute("PRAGMA busy_timeout = 5000")


def _changed(sql: str, params: tuple[Any, ...], conn: sqlite3.Connection) -> int:
    return int(conn.execute(sql, params).rowcount)


def _inserted(sql: str, params: tuple[Any, ...], conn: sqlite3.Connection) -> int:
    cursor = conn.execute(sql, params)
    if cursor.lastrowid is None:
        raise sqlite3.OperationalError(f"no row was inserted by {sql.split()[0:3]}")
    return int(cursor.lastrowid)


def _many(sql: str, rows: list[tuple[Any, ...]], conn: sqlite3.Connection) -> None:
    conn.executemany(sql, rows)


def _fetch(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...], limit: int | None) -> list[Row]:
    cursor = conn.execute(sql, params)
    try:
        return cursor.fetchall() if limit is None else cursor.fetchmany(limit)
    finally:
        cursor.close()


def _run_batch(conn: sqlite3.Connection, works: list[Work]) -> list[object]:
    """One transaction for ``works``, each in a savepoint: a work that raises is undone alone and its
    exception is its outcome. Raises if the transaction cannot begin or commit (nothing written then)."""
    outcomes: list[object] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for work in works:
            conn.execute("SAVEPOINT work")
            try:
                outcomes.append(work(conn))
            except Exception as exc:
                conn.execute("ROLLBACK TO work")
                outcomes.append(exc)
            conn.execute("RELEASE work")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes
