"""Users, chats, tables and seats."""

from __future__ import annotations

import pytest

from engine import Options, Variant
from storage import SeatTaken, Storage, TableExists
from storage.records import TableStatus, User
from tests.storage.conftest import make_users


async def test_users_keep_their_own_settings_when_telegram_data_changes(store: Storage) -> None:
    await store.users.seen(User(id=1, first_name="Ann", telegram_language="ru"))
    await store.users.set_language(1, "uk")
    await store.users.set_started(1)
    user = await store.users.seen(User(id=1, first_name="Anna", username="anna", telegram_language="en"))
    assert (user.first_name, user.username, user.telegram_language) == ("Anna", "anna", "en")
    assert (user.language, user.started, user.blocked) == ("uk", True, False)


async def test_blocking_and_starting_again(store: Storage) -> None:
    await make_users(store, 1)
    await store.users.set_started(1)
    await store.users.set_blocked(1)
    user = await store.users.get(1)
    assert user is not None and user.blocked
    await store.users.set_started(1)
    user = await store.users.get(1)
    assert user is not None and user.started and not user.blocked
    assert await store.users.get(999) is None


async def test_chats_keep_language_and_default_options(store: Storage) -> None:
    await store.chats.seen(-1, "supergroup", "Club", is_forum=True)
    await store.chats.set_language(-1, "ru")
    await store.chats.set_default_options(-1, Options(variant=Variant.TRANSFER, deck=24))
    chat = await store.chats.seen(-1, "supergroup", "Club renamed", is_forum=True)
    assert chat.title == "Club renamed" and chat.language == "ru" and chat.is_forum
    assert chat.default_options == Options(variant=Variant.TRANSFER, deck=24)


async def test_one_live_table_per_chat_or_forum_topic(store: Storage) -> None:
    await make_users(store, 1)
    await store.chats.seen(-1, "supergroup", "Club", is_forum=True)
    table = await store.tables.create(-1, 0, 1, Options())
    assert table.status is TableStatus.LOBBY and table.options == Options()
    with pytest.raises(TableExists):
        await store.tables.create(-1, 0, 1, Options())
    other_topic = await store.tables.create(-1, 42, 1, Options())
    assert other_topic.thread_id == 42
    live = await store.tables.open_in(-1, 42)
    assert live is not None and live.id == other_topic.id
    # A finished table frees its place.
    await store.tables.set_status(table.id, TableStatus.FINISHED)
    await store.tables.create(-1, 0, 1, Options())


async def test_seats_follow_join_order_and_close_gaps(store: Storage) -> None:
    await make_users(store, 1, 2, 3)
    await store.chats.seen(-1, "group", "G")
    table = await store.tables.create(-1, 0, 1, Options(seats=4))
    for user in (1, 2, 3):
        await store.tables.add_seat(table.id, user)
    await store.tables.add_seat(table.id, bot_level="normal")
    with pytest.raises(SeatTaken):
        await store.tables.add_seat(table.id, 3)  # full
    await store.tables.remove_seat(table.id, 1)
    with pytest.raises(SeatTaken):
        await store.tables.add_seat(table.id, 3)  # already seated
    seated = await store.tables.get(table.id)
    assert seated is not None
    assert [(s.seat, s.user_id, s.bot_level) for s in seated.seats] == [
        (0, 1, None),
        (1, 3, None),
        (2, None, "normal"),
    ]


async def test_messages_deadlines_and_options_are_stored(store: Storage) -> None:
    await make_users(store, 1)
    await store.chats.seen(-1, "group", "G")
    table = await store.tables.create(-1, 0, 1, Options())
    await store.tables.add_seat(table.id, 1)
    await store.tables.set_message(table.id, 555)
    await store.tables.set_seat_message(table.id, 0, "hand_message_id", 777)
    await store.tables.set_deadline(table.id, 1234.5)
    await store.tables.set_options(table.id, Options(move_timer=60))
    got = await store.tables.get(table.id)
    assert got is not None
    assert (got.message_id, got.seats[0].hand_message_id, got.deadline) == (555, 777, 1234.5)
    assert got.options.move_timer == 60
