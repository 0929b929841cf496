"""The bot on PostgreSQL (``DATABASE_URL``): whole games through the real PTB stack, a restart mid-game, and
the result and ratings stored; skipped, saying so, where no PostgreSQL server can be had (tests/postgres.py)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cluster import Cluster
from bot.deps import settings_of
from storage.postgres import PostgresDatabase
from storage.records import TableRow
from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.fake_telegram import FakeTelegram
from tests.bot.players import GROUP, open_table, play_until_over, start, table_id


@pytest.fixture
async def harness(tmp_path: Path, postgres_url: str) -> AsyncIterator[Harness]:
    fake = FakeTelegram()
    h = Harness(fake, await start_app(fake, tmp_path / "unused.sqlite3", database_url=postgres_url), tmp_path)
    yield h
    await stop_app(h.app)


async def test_a_whole_game_is_played_stored_and_rated_on_postgresql(harness: Harness) -> None:
    assert isinstance(harness.deps.storage.db, PostgresDatabase)
    fake = harness.fake
    fake.bot_rights[GROUP] = {"can_delete_messages"}  # a tidy chat (docs/groups.md)
    lobby = await open_table(harness, ["Ann", "Bob", "Cid"], ["variant"])
    (opened,) = [m.message_id for m in fake.messages[GROUP].values() if m.text == "/newgame"]
    await start(harness, lobby)
    result = await play_until_over(fake, GROUP, [1, 2, 3], random.Random(5))
    assert all(name in result for name in ("Ann", "Bob", "Cid"))
    await fake.wait_for(lambda: (GROUP, opened) in fake.deleted, what="the /newgame tidied away")
    storage = harness.deps.storage
    for user in (1, 2, 3):
        stats = await storage.results.stats(user, GROUP)
        assert stats and stats[0].games == 1
    board = await storage.results.leaderboard(GROUP, stats[0].game_type)
    assert sorted(leader.user_id for leader in board) == [1, 2, 3]
    game = await storage.games.current(table_id(lobby))
    assert game is not None and game.finished_at is not None and game.result_message_id
    assert await storage.games.replay(game) == storage.games.load(game)  # the log replays to the snapshot


async def test_a_restart_mid_game_brings_the_table_back_from_postgresql(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    rng = random.Random(8)
    await play_until_over(fake, GROUP, [1, 2], rng, limit=10, allow_unfinished=True)
    before = harness.deps.service.tables[tid].game
    assert before is not None and not before.over
    url = harness.deps.storage.db.where
    await stop_app(harness.app)
    settings = settings_of(harness.app)
    harness.app = await start_app(
        fake, harness.db_path / "unused.sqlite3", database_url=settings.database_url
    )
    assert harness.deps.storage.db.where == url
    assert harness.deps.service.tables[tid].game == before
    assert "Ann" in await play_until_over(fake, GROUP, [1, 2], rng)


async def test_a_table_asked_for_while_its_group_is_being_taken_over_waits_for_it(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page (or an update) that comes while this process is bringing a group's tables back from the
    database is answered once they are back, not told the table is gone (a 404 to the page's socket)."""
    cluster, service = harness.deps.cluster, harness.deps.service
    assert isinstance(cluster, Cluster)
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    # As if another process had played the group and died: not in memory here, and nobody's lease.
    service.forget_chat(GROUP)
    cluster.owned.discard(GROUP)
    await harness.deps.storage.db.execute("DELETE FROM chat_owners WHERE chat_id = ?", (GROUP,))
    restoring, slow = asyncio.Event(), service.restore

    async def slowly(chat_id: int | None = None) -> list[tuple[TableRow, str]]:
        restoring.set()
        await asyncio.sleep(0.3)
        return await slow(chat_id)

    monkeypatch.setattr(service, "restore", slowly)
    claim = asyncio.create_task(cluster.claim(GROUP))
    await restoring.wait()
    assert await cluster.web_peer(tid) is None  # played here ...
    assert service.table(tid) is not None  # ... and there to be shown
    assert await claim == cluster.me
