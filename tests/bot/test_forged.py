"""A modified client can send any callback data under any message of the bot's. Every kind of button, forged
under every kind of message it is never drawn under (bot.buttons.BUTTONS), is refused with the out-of-date
alert and changes nothing: no message is sent or edited, no table, setting or user record moves."""

from __future__ import annotations

import asyncio
import random

from bot.buttons import BUTTONS, Screen, drawn_under
from bot.callbacks import (
    ArenaPress,
    BoardPress,
    CardsPress,
    ConcedePress,
    DiscardPress,
    ForgetPress,
    LobbyPress,
    Press,
    ReclaimPress,
    SettingsPress,
    UnpickPress,
    decode,
    encode,
)
from tests.bot.conftest import Harness
from tests.bot.fake_telegram import Message
from tests.bot.players import (
    GROUP,
    choose,
    group_hand,
    hand_message,
    move_choices,
    open_table,
    play_until_over,
    start,
    table_id,
)
from tests.bot.test_fuzz import state

STALE = "That button is out of date"


def forgeries(tid: int, move: str) -> dict[str, str]:
    """A press of every kind, each one that would change something if it counted where it was sent."""
    presses: dict[str, Press | str] = {
        "m": move,
        "k": move.replace("m:", "k:", 1).rsplit(":", 1)[0] + ":" + "6s",
        "h": UnpickPress(tid),
        "q": ConcedePress(tid, "yes"),
        "d": DiscardPress(tid),
        "b": ReclaimPress(tid),
        "c": CardsPress(tid),
        "L": LobbyPress(tid, "leave"),
        "A": ArenaPress(tid, "join"),
        "T": BoardPress("c", "throw_in", 1),
        "S": SettingsPress("c", "lang", "ru"),
        "F": ForgetPress(True),
    }
    assert set(presses) == set(BUTTONS)
    found = {kind: p if isinstance(p, str) else encode(p) for kind, p in presses.items()}
    assert all(decode(data) is not None for data in found.values()), found
    return found


async def forge_everything_under(
    h: Harness,
    screen: Screen,
    user: int,
    chat: int,
    message: Message,
    tid: int,
    move: str,
    *,
    ephemeral: bool = False,
) -> int:
    fake = h.fake
    shown = [data for _, data in message.buttons() if data]
    assert shown, f"the {screen} shows buttons"
    tried = 0
    for kind, data in forgeries(tid, move).items():
        if screen in BUTTONS[kind].under:
            continue  # drawn under such messages: its handler decides, as for any press
        assert not drawn_under(data, shown), (screen, data)
        before, sent = await state(h, tid), len(fake.sent)
        users = await h.deps.storage.users.get(user)
        if ephemeral:
            callback = fake.press_ephemeral(user, chat, message.message_id, data)
        else:
            callback = fake.press(user, chat, message.message_id, data)
        answers = fake.answers[callback]
        await fake.wait_for(lambda answers=answers: answers, what=f"the answer to {data}")  # type: ignore[misc]
        answer = answers[0]
        assert STALE in answer.get("text", ""), (screen, data, answer)
        await h.deps.outbox.idle()
        assert fake.sent[sent:] == [], (screen, data)
        assert await state(h, tid) == before, (screen, data)
        assert await h.deps.storage.users.get(user) == users, (screen, data)
        tried += 1
    return tried


async def test_every_button_forged_under_every_message_it_is_never_drawn_under_changes_nothing(
    harness: Harness,
) -> None:
    fake = harness.fake
    fake.admins[GROUP] = {1}
    lobby = await open_table(harness, ["Ann", "Bob"])
    tid = table_id(lobby)
    await choose(fake, 2, "both")  # Bob holds his cards in the group too
    fake.send(1, 1, "/forgetme")
    forget = await fake.wait_for(
        lambda: next(
            (m for m in fake.bot_messages(1) if m.buttons() and m.buttons()[0][1].startswith("F:")), None
        )
    )
    fake.send(1, 1, "/settings")
    language = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(1) if "Your settings" in m.text), None)
    )
    fake.send(1, GROUP, "/settings")
    settings = await fake.wait_for(
        lambda: next(
            (m for m in fake.bot_messages(GROUP) if m.buttons() and m.buttons()[0][1].startswith("S:c:")),
            None,
        )
    )
    await harness.deps.outbox.idle()
    probe = f"m:{tid}:0:l6s"
    tried = await forge_everything_under(
        harness, "lobby", 1, GROUP, fake.messages[GROUP][lobby.message_id], tid, probe
    )
    tried += await forge_everything_under(harness, "forget", 1, 1, forget, tid, probe)
    tried += await forge_everything_under(harness, "settings", 1, 1, language, tid, probe)
    tried += await forge_everything_under(harness, "settings", 1, GROUP, settings, tid, probe)

    await start(harness, lobby)
    await harness.deps.outbox.idle()

    def movers_hand() -> Message | None:
        hands = (hand_message(fake, 1), hand_message(fake, 2))
        return next((m for m in hands if m is not None and move_choices(m.reply_markup)), None)

    hand = await fake.wait_for(movers_hand, what="the hand of the player who leads")
    owner = hand.chat_id
    move = move_choices(hand.reply_markup)[0]
    in_group = await fake.wait_for(lambda: group_hand(fake, 2), what="Bob's hand in the group")
    tried += await forge_everything_under(
        harness, "table_in_play", 1, GROUP, fake.messages[GROUP][lobby.message_id], tid, move
    )
    tried += await forge_everything_under(harness, "hand", owner, owner, hand, tid, move)
    tried += await forge_everything_under(harness, "hand", 2, GROUP, in_group, tid, move, ephemeral=True)

    await play_until_over(fake, GROUP, [1, 2], random.Random(5))
    await harness.deps.outbox.idle()
    result = await fake.wait_for(
        lambda: next(
            (m for m in fake.bot_messages(GROUP) if any(d.endswith(":rematch") for _, d in m.buttons())), None
        ),
        what="the result with Rematch",
    )
    fake.send(1, GROUP, "/top")
    board = await fake.wait_for(
        lambda: next(
            (m for m in fake.bot_messages(GROUP) if m.buttons() and m.buttons()[0][1].startswith("T:")), None
        ),
        what="the board",
    )
    await harness.deps.outbox.idle()
    await asyncio.sleep(0.05)
    tried += await forge_everything_under(harness, "result", 1, GROUP, result, tid, move)
    tried += await forge_everything_under(harness, "board", 1, GROUP, board, tid, move)
    assert tried >= 70
