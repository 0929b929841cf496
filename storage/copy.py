"""Copy a SQLite database into PostgreSQL, once, when a bot outgrows one process:

    .venv/bin/python -m storage.copy durak.sqlite3 postgresql://durak:secret@db.example/durak

Stop the bot first (a running bot keeps writing the file). The target must be empty: the command creates the
schema there, copies every table (users, chats, tables and seats, games with their logs, results, ratings)
in one transaction, moves the id counters past the copied ids, and checks that both databases hold the same
number of rows of each table; on any failure nothing stays in the target. The SQLite file is first brought
to the latest schema, as the bot itself would on start.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from storage import describe
from storage.db import Database, StorageUnusable, Write, is_postgres
from storage.migrations import SchemaTooNew
from storage.postgres import PostgresDatabase
from storage.sqlite import SqliteDatabase

# In the order foreign keys allow, each with the columns that order it (pages are read by key, not OFFSET).
TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("users", ("id",)),
    ("chats", ("id",)),
    ("tables", ("id",)),
    ("seats", ("table_id", "seat")),
    ("games", ("id",)),
    ("events", ("game_id", "seq")),
    ("results", ("game_id",)),
    ("result_players", ("game_id", "seat")),
    ("ratings", ("user_id", "chat_id", "game_type")),
    ("tidy_messages", ("table_id", "chat_id", "message_id")),
)
IDENTITIES = ("tables", "games")  # the tables whose ids the database hands out
PAGE = 5000


class CopyRefused(RuntimeError):
    """The copy cannot start or did not check out; nothing was left in the target."""


async def copy(source: SqliteDatabase, target: Database, *, page: int = PAGE) -> dict[str, int]:
    """Copy every row of ``source`` into the empty ``target``; returns the rows copied per table."""
    counts: dict[str, int] = {}
    async with target.transaction():
        for table, _ in TABLES:
            if await target.fetch_one(f"SELECT 1 FROM {table} LIMIT 1") is not None:
                raise CopyRefused(f"the target is not empty: {table} has rows")
        for table, key in TABLES:
            counts[table] = await _copy_table(source, target, table, key, page)
        for table in IDENTITIES:
            await target.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) "
                f"FROM {table}"
            )
        for table, _ in TABLES:
            there = await _count(target, table)
            if there != counts[table]:
                raise CopyRefused(f"{table}: {counts[table]} rows in the source, {there} in the target")
    return counts


async def _copy_table(source: Database, target: Database, table: str, key: tuple[str, ...], page: int) -> int:
    order = ", ".join(key)
    after: tuple[Any, ...] | None = None
    copied = 0
    while True:
        where = f"WHERE ({order}) > ({', '.join('?' * len(key))})" if after is not None else ""
        rows = await source.fetch_all(
            f"SELECT * FROM {table} {where} ORDER BY {order} LIMIT {page}", after or ()
        )
        if not rows:
            return copied
        columns = list(rows[0].keys())
        await target.write(
            Write(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                rows=tuple(tuple(row[c] for c in columns) for row in rows),
            )
        )
        copied += len(rows)
        after = tuple(rows[-1][k] for k in key)


async def _count(db: Database, table: str) -> int:
    row = await db.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
    return int(row["n"]) if row else 0


async def run(source_path: Path, url: str) -> dict[str, int]:
    if not source_path.is_file():
        raise CopyRefused(f"no SQLite database at {source_path}")
    source = await SqliteDatabase.open(source_path)
    try:
        target = await PostgresDatabase.open(url)
        try:
            counts = await copy(source, target)
            for table, _ in TABLES:  # the source did not change meanwhile either
                if await _count(source, table) != counts[table]:
                    raise CopyRefused(f"{table} changed in the source during the copy: is the bot running?")
            return counts
        finally:
            await target.close()
    finally:
        await source.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m storage.copy",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", type=Path, help="the SQLite file (DATABASE_PATH)")
    parser.add_argument("target", help="the PostgreSQL URL (DATABASE_URL), an empty database")
    args = parser.parse_args(argv)
    if not is_postgres(args.target):
        print("The target must be a postgresql:// URL.", file=sys.stderr)
        return 2
    try:
        counts = asyncio.run(run(args.source, args.target))
    except (CopyRefused, StorageUnusable, SchemaTooNew) as exc:
        print(f"Nothing copied: {exc}", file=sys.stderr)
        return 1
    print(f"Copied {args.source} into {describe(args.target)}; rows per table, the same in both:")
    for table, n in counts.items():
        print(f"  {table:<15}{n:>10,}")
    print("Now set DATABASE_URL to that URL and start the bot.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
