"""What a busy group's admins decide in /settings: who may open tables, and whether a forum plays at one table
in the whole group rather than one per topic."""

from __future__ import annotations

from tests.bot.conftest import Harness
from tests.bot.fake_telegram import FakeTelegram, Message
from tests.bot.players import GROUP, press_and_wait, welcome

FORUM = -300


async def settings_menu(fake: FakeTelegram, admin: int, chat: int) -> Message:
    fake.send(admin, chat, "/settings")
    menu: Message = await fake.wait_for(
        lambda: next((m for m in reversed(fake.bot_messages(chat)) if "Group settings" in m.text), None),
        what="the settings menu",
    )
    return menu


async def press_setting(fake: FakeTelegram, admin: int, chat: int, menu: Message, starts: str) -> str:
    def label() -> tuple[str, str]:
        return next(
            (lb, d) for lb, d in fake.messages[chat][menu.message_id].buttons() if lb.startswith(starts)
        )

    before, data = label()
    await press_and_wait(fake, admin, chat, menu.message_id, data)
    return str(await fake.wait_for(lambda: label()[0] != before and label()[0], what="the menu redrawn"))


async def reply_to(fake: FakeTelegram, user: int, chat: int, text: str, thread: int | None = None) -> Message:
    return await fake.ask(user, chat, text, thread_id=thread)


def lobbies(fake: FakeTelegram, chat: int) -> list[Message]:
    return [m for m in fake.bot_messages(chat) if "New game" in m.text]


async def test_a_group_whose_admins_open_tables_refuses_anyone_else(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.admins[GROUP] = {1}
    menu = await settings_menu(fake, 1, GROUP)
    assert "Who opens tables: everyone" in str(menu.buttons())
    assert "Tables at once" not in str(menu.buttons())  # a group without topics has one table anyway
    assert await press_setting(fake, 1, GROUP, menu, "Who opens tables") == "Who opens tables: admins only"
    refused = await reply_to(fake, 2, GROUP, "/newgame")
    assert refused.text == "Only the group's admins open tables here (/settings)."
    assert lobbies(fake, GROUP) == []
    fake.send(1, GROUP, "/newgame")
    await fake.wait_for(lambda: lobbies(fake, GROUP), what="the admin's lobby")
    # Back to everyone: Bob's /newgame is refused only because a table is open here already.
    assert await press_setting(fake, 1, GROUP, menu, "Who opens tables") == "Who opens tables: everyone"
    assert "already a table open here" in (await reply_to(fake, 2, GROUP, "/newgame")).text


async def test_a_forum_may_keep_one_table_in_the_whole_group(harness: Harness) -> None:
    fake = harness.fake
    fake.add_group(FORUM, "Club", forum=True)
    await welcome(harness, ["Ann", "Bob", "Cid"])
    fake.admins[FORUM] = {1}
    fake.send(2, FORUM, "/newgame", thread_id=5)
    fake.send(3, FORUM, "/newgame", thread_id=7)
    await fake.wait_for(lambda: len(lobbies(fake, FORUM)) == 2, what="a table in each topic (the default)")
    menu = await settings_menu(fake, 1, FORUM)
    assert (
        await press_setting(fake, 1, FORUM, menu, "Tables at once")
        == "Tables at once: one in the whole group"
    )
    refused = await reply_to(fake, 1, FORUM, "/newgame", thread=9)
    assert "one table at a time" in refused.text
    assert len(lobbies(fake, FORUM)) == 2  # the tables already open play on
    assert await press_setting(fake, 1, FORUM, menu, "Tables at once") == "Tables at once: one per topic"
    fake.send(1, FORUM, "/newgame", thread_id=9)
    await fake.wait_for(lambda: len(lobbies(fake, FORUM)) == 3, what="a table in a third topic")
