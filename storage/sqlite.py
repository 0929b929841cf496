"""The SQLite backend (aiosqlite): one file, pragmas, migrations at open, transactions and a group commit.

One connection writes. ``transaction()`` holds an asyncio lock, so the interleaved tasks of many tables never
mix their statements into one another's transaction. A write outside a transaction (a move above all, a
message id, a setting) joins the next group commit: the writes of many tables that arrive while one commit
is under way share the next transaction (one fsync and one hop to the database thread for all of them),
each in a savepoint of its own, and each caller hears back only after the commit.

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
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from storage.db import Database, Row, StorageUnusable, Write
from storage.migrations import migrate_sqlite

_in_transaction: contextvars.ContextVar[SqliteDatabase | None] = contextvars.ContextVar(
    "sqlite_transaction", default=None
)

T = TypeVar("T")


class SqliteDatabase(Database):
    dialect = "sqlite"

    def __init__(
        self, conn: aiosqlite.Connection, path: str, reader: aiosqlite.Connection | None = None
    ) -> None:
        self._conn = conn
        self._reader = reader or conn
        self.path = self.where = path
        self._lock = asyncio.Lock()
        self._waiting: list[tuple[tuple[Write, ...], asyncio.Future[list[Any]]]] = []
        self._committer: asyncio.Task[None] | None = None
        self.batches = 0

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = "FULL") -> SqliteDatabase:
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
            await migrate_sqlite(conn)
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

    async def _write(self, *writes: Write) -> list[Any]:
        """Inside ``transaction()``: in it, in a savepoint (so a failed check undoes only these writes).
        Outside: in the next group commit, with whatever other writes are waiting; if the commit itself fails,
        every write in it fails."""
        if _in_transaction.get() is self:
            return await self._in_thread(_apply_one, writes)
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._waiting.append((writes, future))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_waiting())
        return await future

    async def _commit_waiting(self) -> None:
        await asyncio.sleep(0)  # the other handlers of this loop iteration join the first batch
        while self._waiting:
            async with self._lock:  # after any transaction() under way
                batch, self._waiting = self._waiting, []
                try:
                    outcomes: list[list[Any] | BaseException] = list(
                        await self._in_thread(_run_batch, [writes for writes, _ in batch])
                    )
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

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        inside = _in_transaction.get() is self
        return await self._in_thread(_fetch, sql, tuple(params), reader=not inside)

    async def changed(self, kind: str, key: int) -> None:
        """One process on a SQLite file: nobody else caches it."""

    async def integrity_check(self) -> str:
        row = await self.fetch_one("PRAGMA integrity_check")
        return str(row["integrity_check"]) if row else "no answer"


async def _configure(conn: aiosqlite.Connection, synchronous: str) -> None:
    """What every connection to the database is set to (a pragma holds for one connection only)."""
    conn.row_factory = aiosqlite.Row
    await conn.execute(f"PRAGMA synchronous = {synchronous}")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.execute("PRAGMA busy_timeout = 5000")


def _apply(conn: sqlite3.Connection, write: Write) -> Any:
    """One ``Write`` on a connection: its outcome, or the exception it stands for."""
    if write.rows is not None:
        changed = conn.executemany(write.sql, write.rows).rowcount
        write.check(changed)
        return changed
    cursor = conn.execute(write.sql, write.params)
    if write.returning:
        row = cursor.fetchone()
        cursor.fetchall()  # a RETURNING statement finishes (and counts its rows) once read to the end
        write.check(cursor.rowcount)
        return None if row is None else row[0]
    write.check(cursor.rowcount)
    return cursor.rowcount


def _fetch(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[Row]:
    cursor = conn.execute(sql, params)
    try:
        return cursor.fetchall()
    finally:
        cursor.close()


def _apply_one(conn: sqlite3.Connection, writes: tuple[Write, ...]) -> list[Any]:
    conn.execute("SAVEPOINT write")
    try:
        outcomes = [_apply(conn, w) for w in writes]
    except BaseException:
        conn.execute("ROLLBACK TO write")
        conn.execute("RELEASE write")
        raise
    conn.execute("RELEASE write")
    return outcomes


def _run_batch(conn: sqlite3.Connection, batch: list[tuple[Write, ...]]) -> list[list[Any] | Exception]:
    """One transaction for every write of ``batch``, each in a savepoint: one that raises is undone alone and
    its exception is its outcome. Raises if the transaction cannot begin or commit (nothing written then)."""
    outcomes: list[list[Any] | Exception] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for writes in batch:
            try:
                outcomes.append(_apply_one(conn, writes))
            except Exception as exc:
                outcomes.append(exc)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes
