"""The PostgreSQL backend (psycopg 3, async, with its connection pool): for several bot processes sharing
one database (``DATABASE_URL=postgresql://user:password@host/dbname``).

Why psycopg 3 rather than asyncpg: it is fully typed (the project runs mypy in strict mode), it speaks libpq
(so every ``PG*`` environment variable, service file and TLS setting an operator already uses works), and
its ``%s`` parameters are a one-to-one rewrite of the repositories' ``?``. asyncpg is faster per query, but a
move costs a handful of statements either way and the server's fsync dominates.

Every connection is in autocommit mode: a read outside a transaction sees the last committed state; a
``transaction()`` takes a connection from the pool for its whole length; a write outside one is a short
transaction of its own (PostgreSQL commits concurrent transactions together by itself, so there is no
group commit to build here).
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from storage.db import Database, Row, StorageUnusable, Write
from storage.migrations import migrate_postgres

Connection = psycopg.AsyncConnection[dict[str, Any]]
CHANGES = "durak_changes"  # "user:<id>" or "chat:<id>": a cached record changed in some process

_in_transaction: contextvars.ContextVar[tuple[PostgresDatabase, Connection] | None] = contextvars.ContextVar(
    "postgres_transaction", default=None
)


class PostgresDatabase(Database):
    dialect = "postgresql"

    def __init__(self, pool: AsyncConnectionPool[Connection], where: str, url: str) -> None:
        self._pool = pool
        self._url = url
        self.where = where
        self.batches = 0

    @classmethod
    async def open(cls, url: str, *, connections: int = 10) -> PostgresDatabase:
        """Connect (the pool keeps up to ``connections``) and migrate."""
        where = describe_server(url)
        pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=connections,
            open=False,
            kwargs={"autocommit": True, "row_factory": dict_row},
        )
        try:
            await pool.open(wait=True, timeout=10)
        except Exception as exc:
            await pool.close()
            raise StorageUnusable(where, f"cannot connect: {exc}") from None
        try:
            async with pool.connection() as conn:
                await migrate_postgres(conn)
        except psycopg.Error as exc:
            await pool.close()
            raise StorageUnusable(where, str(exc)) from None
        except BaseException:
            await pool.close()
            raise
        return cls(pool, where, url)

    async def close(self) -> None:
        await self._pool.close()

    def _current(self) -> Connection | None:
        found = _in_transaction.get()
        return found[1] if found is not None and found[0] is self else None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Database]:
        if self._current() is not None:
            yield self
            return
        async with self._pool.connection() as conn, conn.transaction():
            token = _in_transaction.set((self, conn))
            try:
                yield self
            finally:
                _in_transaction.reset(token)

    async def _write(self, *writes: Write) -> list[Any]:
        conn = self._current()
        if conn is not None:
            async with conn.transaction():  # a savepoint: a failed check undoes only these writes
                return [await _apply(conn, w) for w in writes]
        async with self._pool.connection() as conn, conn.transaction():
            outcomes = [await _apply(conn, w) for w in writes]
        self.batches += 1
        return outcomes

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        conn = self._current()
        if conn is not None:
            return await _fetch(conn, sql, tuple(params))
        async with self._pool.connection() as conn:
            return await _fetch(conn, sql, tuple(params))

    async def changed(self, kind: str, key: int) -> None:
        await self.notify(CHANGES, f"{kind}:{key}")

    async def notify(self, channel: str, payload: str) -> None:
        """NOTIFY ``channel`` (delivered when the transaction under way, if any, commits)."""
        await self.execute("SELECT pg_notify(?, ?)", (channel, payload))

    async def listen(self, channels: Iterable[str]) -> AsyncIterator[tuple[str, str]]:
        """(channel, payload) of every notification on ``channels``, on a connection of its own, until the
        caller stops iterating or the connection fails (then it raises: the caller listens again)."""
        async with await psycopg.AsyncConnection.connect(self._url, autocommit=True) as conn:
            for channel in channels:
                await conn.execute(f'LISTEN "{channel}"'.encode())
            async for note in conn.notifies():
                yield note.channel, note.payload

    async def integrity_check(self) -> str:
        """PostgreSQL checks its own pages; what can be wrong here is the schema: "ok" if every table the
        bot uses answers."""
        for table in ("users", "chats", "tables", "seats", "games", "events", "results", "result_players"):
            await self.fetch_all(f"SELECT 1 FROM {table} LIMIT 1")
        return "ok"


def describe_server(url: str) -> str:
    """The server and database of a URL, for messages: never its password."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql (a malformed URL)"
    host, port, name = parts.get("host", "localhost"), parts.get("port", "5432"), parts.get("dbname", "")
    return f"postgresql://{host}:{port}/{name}"


@functools.lru_cache(maxsize=1024)
def dialect(sql: str) -> bytes:
    """The repositories' SQL for psycopg: ``?`` placeholders become ``%s`` and a literal ``%`` is doubled,
    outside quoted strings and identifiers."""
    out, quote = [], ""
    for ch in sql:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            out.append("%s")
            continue
        if ch == "%":
            out.append("%%" if not quote else "%")
            continue
        out.append(ch)
    return "".join(out).encode()


async def _apply(conn: Connection, write: Write) -> Any:
    sql = dialect(write.sql)
    async with conn.cursor() as cursor:
        if write.rows is not None:
            await cursor.executemany(sql, write.rows)
            write.check(cursor.rowcount)
            return cursor.rowcount
        await cursor.execute(sql, write.params)
        if write.returning:
            row = await cursor.fetchone()
            write.check(cursor.rowcount)
            return None if row is None else next(iter(row.values()))
        write.check(cursor.rowcount)
        return cursor.rowcount


async def _fetch(conn: Connection, sql: str, params: tuple[Any, ...]) -> list[Row]:
    async with conn.cursor() as cursor:
        await cursor.execute(dialect(sql), params)
        return list(await cursor.fetchall())
