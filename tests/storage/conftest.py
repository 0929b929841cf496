from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Storage
from storage.records import User


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Storage]:
    s = await Storage.open(tmp_path / "durak.sqlite3")
    yield s
    await s.close()


async def make_users(store: Storage, *ids: int) -> None:
    for i in ids:
        await store.users.seen(User(id=i, first_name=f"Player{i}"))
