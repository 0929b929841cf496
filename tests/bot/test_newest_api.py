"""Telegram's newest Bot API (10.2-10.5) through the real PTB stack and the fake Bot API: /hand sent as an
ephemeral command (the group sees neither it nor its answer, and a bot that is not an administrator may
answer it), and presses that come without their message (10.5's callback_query_mode) still play a game."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bot.callbacks import CardsPress, SettingsPress, encode
from tests.bot.conftest import Harness, running
from tests.bot.fake_telegram import FakeTelegram, Message
from tests.bot.players import (
    GROUP,
    group_hand,
    is_result,
    open_table,
    play_until_over,
    press_and_wait,
    start,
    table_id,
)

GROUP_MENU = json.dumps({"type": "all_group_chats"}, sort_keys=True)


def cards_of(text: str) -> list[str]:
    """The card symbols a text shows (a hand lists them; nothing the group sees should)."""
    return [word for word in text.split() if word[-1:] in "♠♣♥♦" and len(word) <= 3]


async def test_hand_is_an_ephemeral_command_answered_to_its_sender_alone(harness: Harness) -> None:
    """Bob never started the bot and the bot is no admin; his hand is gone from his app: /hand, sent from the
    menu that marks it ephemeral, brings it back into the group, seen by him alone; somebody not at the table is told so, privately; an
    app too old to send it ephemerally gets told, in the group, which button to press."""
    fake = harness.fake
    menus = [menu for key, menu in fake.commands.items() if key.startswith(GROUP_MENU)]
    assert len(menus) == 4  # the fallback and each of the three languages
    for menu in menus:
        assert [c["command"] for c in menu if c.get("is_ephemeral")] == ["hand"]
    lobby = await open_table(harness, ["Ann", "Bob"], started=False)
    await start(harness, lobby)
    await fake.wait_for(lambda: group_hand(fake, 2), what="Bob's hand, as the answer to his Join")
    await harness.deps.outbox.idle()
    fake.restart_app(2)  # ... gone from his screen; no press of his lets the bot send it again
    assert group_hand(fake, 2) is None
    in_group = len(fake.bot_messages(GROUP))

    fake.send_ephemeral_command(2, GROUP, "/hand")
    hand: Message = await fake.wait_for(lambda: group_hand(fake, 2), what="Bob's hand")
    assert hand.receiver == 2 and "Your hand" in hand.text
    await harness.deps.outbox.idle()
    assert len(fake.bot_messages(GROUP)) == in_group  # nothing in the group's own history
    for user in (1, 9):
        assert not any(set(cards_of(text)) & set(cards_of(hand.text)) for text in fake.visible(user, GROUP))

    fake.add_user(9, "Mallory")
    fake.send_ephemeral_command(9, GROUP, "/hand")
    told: Message = await fake.wait_for(
        lambda: next(iter(fake.shown_to(9, GROUP)), None), what="Mallory told, privately"
    )
    assert "not at this table" in told.text and told.receiver == 9
    await harness.deps.outbox.idle()
    assert len(fake.bot_messages(GROUP)) == in_group

    asked = fake.send(2, GROUP, "/hand")  # an older app: an ordinary message everybody sees
    answer = await fake.answer_to(GROUP, asked)
    assert "My cards" in answer.text and not cards_of(answer.text)


async def test_presses_without_their_message_still_play_a_game_to_its_result(tmp_path: Path) -> None:
    """Bot API 10.5 with callback_query_mode "inline": every press says neither its chat nor its message.
    The lobby, the moves, 🃏 My cards (answered in the group the table is in) and a player's own settings
    work; a group's menu answers with an alert instead of doing nothing."""
    fake = FakeTelegram(api_version=(10, 5), callback_query_mode="inline")
    async for h in running(tmp_path, fake=fake):
        lobby = await open_table(h, ["Ann", "Bob"])
        await start(h, lobby)
        table = await fake.wait_for(
            lambda: next((m for m in fake.bot_messages(GROUP) if "🃏 My cards" in str(m.buttons())), None),
            what="the dealt table",
        )
        answer = await press_and_wait(fake, 2, GROUP, table.message_id, encode(CardsPress(table_id(lobby))))
        assert not answer.get("show_alert"), answer
        shown = await fake.wait_for(lambda: group_hand(fake, 2), what="Bob's hand in the group")
        assert shown.receiver == 2
        result = await play_until_over(fake, GROUP, [1, 2], random.Random(7))
        assert is_result(result)
        settings = await fake.wait_for(lambda: fake.last(1), what="a private message")
        answer = await press_and_wait(
            fake, 1, 1, settings.message_id, encode(SettingsPress("u", "lang", "uk"))
        )
        assert not answer.get("show_alert"), answer  # saved, told in a toast
        answer = await press_and_wait(
            fake, 1, GROUP, table.message_id, encode(SettingsPress("c", "lang", "en"))
        )
        # ... told in Ukrainian: Ann's own setting took, though its menu could not be redrawn.
        assert answer.get("show_alert") and "Кнопки меню не працюють" in str(answer.get("text"))
