from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest

from storage import Storage
from storage.records import User

# What either backend raises when a write breaks the schema's rules (a duplicate key, a CHECK, a bad JSON).
REFUSED = (sqlite3.IntegrityError, psycopg.IntegrityError, psycopg.DataError)


@pytest.fixture(params=["sqlite", "postgresql"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Storage]:
    """The repositories over each backend: every test that takes ``store`` runs on both (PostgreSQL ones are
    skipped, saying so, where no server can be had: see tests/postgres.py)."""
    where = (
        tmp_path / "durak.sqlite3" if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    )
    s = await Storage.open(where)
    yield s
    await s.close()


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[Storage]:
    """For what only SQLite has: pragmas, its file, its group commit."""
    s = await Storage.open(tmp_path / "durak.sqlite3")
    yield s
    await s.close()


async def make_users(store: Storage, *ids: int) -> None:
    for i in ids:
        await store.users.seen(User(id=i, first_name=f"Player{i}"))
