"""A group that becomes a supergroup gets a new chat id: everything of the group follows it."""

from __future__ import annotations

from engine import Options, Variant
from storage import Storage
from tests.storage.test_results import finished_game, result


async def _group_with_history(store: Storage) -> int:
    await finished_game(store, -1, [1, 2], result((1, 2), (1,)), Options())
    await store.chats.set_language(-1, "uk")
    await store.chats.set_default_options(-1, Options(variant=Variant.TRANSFER))
    lobby = await store.tables.create(-1, 0, 1, Options())
    return lobby.id


async def test_migrating_a_chat_id_moves_tables_ratings_and_settings(store: Storage) -> None:
    lobby = await _group_with_history(store)
    await store.chats.migrate(-1, -1001)
    assert await store.chats.get(-1) is None
    chat = await store.chats.get(-1001)
    assert (
        chat is not None
        and chat.language == "uk"
        and chat.default_options == Options(variant=Variant.TRANSFER)
    )
    table = await store.tables.get(lobby)
    assert table is not None and table.chat_id == -1001
    assert [x.user_id for x in await store.results.leaderboard(-1001, "throw_in")] == [1, 2]
    assert await store.results.leaderboard(-1, "throw_in") == []
    (stats,) = await store.results.stats(1, -1001)
    assert stats.games == 1


async def test_migrating_into_a_chat_the_bot_already_saw_merges_them(store: Storage) -> None:
    lobby = await _group_with_history(store)
    await store.chats.seen(-1001, "supergroup", "G")
    await finished_game(store, -1001, [2, 3], result((1, 2), (1,)), Options())
    await store.chats.migrate(-1, -1001)
    assert await store.chats.get(-1) is None
    chat = await store.chats.get(-1001)
    assert chat is not None and chat.language == "uk"
    table = await store.tables.get(lobby)
    assert table is not None and table.chat_id == -1001
    games = {x.user_id: x.games for x in await store.results.leaderboard(-1001, "throw_in")}
    # User 2 had a rating in both ids (one game each): one of them stays, never a duplicate row.
    assert games == {1: 1, 2: 1, 3: 1}


async def test_migrating_an_unknown_chat_does_nothing(store: Storage) -> None:
    await store.chats.migrate(-5, -1005)
    assert await store.chats.get(-1005) is None


async def test_the_process_that_owns_a_group_owns_it_under_its_new_id(store: Storage) -> None:
    """Several processes: the group's lease and the updates forwarded for it follow the group, over a lease
    somebody took on the new id before the move (that process has none of the group's tables)."""
    lobby = await _group_with_history(store)
    assert await store.owners.claim(-1, "a", 60.0) == "a"
    assert await store.owners.claim(-1001, "b", 60.0) == "b"
    await store.owners.forward("a", -1, "{}")
    await store.chats.migrate(-1, -1001)
    assert await store.owners.claim(-1001, "b", 60.0) == "a"
    assert await store.owners.renew("a", 60.0) == {-1001}
    assert await store.owners.renew("b", 60.0) == set()
    assert await store.owners.forwarded("a") == ["{}"]
    table = await store.tables.get(lobby)
    assert table is not None and await store.tables.chat_of(lobby) == table.chat_id == -1001
