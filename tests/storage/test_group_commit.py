"""The group commit: moves of many tables that arrive together share one transaction, each stands or
falls alone, and none is answered before its commit."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from engine import Options
from engine.moves import move_str
from engine.snapshot import dumps
from storage import StaleGame, Storage
from storage.db import Write
from storage.records import TableStatus
from tests.storage.test_games import start_game


async def test_concurrent_moves_of_many_tables_share_commits_and_all_persist(sqlite_store: Storage) -> None:
    store = sqlite_store  # SQLite's group commit
    games = [await start_game(store, Options(), 2, seed, chat=-seed) for seed in range(1, 21)]
    before = store.db.batches

    async def one_move(row_id: int, game_seed: int) -> None:
        row, game = games[game_seed]
        seat = game.to_act()[0]
        move = game.legal_moves(seat)[0]
        game.apply(seat, move)
        await store.games.record(row.id, 1, seat, move_str(move), dumps(game), game.version, deadline=1.0)

    await asyncio.gather(*(one_move(row.id, i) for i, (row, _) in enumerate(games)))
    assert store.db.batches - before < len(games)  # grouped: fewer transactions than moves
    for row, game in games:
        stored = await store.games.get(row.id)
        assert stored is not None and stored.seq == 1 and store.games.load(stored) == game
        assert [a.seq for a in await store.games.log(row.id)] == [1]


async def test_a_stale_move_fails_alone_and_its_neighbours_commit(store: Storage) -> None:
    (row_a, game_a), (row_b, game_b) = [await start_game(store, Options(), 2, s, chat=-s) for s in (1, 2)]
    await store.tables.set_status(row_b.table_id, TableStatus.CANCELLED)
    seat = game_a.to_act()[0]
    move = game_a.legal_moves(seat)[0]
    game_a.apply(seat, move)
    good = store.games.record(row_a.id, 1, seat, move_str(move), dumps(game_a), game_a.version, deadline=None)
    stale = store.games.record(row_b.id, 1, 0, "x", dumps(game_b), game_b.version + 1, deadline=None)
    outcomes = await asyncio.gather(good, stale, return_exceptions=True)
    assert outcomes[0] is None and isinstance(outcomes[1], StaleGame)
    assert [a.seq for a in await store.games.log(row_a.id)] == [1]
    assert await store.games.log(row_b.id) == []  # its event row was undone with its savepoint


async def test_a_failed_commit_fails_every_move_in_it_and_writes_none(sqlite_store: Storage) -> None:
    store = sqlite_store  # SQLite's group commit
    games = [await start_game(store, Options(), 2, s, chat=-s) for s in (1, 2, 3)]

    # After some errors (a full disk among them) SQLite rolls the whole transaction back on its own.
    refuse_commit = Write("ROLLBACK")

    moves = [
        store.games.record(row.id, 1, 0, "x", dumps(game), game.version, deadline=None) for row, game in games
    ]
    outcomes = await asyncio.gather(*moves, store.db.write(refuse_commit), return_exceptions=True)
    assert all(isinstance(o, sqlite3.Error) for o in outcomes)
    for row, _ in games:
        assert await store.games.log(row.id) == []


async def test_inside_a_transaction_a_move_joins_it(store: Storage) -> None:
    row, game = await start_game(store, Options(), 2, 1)
    with pytest.raises(RuntimeError):
        async with store.db.transaction():
            await store.games.record(row.id, 1, 0, "x", dumps(game), game.version, deadline=None)
            assert [a.seq for a in await store.games.log(row.id)] == [1]  # visible inside, at once
            raise RuntimeError("the rest of the transaction failed")
    assert await store.games.log(row.id) == []
