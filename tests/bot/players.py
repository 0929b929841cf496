"""Simulated users: they look at the messages the bot sent them and press the buttons they are shown."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from bot.callbacks import MovePress, PickPress, decode
from tests.bot.fake_telegram import FakeTelegram, Message


def hand_message(fake: FakeTelegram, user_id: int) -> Message | None:
    """The user's newest hand message: the bot's private messages with a keyboard (maybe empty) are hands."""
    for message in reversed(fake.bot_messages(user_id)):
        if message.reply_markup is not None:
            return message
    return None


RESULT_TITLES = ("Game over", "Игра окончена", "Гру закінчено")


def is_result(text: str) -> bool:
    return any(title in text for title in RESULT_TITLES)


def group_texts(fake: FakeTelegram, chat_id: int) -> list[str]:
    return [m.text for m in fake.bot_messages(chat_id)]


def button(message: Message, prefix: str) -> str:
    return next(data for _, data in message.buttons() if data.startswith(prefix))


async def press_and_wait(
    fake: FakeTelegram, user_id: int, chat_id: int, message_id: int, data: str
) -> dict[str, object]:
    callback = fake.press(user_id, chat_id, message_id, data)
    await fake.wait_for(lambda: fake.answers[callback], what=f"an answer to {data}")
    return fake.answers[callback][0]


async def play_until_over(
    fake: FakeTelegram,
    chat_id: int,
    users: list[int],
    rng: random.Random,
    limit: int = 3000,
    *,
    check: Callable[[], None] | None = None,
    allow_unfinished: bool = False,
) -> str:
    """Everybody presses one of their shown buttons at random until the group gets the result (or, with
    ``allow_unfinished``, until ``limit`` presses). ``check`` runs after every press."""
    presses = 0
    earlier = len([m for m in fake.bot_messages(chat_id) if is_result(m.text)])
    while presses < limit:
        results = [m.text for m in fake.bot_messages(chat_id) if is_result(m.text)]
        if len(results) > earlier:
            return results[-1]
        pressed = False
        for user in rng.sample(users, len(users)):
            message = hand_message(fake, user)
            if message is None:
                continue
            choices = [
                data for _, data in message.buttons() if isinstance(decode(data), MovePress | PickPress)
            ]
            if not choices:
                continue
            await press_and_wait(fake, user, user, message.message_id, rng.choice(choices))
            presses += 1
            pressed = True
            if check is not None:
                check()
            break
        if not pressed:
            await asyncio.sleep(0.02)
    if allow_unfinished:
        return ""
    raise AssertionError("the game did not end")
