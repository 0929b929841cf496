"""/kick: the table's host or a group admin frees a player's seat in the lobby, or hands it to a bot for the
rest of the game (the group told who and why); anyone else is refused with a reason."""

from __future__ import annotations

import random

from tests.bot.conftest import Harness
from tests.bot.players import (
    GROUP,
    button,
    hand_message,
    open_table,
    play_until_over,
    press_and_wait,
    table_id,
)


async def said(h: Harness, user: int, text: str, reply_to: int | None = None) -> str:
    """``user`` writes ``text`` in the group (in reply to a message); the bot's reply to it."""
    return str((await h.fake.ask(user, GROUP, text, reply_to=reply_to)).text)


async def test_the_host_frees_a_seat_in_the_lobby_and_nobody_else_may(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob", "Cid"])
    bobs = fake.send(2, GROUP, "hi all")
    assert "Reply to the player's message with /kick" in await said(harness, 1, "/kick")
    assert "Only the table's host or a chat admin" in await said(harness, 3, "/kick", reply_to=bobs)
    text = await said(harness, 1, "/kick <b>afk</b>", reply_to=bobs)
    assert text == "Ann: Bob is no longer at the table.\nReason: &lt;b&gt;afk&lt;/b&gt;"
    await fake.wait_for(lambda: "Bob" not in fake.messages[GROUP][lobby.message_id].text, what="Bob gone")
    assert [s.user_id for s in harness.deps.service.tables[table_id(lobby)].row.seats] == [1, 3]
    assert "not at this table" in await said(harness, 1, "/kick", reply_to=bobs)


async def test_an_admin_hands_a_seat_to_a_bot_for_the_rest_of_the_game(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    fake.add_user(4, "Dan")
    fake.admins[GROUP] = {4}
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    live = harness.deps.service.tables[table_id(lobby)]
    bobs = fake.send(2, GROUP, "brb")
    text = await said(harness, 4, "/kick gone for lunch", reply_to=bobs)
    assert text == "Dan: a bot takes over Bob's seat for the rest of the game.\nReason: gone for lunch"
    assert live.game is not None and live.game.is_auto(live.seat_of(2) or 0)
    # "I'm back" does not undo the admin's decision.
    hand = await fake.wait_for(lambda: (m := hand_message(fake, 2)) and "I'm back" in str(m.buttons()) and m)
    answer = await press_and_wait(fake, 2, 2, hand.message_id, button(hand, "b:"))
    assert answer.get("show_alert") and "handed to a bot" in str(answer.get("text"))
    result = await play_until_over(fake, GROUP, [1], random.Random(3))
    assert "Ann" in result and "Bob" in result
