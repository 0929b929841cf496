"""/forgetme: a person's data goes; what other players' results, ratings and replays need stays, naming
nobody; a game they sit in goes on with a bot in their seat."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from bot.service import Table
from tests.bot.conftest import Harness
from tests.bot.players import GROUP, open_table, play_until_over, press_and_wait, start, table_id


async def test_forget_me_removes_the_person_and_changes_nothing_for_the_others(harness: Harness) -> None:
    fake = harness.fake
    storage = harness.deps.storage
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(1))  # a rated game: both have ratings now
    fake.send(2, GROUP, "/newgame")  # Bob opens the next table, Ann joins, the game starts
    second = await fake.wait_for(
        lambda: (m := fake.last(GROUP)) and m.buttons() and "New game" in m.text and m, what="a lobby"
    )
    await press_and_wait(fake, 1, GROUP, second.message_id, f"L:{table_id(second)}:join")
    await press_and_wait(fake, 2, GROUP, second.message_id, f"L:{table_id(second)}:start")
    live = harness.deps.service.tables[table_id(second)]
    await harness.deps.outbox.idle()
    bob_stats = await storage.results.stats(2, GROUP)
    bob_rating = await storage.results.standing(2, GROUP, "throw_in")

    fake.send(1, 1, "/forgetme")
    ask = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(1) if "Delete your data?" in m.text), None),
        what="the question",
    )
    assert [label for label, _ in ask.buttons()] == ["Forget me", "Cancel"]
    answer = await press_and_wait(fake, 1, 1, ask.message_id, "F:yes")
    assert not answer.get("show_alert")
    await fake.wait_for(lambda: "your data is removed" in fake.messages[1][ask.message_id].text, what="done")
    forgotten_at = len(fake.sent)

    # Nothing of Ann is left: no record, no name anywhere, her id nowhere.
    assert await storage.users.get(1) is None
    with sqlite3.connect(harness.db_path) as conn:
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for row in conn.execute(f"SELECT * FROM {table}").fetchall():
                assert "Ann" not in map(str, row), (table, row)
        for table, column in (("seats", "user_id"), ("result_players", "user_id"), ("ratings", "user_id")):
            assert not conn.execute(f"SELECT 1 FROM {table} WHERE {column} = 1").fetchall(), table
    # Bob's statistics and rating, rank included, are as they were.
    assert await storage.results.stats(2, GROUP) == bob_stats
    assert await storage.results.standing(2, GROUP, "throw_in") == bob_rating
    # The game Ann sat in goes on: a bot plays her seat, Bob plays to the result, and nothing goes to Ann.
    assert live.game is not None and live.game.is_auto(0 if live.row.seats[0].user_id != 2 else 1)
    result = await play_until_over(fake, GROUP, [2], random.Random(2))
    assert "Bob" in result and "Former player" in result and "Ann" not in result
    assert not [s for s in fake.sent[forgotten_at:] if s.chat_id == 1]
    # Her past game is still replayed, and the board still has her rating, both naming a former player.
    fake.send(2, GROUP, "/replay 1")
    replay = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if "Replay of game #1" in m.text), None),
        what="replay",
    )
    assert "Former player" in replay.text and "Ann" not in replay.text
    fake.send(2, GROUP, "/top")
    board = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if " season · " in m.text), None), what="/top"
    )
    assert "Ann" not in board.text and "Former player" in board.text
    # Writing again, she is a new user the bot knows only from what Telegram says.
    fake.send(1, 1, "/start")
    await fake.wait_for(lambda: harness.deps.storage.users.cached(1) is not None, what="Ann seen again")
    again = await storage.users.get(1)
    assert again is not None and again.language is None and again.cards is None


async def test_cancel_changes_nothing(harness: Harness) -> None:
    fake = harness.fake
    await open_table(harness, ["Ann", "Bob"])
    fake.send(1, 1, "/forgetme")
    ask = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(1) if "Delete your data?" in m.text), None),
        what="the question",
    )
    await press_and_wait(fake, 1, 1, ask.message_id, "F:no")
    await fake.wait_for(lambda: "Nothing was changed" in fake.messages[1][ask.message_id].text, what="kept")
    user = await harness.deps.storage.users.get(1)
    assert user is not None and user.first_name == "Ann"


async def test_forget_me_survives_tables_opened_and_pruned_while_it_reads_tables_again(
    harness: Harness,
) -> None:
    """Reading a table again awaits the database: meanwhile another table opens and one leaves memory.
    /forgetme goes on over the tables it found, and reads none that left memory."""
    fake = harness.fake
    service = harness.deps.service
    first = await open_table(harness, ["Ann", "Bob"])  # Ann created it and sits in it
    fake.send(1, GROUP, "/cancel")
    await fake.wait_for(lambda: service.tables[table_id(first)].closed_at, what="the lobby cancelled")
    fake.send(1, GROUP, "/newgame")
    second = await fake.wait_for(
        lambda: (m := fake.last(GROUP)) and m.buttons() and m.message_id != first.message_id and m,
        what="a lobby",
    )
    old, new = service.tables[table_id(first)], service.tables[table_id(second)]
    read_again: list[int] = []

    def watched(table: Table, original: Callable[[], Awaitable[None]], meanwhile: Callable[[], None]) -> Any:
        async def reload() -> None:
            read_again.append(table.id)
            meanwhile()
            await original()

        return reload

    def churn() -> None:
        service.tables[10_000] = service.tables[10_001] = new  # tables opened meanwhile ...
        service.tables.pop(new.id)  # ... and one that left memory

    old.reload = watched(old, old.reload, churn)  # type: ignore[method-assign]
    new.reload = watched(new, new.reload, lambda: None)  # type: ignore[method-assign]
    former = await service.forget(1)
    assert former < 0 and await harness.deps.storage.users.get(1) is None
    assert read_again == [old.id]
