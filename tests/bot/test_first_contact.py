"""First contact: what a new user and a new group see before any game."""

from __future__ import annotations

import asyncio
import json

from bot.i18n import texts
from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.players import GROUP, open_table, press_and_wait, start, table_id, welcome


async def test_start_in_private_explains_the_bot_with_an_add_to_group_button(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann"])
    hello = fake.last(1)
    assert hello is not None and "/newgame" in hello.text and "/help" in hello.text
    (button,) = hello.reply_markup["inline_keyboard"][0] if hello.reply_markup else [None]
    assert button is not None and button["url"] == "https://t.me/durak_test_bot?startgroup=durak"


async def test_group_commands_in_private_say_where_they_work(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann"])
    for command in ("/newgame", "/join", "/cancel", "/replay 1", "/settings"):
        before = len(fake.bot_messages(1))
        fake.send(1, 1, command)
        reply = await fake.wait_for(lambda: fake.bot_messages(1)[before:], what=command)
        # /settings in private is your own: your language and where your cards are.
        expected = "Your settings" if command == "/settings" else "works in a group chat"
        assert expected in reply[0].text, command


async def test_help_and_the_command_menus_name_every_command(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann"])
    fake.add_group(GROUP, "Friends")
    fake.send(1, GROUP, "/help")
    help_text = await fake.wait_for(lambda: fake.last(GROUP), what="/help")
    for command in ("/newgame", "/join", "/leave", "/startgame", "/cancel", "/top", "/stats", "/replay",
                    "/settings", "/language", "/rules"):  # fmt: skip
        assert command in help_text.text, command
    groups = next(v for k, v in fake.commands.items() if "all_group_chats" in k and k.endswith(":"))
    assert {c["command"] for c in groups} >= {"newgame", "replay", "settings", "top", "stats", "help"}
    assert json.dumps(fake.commands)  # every language's menu was set


async def test_the_bot_says_hello_when_added_and_ends_the_groups_tables_when_removed(
    harness: Harness,
) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    fake.add_group(-200, "Neighbours")
    fake.bot_membership(-200, 1, added=True)
    hello = await fake.wait_for(lambda: fake.last(-200), what="the hello")
    assert "/newgame" in hello.text and "never your conversation" in hello.text
    fake.bot_membership(GROUP, 1, added=False)
    live = harness.deps.service.tables[tid]
    await fake.wait_for(lambda: live.row.status == "cancelled", what="the table ended")
    await harness.deps.outbox.idle()  # a send already under way when it left may still fail
    sent = len([s for s in fake.sent if s.chat_id == GROUP])
    await asyncio.sleep(0.3)
    assert len([s for s in fake.sent if s.chat_id == GROUP]) == sent  # nothing more tried there


async def test_a_creator_who_never_started_the_bot_opens_a_table_without_being_sent_away(
    harness: Harness,
) -> None:
    fake = harness.fake
    fake.add_group(GROUP, "Friends")
    fake.add_user(1, "Ann", started=False)
    fake.send(1, GROUP, "/newgame")
    lobby = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if m.buttons()), None), what="the lobby"
    )
    assert "Ann" in fake.messages[GROUP][lobby.message_id].text  # seated
    await harness.deps.outbox.idle()
    assert [m.text for m in fake.bot_messages(GROUP)] == [lobby.text]  # no "start the bot first" link
    answer = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:join")
    assert "already" in str(answer.get("text"))


async def test_a_group_speaks_the_language_of_the_first_person_who_uses_the_bot_there(
    harness: Harness,
) -> None:
    fake = harness.fake
    fake.add_group(GROUP, "Друзья")
    fake.add_user(1, "Маша", language="ru")
    fake.send(1, 1, "/start")
    await fake.wait_for(lambda: fake.last(1), what="the welcome")
    fake.send(1, GROUP, "/newgame")
    lobby = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if m.buttons()), None), what="the lobby"
    )
    assert "Новая игра" in lobby.text
    chat = await harness.deps.storage.chats.get(GROUP)
    assert chat is not None and chat.language == "ru"


async def test_the_bots_profile_speaks_every_language_and_a_restart_changes_nothing(harness: Harness) -> None:
    fake = harness.fake
    for language in ("", "ru", "uk", "en"):
        t = texts(language or "en")
        assert fake.profile[f"description:{language}"] == t("profile.description")
        assert fake.profile[f"short_description:{language}"] == t("profile.short_description")
    assert "Дурак для групповых чатов" in fake.profile["description:ru"]
    assert "Дурень для групових чатів" in fake.profile["description:uk"]
    # Telegram limits these calls: a start that finds everything in place makes none of them.
    before = {m: fake.calls[m] for m in ("setMyCommands", "setMyDescription", "setMyShortDescription")}
    assert all(before.values())
    await stop_app(harness.app)
    harness.app = await start_app(fake, harness.db_path)
    assert {m: fake.calls[m] for m in before} == before
    assert fake.calls["getMyDescription"] >= 8  # it did look: four languages, two starts
    # One language's description changed by someone in @BotFather: that one alone is set again.
    fake.profile["description:uk"] = "щось інше"
    await stop_app(harness.app)
    harness.app = await start_app(fake, harness.db_path)
    assert fake.calls["setMyDescription"] == before["setMyDescription"] + 1
    assert fake.profile["description:uk"] == texts("uk")("profile.description")
