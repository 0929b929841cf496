"""Whole games through the real PTB stack and the fake Bot API."""

from __future__ import annotations

import random

from tests.bot.conftest import Harness
from tests.bot.fake_telegram import Message
from tests.bot.players import button, group_texts, hand_message, play_until_over, press_and_wait

GROUP = -100


async def open_table(h: Harness, names: list[str]) -> int:
    fake = h.fake
    fake.add_group(GROUP, "Friends")
    for i, name in enumerate(names, 1):
        fake.add_user(i, name)
        fake.send(i, i, "/start")
        await fake.wait_for(lambda i=i: fake.last(i), what="the welcome")  # type: ignore[misc]
    fake.send(1, GROUP, "/newgame")
    lobby: Message = await fake.wait_for(lambda: fake.last(GROUP), what="the lobby")
    join = button(lobby, "L:").rsplit(":", 1)[0] + ":join"
    for user in range(2, len(names) + 1):
        await press_and_wait(fake, user, GROUP, lobby.message_id, join)
    last = names[-1]
    await fake.wait_for(lambda: last in fake.messages[GROUP][lobby.message_id].text, what="everybody seated")
    return lobby.message_id


async def test_a_two_player_game_is_played_to_the_end_by_pressing_buttons(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    message = fake.messages[GROUP][lobby]
    start = next(data for _, data in message.buttons() if data.endswith(":start"))
    answer = await press_and_wait(fake, 1, GROUP, lobby, start)
    assert "text" not in answer  # accepted silently
    await fake.wait_for(lambda: hand_message(fake, 1) and hand_message(fake, 2), what="hand messages")
    result = await play_until_over(fake, GROUP, [1, 2], random.Random(1))
    assert "Ann" in result and "Bob" in result
    # The group never saw a keyboard of moves, and every callback was answered exactly once.
    assert all(not data.startswith(("m:", "k:")) for m in fake.bot_messages(GROUP) for _, data in m.buttons())
    assert all(len(a) == 1 for a in fake.answers.values())
    assert any("Durak" in text or "throw-in" in text for text in group_texts(fake, GROUP))
