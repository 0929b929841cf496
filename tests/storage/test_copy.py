"""``python -m storage.copy``: a SQLite database copied into PostgreSQL reads the same through every
repository, counts checked; a target that is not empty is refused and left as it was."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import Options, Variant
from engine.actions import act
from engine.moves import move_str
from engine.snapshot import dumps
from storage import Storage
from storage.copy import TABLES, CopyRefused, copy, main, run
from storage.db import Database
from storage.postgres import PostgresDatabase
from storage.sqlite import SqliteDatabase
from tests.storage.test_games import start_game
from tests.storage.test_results import finished_game, result


async def _history(store: Storage) -> tuple[int, int]:
    """Two chats with rated games, settings, a lobby, and a game in play with a few moves logged."""
    await finished_game(store, -1, [1, 2], result((1, 2), (1,)), Options())
    await finished_game(store, -1, [2, 3, None], result((1, 2, 3), (2,)), Options(variant=Variant.TRANSFER))
    await finished_game(store, -2, [1, 3], result((2, 1), (0,)), Options())
    await store.chats.set_language(-1, "uk")
    await store.chats.set_default_options(-2, Options(variant=Variant.TRANSFER))
    lobby = await store.tables.create(-2, 7, 1, Options())
    row, game = await start_game(store, Options(), 2, 4, chat=-3)
    rng = random.Random(4)
    for seq in range(1, 6):
        seat = game.to_act()[0]
        move = rng.choice(game.legal_moves(seat))
        act(game, seat, move)
        await store.games.record(row.id, seq, seat, move_str(move), dumps(game), game.version, deadline=None)
    return lobby.id, row.id


async def _reads(store: Storage, lobby: int, game_id: int) -> list[object]:
    """What the bot reads, through the repositories."""
    game = await store.games.get(game_id)
    assert game is not None
    return [
        await store.results.leaderboard(-1, "throw_in"),
        await store.results.leaderboard(-1, "transfer"),
        await store.results.leaderboard(0, "throw_in"),
        await store.results.stats(2),
        await store.results.stats(1, -2),
        await store.results.standing(3, 0, "throw_in"),
        await store.chats.get(-1),
        await store.chats.get(-2),
        await store.users.get(3),
        await store.tables.get(lobby),
        await store.tables.restorable(),
        game,
        await store.games.log(game_id),
        await store.games.replay(game),
    ]


async def test_a_copy_reads_the_same_and_new_ids_follow_the_copied_ones(
    tmp_path: Path, postgres_url: str
) -> None:
    path = tmp_path / "old.sqlite3"
    old = await Storage.open(path)
    lobby, game_id = await _history(old)
    expected = await _reads(old, lobby, game_id)
    await old.close()

    counts = await run(path, postgres_url)
    assert counts["events"] == 5 and counts["result_players"] == 7 and counts["tables"] == 5

    new = await Storage.open(postgres_url)
    try:
        assert await _reads(new, lobby, game_id) == expected
        # The id counters moved past the copied rows: a new table and game do not collide with them.
        await new.chats.seen(-9, "group", "New")
        table = await new.tables.create(-9, 0, 1, Options())
        assert table.id > lobby
        row, _ = await start_game(new, Options(), 2, 9, chat=-10)
        assert row.id > game_id
    finally:
        await new.close()


async def test_a_target_with_rows_is_refused_and_left_alone(tmp_path: Path, postgres_url: str) -> None:
    source = await SqliteDatabase.open(tmp_path / "old.sqlite3")
    target: Database = await PostgresDatabase.open(postgres_url)
    try:
        await Storage(target).chats.seen(-5, "group", "Already here")
        with pytest.raises(CopyRefused, match="not empty: chats"):
            await copy(source, target)
        counts = [await target.fetch_one(f"SELECT COUNT(*) AS n FROM {t}") for t, _ in TABLES]
        assert [row["n"] for row in counts if row is not None] == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    finally:
        await target.close()
        await source.close()


def test_a_missing_source_or_a_sqlite_target_copies_nothing(tmp_path: Path) -> None:
    assert main([str(tmp_path / "none.sqlite3"), "postgresql://nobody@127.0.0.1:1/none"]) == 1
    assert main([str(tmp_path / "a.sqlite3"), str(tmp_path / "b.sqlite3")]) == 2
