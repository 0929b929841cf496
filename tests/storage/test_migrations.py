"""Schema migrations on real SQLite files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite
import psycopg
import pytest

from storage import SchemaTooNew, Storage
from storage.migrations import (
    LATEST,
    MIGRATIONS,
    POSTGRES_MIGRATIONS,
    migrate,
    migrate_postgres,
    schema_version,
)


async def test_a_new_database_is_created_at_the_latest_version_with_wal_and_foreign_keys(
    tmp_path: Path,
) -> None:
    store = await Storage.open(tmp_path / "new.sqlite3")
    try:
        assert (await store.db.fetch_one("PRAGMA user_version"))[0] == LATEST  # type: ignore[index]
        assert (await store.db.fetch_one("PRAGMA journal_mode"))[0] == "wal"  # type: ignore[index]
        assert (await store.db.fetch_one("PRAGMA foreign_keys"))[0] == 1  # type: ignore[index]
        assert (await store.db.fetch_one("PRAGMA busy_timeout"))[0] == 5000  # type: ignore[index]
        assert await store.db.integrity_check() == "ok"
    finally:
        await store.close()


async def test_reopening_keeps_the_data_and_runs_nothing_again(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    store = await Storage.open(path)
    await store.chats.seen(-100, "group", "Friends")
    await store.close()
    store = await Storage.open(path)
    try:
        chat = await store.chats.get(-100)
        assert chat is not None and chat.title == "Friends"
    finally:
        await store.close()


async def test_a_database_newer_than_the_code_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST + 1}")
    with pytest.raises(SchemaTooNew, match="newer than this code"):
        await Storage.open(path)


EXTRA = ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);"]


@pytest.mark.parametrize("start", range(len(MIGRATIONS) + 1))
async def test_every_earlier_version_migrates_to_the_latest(tmp_path: Path, start: int) -> None:
    # A database left at each earlier version (including empty) reaches the newest schema, here extended by
    # one more step to show that later migrations apply on top of what is there.
    path = tmp_path / f"v{start}.sqlite3"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await migrate(conn, MIGRATIONS[:start]) == start
        assert await migrate(conn, [*MIGRATIONS, *EXTRA]) == LATEST + 1
        assert await schema_version(conn) == LATEST + 1
        await conn.execute("INSERT INTO notes (body) VALUES ('ok')")
        await conn.execute("INSERT INTO chats (id, type, updated_at) VALUES (1, 'group', 0)")


async def test_a_failing_migration_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "fail.sqlite3"
    broken = [*MIGRATIONS, "CREATE TABLE half (id INTEGER);\nCREATE TABLE broken (;"]
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        with pytest.raises(sqlite3.OperationalError):
            await migrate(conn, broken)
        assert await schema_version(conn) == LATEST
        async with conn.execute("SELECT name FROM sqlite_master WHERE name = 'half'") as cursor:
            assert await cursor.fetchone() is None


async def test_a_version_1_database_with_games_upgrades_keeping_them(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        await migrate(conn, MIGRATIONS[:1])
        await conn.execute("INSERT INTO users (id, first_name, updated_at) VALUES (1, 'Ann', 0)")
        await conn.execute("INSERT INTO chats (id, type, updated_at) VALUES (-1, 'group', 0)")
        await conn.execute(
            "INSERT INTO tables (id, chat_id, creator_id, status, options, created_at, updated_at) "
            "VALUES (1, -1, 1, 'playing', '{}', 0, 0)"
        )
        await conn.execute(
            "INSERT INTO games (id, table_id, deal, snapshot, version, rated, started_at) VALUES (1, 1, '{}', '{}', 0, 1, 0)"
        )
    store = await Storage.open(path)
    try:
        row = await store.games.get(1)
        assert row is not None and row.deck is None and row.salt is None  # dealt before fair play existed
        assert (await store.db.fetch_one("PRAGMA user_version"))[0] == LATEST  # type: ignore[index]
    finally:
        await store.close()


async def test_postgresql_migrates_step_by_step_and_refuses_a_newer_schema(postgres_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        assert await migrate_postgres(conn, POSTGRES_MIGRATIONS[:1]) == 1
        await conn.execute("INSERT INTO users (id, first_name, updated_at) VALUES (1, 'Ann', 0)")
        await conn.execute("INSERT INTO chats (id, type, updated_at) VALUES (-1, 'group', 0)")
        await conn.execute(
            "INSERT INTO tables (chat_id, creator_id, status, options, created_at, updated_at) "
            "VALUES (-1, 1, 'lobby', '{}', 0, 0)"
        )
    store = await Storage.open(postgres_url)  # the rest of the steps, keeping the rows
    try:
        (table,) = await store.tables.restorable()
        assert table.join_token  # step 3 gave the old table a token
        row = await store.db.fetch_one("SELECT version FROM schema_version")
        assert row is not None and row["version"] == LATEST
        await store.db.execute("UPDATE schema_version SET version = ?", (LATEST + 1,))
    finally:
        await store.close()
    with pytest.raises(SchemaTooNew, match=f"schema version {LATEST + 1}"):
        await Storage.open(postgres_url)
