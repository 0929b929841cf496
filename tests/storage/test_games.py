"""Games: a move and its snapshot are one transaction; the log replays to the snapshot."""

from __future__ import annotations

import random

import pytest

from engine import Game, Options, Variant
from engine.actions import TIMEOUT, act
from engine.moves import move_str
from engine.snapshot import dumps
from storage import BrokenSnapshot, StaleGame, Storage
from storage.records import GameRow, TableStatus
from tests.storage.conftest import REFUSED, make_users


async def start_game(
    store: Storage, options: Options, players: int, seed: int, chat: int = -1
) -> tuple[GameRow, Game]:
    await make_users(store, *range(1, players + 1))
    await store.chats.seen(chat, "group", "G")
    table = await store.tables.create(chat, 0, 1, options)
    for user in range(1, players + 1):
        await store.tables.add_seat(table.id, user)
    game = Game.deal(options, players, rng=random.Random(seed))
    row = await store.games.start(table.id, dumps(game), game.version, rated=True, deadline=100.0)
    return row, game


async def test_starting_a_game_marks_the_table_playing(store: Storage) -> None:
    row, game = await start_game(store, Options(), 2, 1)
    table = await store.tables.get(row.table_id)
    assert table is not None and table.status is TableStatus.PLAYING and table.deadline == 100.0
    assert Storage is not None and store.games.load(row) == game


async def test_a_move_and_its_snapshot_are_written_together(store: Storage) -> None:
    row, game = await start_game(store, Options(), 2, 1)
    seat = game.to_act()[0]
    move = game.legal_moves(seat)[0]
    game.apply(seat, move)
    await store.games.record(row.id, 1, seat, move_str(move), dumps(game), game.version, deadline=130.0)
    stored = await store.games.get(row.id)
    assert stored is not None and stored.seq == 1 and store.games.load(stored) == game
    table = await store.tables.get(row.table_id)
    assert table is not None and table.deadline == 130.0


async def test_a_failure_between_the_event_and_the_snapshot_leaves_neither(store: Storage) -> None:
    row, _game = await start_game(store, Options(), 2, 1)
    # The event row is inserted first; the snapshot update then fails (not JSON): both are rolled back.
    with pytest.raises(REFUSED):
        await store.games.record(row.id, 1, 0, "x", "{not json", 1, deadline=None)
    assert await store.games.log(row.id) == []
    stored = await store.games.get(row.id)
    assert stored is not None and stored.seq == 0 and stored.snapshot == row.snapshot


async def test_an_action_out_of_sequence_is_refused_and_writes_nothing(store: Storage) -> None:
    row, game = await start_game(store, Options(), 2, 1)
    with pytest.raises(StaleGame):
        await store.games.record(row.id, 2, 0, "x", dumps(game), 1, deadline=None)
    await store.games.record(row.id, 1, 0, TIMEOUT, dumps(game), 1, deadline=None)
    with pytest.raises(REFUSED):
        await store.games.record(
            row.id, 1, 0, TIMEOUT, dumps(game), 1, deadline=None
        )  # the same action again
    assert [a.seq for a in await store.games.log(row.id)] == [1]


@pytest.mark.parametrize("variant", [Variant.THROW_IN, Variant.TRANSFER])
async def test_replaying_the_log_equals_the_stored_snapshot(store: Storage, variant: Variant) -> None:
    for seed in range(6):
        players = 2 + seed % 4
        row, game = await start_game(store, Options(variant=variant), players, seed, chat=-seed - 1)
        rng = random.Random(seed)
        seq = 0
        action: str
        while not game.over:
            if rng.random() < 0.1:
                seat, action = -1, TIMEOUT
            else:
                seat = rng.choice(game.actors())
                seat, action = seat, move_str(rng.choice(game.legal_moves(seat)))
            act(game, seat, action)
            seq += 1
            await store.games.record(row.id, seq, seat, action, dumps(game), game.version, deadline=None)
        stored = await store.games.get(row.id)
        assert stored is not None
        replayed = await store.games.replay(stored)
        assert replayed == store.games.load(stored) == game
        await store.tables.set_status(row.table_id, TableStatus.FINISHED)


async def test_a_broken_snapshot_names_its_table_and_stays_for_inspection(store: Storage) -> None:
    row, _game = await start_game(store, Options(), 2, 1)
    await store.db.execute("UPDATE games SET snapshot = ? WHERE id = ?", ('{"schema_version": 1}', row.id))
    stored = await store.games.get(row.id)
    assert stored is not None
    with pytest.raises(BrokenSnapshot, match=f"table {row.table_id}") as info:
        store.games.load(stored)
    assert info.value.table_id == row.table_id
    await store.tables.set_status(row.table_id, TableStatus.BROKEN, info.value.reason)
    table = await store.tables.get(row.table_id)
    assert table is not None and table.status is TableStatus.BROKEN and table.broken_reason
    assert (await store.games.get(row.id)) is not None  # the row is kept


async def test_live_tables_bring_back_lobbies_and_games_in_one_call(store: Storage) -> None:
    row, game = await start_game(store, Options(), 3, 1, chat=-1)
    await store.chats.seen(-2, "group", "Lobby chat")
    lobby = await store.tables.create(-2, 0, 1, Options())
    await store.tables.add_seat(lobby.id, 1)
    live = await store.restorable()
    by_id = {t.row.id: t for t in live}
    assert set(by_id) == {row.table_id, lobby.id}
    playing = by_id[row.table_id]
    assert playing.game is not None and store.games.load(playing.game) == game
    assert len(playing.row.seats) == 3 and playing.row.deadline == 100.0
    assert by_id[lobby.id].game is None and by_id[lobby.id].row.seats[0].user_id == 1
