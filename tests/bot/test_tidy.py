"""A tidy chat (docs/groups.md): when a table ends, the commands that led to it and the bot's answers to them
are deleted, in one deleteMessages call through the outbox, where the group keeps its chat tidy (the default)
and the bot may delete messages; the table message stays as a short summary beside the result. Nothing else
goes, and nothing Telegram would not delete is tried twice."""

from __future__ import annotations

import random

from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.fake_telegram import ApiError, FakeTelegram, Message
from tests.bot.players import (
    GROUP,
    is_result,
    play_until_over,
    press_and_wait,
    stored,
    table_id,
    welcome,
)

DELETES = {"can_delete_messages"}


def deleted(fake: FakeTelegram) -> set[int]:
    return {message for chat, message in fake.deleted if chat == GROUP}


async def lobby_of(fake: FakeTelegram, opened: int) -> Message:
    """The lobby a /newgame opened (its table remembered while it has buttons)."""
    lobby: Message = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if m.buttons() and m.message_id > opened), None),
        what="the lobby",
    )
    table_id(lobby)
    return lobby


async def seated(fake: FakeTelegram, lobby: Message, name: str) -> None:
    await fake.wait_for(lambda: name in fake.messages[GROUP][lobby.message_id].text, what=f"{name} seated")


async def tidied(h: Harness, table: int) -> None:
    """The table's noted messages were dealt with: deleted, or left and forgotten."""
    await stored(lambda: h.deps.storage.tables.noted(table), lambda found: not found[1], "tidied")


async def test_a_finished_game_takes_the_commands_that_led_to_it(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob", "Cid"])
    fake.bot_rights[GROUP] = DELETES
    opened = fake.send(1, GROUP, "/newgame")
    lobby = await lobby_of(fake, opened)
    table = table_id(lobby)
    talk = fake.send(3, GROUP, "who's in?")  # the group's conversation stays
    joined = fake.send(2, GROUP, "/join")
    await seated(fake, lobby, "Bob")
    again = fake.send(2, GROUP, "/join@durak_test_bot")
    refusal = await fake.answer_to(GROUP, again)
    assert "already" in refusal.text
    await press_and_wait(fake, 3, GROUP, lobby.message_id, f"L:{table}:join")
    await seated(fake, lobby, "Cid")
    top = fake.send(3, GROUP, "/top")  # not a table's command: it and its board stay
    board = await fake.answer_to(GROUP, top)
    dealt = fake.send(1, GROUP, "/startgame")
    await fake.wait_for(lambda: harness.deps.service.tables[table].game, what="the deal")
    await play_until_over(fake, GROUP, [1, 2, 3], random.Random(5))

    wanted = {opened, joined, again, refusal.message_id, dealt}
    await fake.wait_for(lambda: wanted <= deleted(fake), what="the commands deleted")
    await tidied(harness, table)
    assert deleted(fake) == wanted
    assert fake.calls["deleteMessages"] == 1
    left = fake.messages[GROUP]
    assert {talk, top, board.message_id, lobby.message_id} <= set(left)
    assert any(is_result(m.text) for m in left.values() if m.from_bot)
    summary = await fake.wait_for(
        lambda: "Players:" in left[lobby.message_id].text and left[lobby.message_id].text, what="the summary"
    )
    assert "Players: Ann, Bob, Cid" in summary and "results below" in summary
    assert "Waiting for" not in summary and left[lobby.message_id].reply_markup is None


async def test_without_the_right_to_delete_nothing_is_tried(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.admins[GROUP] = {1}
    asked = fake.send(1, GROUP, "/settings")
    menu = await fake.answer_to(GROUP, asked)
    assert "Tidy chat: on" in str(menu.buttons()) and "I need to be an admin" in menu.text
    opened = fake.send(1, GROUP, "/newgame")
    lobby = await lobby_of(fake, opened)
    table = table_id(lobby)
    fake.send(2, GROUP, "/join")
    await seated(fake, lobby, "Bob")
    fake.send(1, GROUP, "/startgame")
    await play_until_over(fake, GROUP, [1, 2], random.Random(2))
    await tidied(harness, table)  # forgotten: the group keeps them
    assert fake.calls["deleteMessages"] == 0 and not deleted(fake)
    assert "Players:" not in fake.messages[GROUP][lobby.message_id].text  # the whole table, as before


async def test_a_group_that_turns_it_off_keeps_its_messages(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.admins[GROUP] = {1}
    fake.bot_rights[GROUP] = DELETES
    asked = fake.send(1, GROUP, "/settings")
    menu = await fake.answer_to(GROUP, asked)
    assert "I need to be an admin" not in menu.text
    answer = await press_and_wait(fake, 1, GROUP, menu.message_id, "S:c:tidy")
    assert answer.get("text") == "Saved."
    await fake.wait_for(lambda: "Tidy chat: off" in str(menu.buttons()), what="the menu redrawn")
    refused = await press_and_wait(fake, 2, GROUP, menu.message_id, "S:c:tidy")
    assert refused.get("show_alert") and "Only the group's admins" in str(refused.get("text"))
    opened = fake.send(1, GROUP, "/newgame")
    lobby = await lobby_of(fake, opened)
    fake.send(1, GROUP, "/cancel")
    await fake.wait_for(lambda: "Table closed." in fake.messages[GROUP][lobby.message_id].text, what="closed")
    await tidied(harness, table_id(lobby))
    assert fake.calls["deleteMessages"] == 0 and opened in fake.messages[GROUP]


async def test_a_cancelled_lobby_takes_its_commands_and_a_refusal_is_not_tried_again(
    harness: Harness,
) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.bot_rights[GROUP] = DELETES
    opened = fake.send(1, GROUP, "/newgame")
    lobby = await lobby_of(fake, opened)
    joined = fake.send(2, GROUP, "/join")
    await seated(fake, lobby, "Bob")
    fake.fail_next("deleteMessages", ApiError(429, "Too Many Requests: retry after 1", retry_after=1))
    cancelled = fake.send(1, GROUP, "/cancel")
    await fake.wait_for(lambda: {opened, joined, cancelled} <= deleted(fake), what="deleted after the 429")
    assert fake.calls["deleteMessages"] == 2  # the 429 waited out, then the same again
    assert "Table closed." in fake.messages[GROUP][lobby.message_id].text

    # The next table's messages: Telegram refuses to delete them (the right taken away meanwhile, say).
    opened = fake.send(1, GROUP, "/newgame")
    lobby = await lobby_of(fake, opened)
    fake.fail_next("deleteMessages", ApiError(400, "Bad Request: message can't be deleted"))
    fake.send(1, GROUP, "/cancel")
    await tidied(harness, table_id(lobby))
    assert fake.calls["deleteMessages"] == 3 and opened in fake.messages[GROUP]


async def test_what_a_restart_interrupted_is_tidied_after_it(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.bot_rights[GROUP] = DELETES
    opened = fake.send(1, GROUP, "/newgame")
    lobby = await lobby_of(fake, opened)
    fake.send(1, GROUP, "/cancel")
    table = table_id(lobby)
    await tidied(harness, table)
    # A command noted as the process died, before its table's tidy-up went out.
    late = fake.send(2, GROUP, "/join")
    await harness.deps.storage.tables.note_messages(table, GROUP, [late])
    await stop_app(harness.app)
    harness.app = await start_app(fake, harness.db_path)
    await fake.wait_for(lambda: late in deleted(fake), what="deleted after the restart")
    await tidied(harness, table)
