"""Simulated users: they look at the messages the bot sent them and press the buttons they are shown."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.callbacks import MovePress, PickPress, decode
from tests.bot.conftest import Harness
from tests.bot.fake_telegram import FakeTelegram, Message

T = TypeVar("T")


def is_hand(message: Message) -> bool:
    """Hands are the bot's private messages with a keyboard of moves (maybe empty); the welcome's keyboard
    holds only a link."""
    buttons = message.buttons()
    return message.reply_markup is not None and not (buttons and all(data == "" for _, data in buttons))


def hand_message(fake: FakeTelegram, user_id: int) -> Message | None:
    """The user's newest hand message."""
    for message in reversed(fake.bot_messages(user_id)):
        if is_hand(message):
            return message
    return None


RESULT_TITLES = ("Game over", "Игра окончена", "Гру закінчено")


def is_result(text: str) -> bool:
    return any(title in text for title in RESULT_TITLES)


def group_hand(fake: FakeTelegram, user_id: int, chat_id: int = -100) -> Message | None:
    """The newest hand the user's client shows in the group (an ephemeral message only they see)."""
    shown = fake.shown_to(user_id, chat_id)
    return shown[-1] if shown else None


def move_choices(markup: dict[str, Any] | None) -> list[str]:
    """The data of a keyboard's move buttons (a move, or a card picked to cover with), but the disabled
    ones (a card with no move now)."""
    rows: list[list[dict[str, Any]]] = markup.get("inline_keyboard", []) if markup else []
    data = [str(b.get("callback_data", "")) for row in rows for b in row if not b.get("disabled")]
    return [d for d in data if isinstance(decode(d), MovePress | PickPress)]


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
    in_group: frozenset[int] = frozenset(),
) -> str:
    """Everybody presses one of their shown buttons at random until the group gets the result (or, with
    ``allow_unfinished``, until ``limit`` presses). ``check`` runs after every press. Users ``in_group``
    press the buttons of their in-group hand; the others those of their private one."""
    presses = 0
    earlier = len([m for m in fake.bot_messages(chat_id) if is_result(m.text)])
    while presses < limit:
        results = [m.text for m in fake.bot_messages(chat_id) if is_result(m.text)]
        if len(results) > earlier:
            return results[-1]
        pressed = False
        for user in rng.sample(users, len(users)):
            if user in in_group:
                shown = group_hand(fake, user, chat_id)
                choices = move_choices(shown.seen[1]) if shown is not None and shown.seen else []
                if shown is None or not choices:
                    continue
                callback = fake.press_ephemeral(user, chat_id, shown.message_id, rng.choice(choices))
                await fake.wait_for(lambda c=callback: fake.answers[c], what="an answer")  # type: ignore[misc]
            else:
                message = hand_message(fake, user)
                choices = move_choices(message.reply_markup) if message is not None else []
                if message is None or not choices:
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


GROUP = -100


async def welcome(h: Harness, names: list[str], *, started: bool = True) -> None:
    fake = h.fake
    fake.add_group(GROUP, "Friends")
    for i, name in enumerate(names, 1):
        fake.add_user(i, name, started=False)
        if started:
            fake.send(i, i, "/start")
            await fake.wait_for(lambda i=i: fake.last(i), what="the welcome")  # type: ignore[misc]


async def open_table(
    h: Harness,
    names: list[str],
    options: list[str] = (),  # type: ignore[assignment]
    *,
    started: bool = True,
) -> Message:
    """Everybody starts the bot (unless not ``started``), Ann opens a table, sets ``options`` (button
    presses), the rest join."""
    fake = h.fake
    await welcome(h, names, started=started)
    fake.send(1, GROUP, "/newgame")
    lobby: Message = await fake.wait_for(lambda: fake.last(GROUP), what="the lobby")
    table = lobby.buttons()[0][1].split(":")[1]
    for option in options:
        answer = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table}:set:{option}")
        assert not answer.get("show_alert"), answer  # the new value is told at once, as a toast
    for user in range(2, len(names) + 1):
        await press_and_wait(fake, user, GROUP, lobby.message_id, f"L:{table}:join")
    last = names[-1]
    await fake.wait_for(lambda: last in fake.messages[GROUP][lobby.message_id].text, what="everybody seated")
    lobby.table_id = int(table)  # remembered now: the buttons go once the game starts
    return lobby


def table_id(lobby: Message) -> int:
    """The table of a lobby message (read from its buttons the first time, while it still has them)."""
    if lobby.table_id is None:
        lobby.table_id = int(lobby.buttons()[0][1].split(":")[1])
    return lobby.table_id


async def choose(fake: FakeTelegram, user: int, place: str) -> None:
    """The user picks where their cards are, in their private settings (/settings there)."""
    fake.send(user, user, "/settings")
    menu = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(user) if "Your settings" in m.text), None), what="menu"
    )
    await press_and_wait(fake, user, user, menu.message_id, f"S:u:cards:{place}")
    await fake.wait_for(
        lambda: any(label.startswith("• ") and f":{place}" in data for label, data in menu.buttons()),
        what="the choice marked",
    )


async def start(h: Harness, lobby: Message) -> None:
    """Ann, the creator, deals."""
    answer = await press_and_wait(h.fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    assert "text" not in answer, answer


async def stored(read: Callable[[], Awaitable[T]], check: Callable[[T], bool], what: str) -> T:
    """What ``read`` gives once ``check`` holds: a message's id is written after Telegram answered the send,
    so a moment after the message shows."""
    for _ in range(500):
        found = await read()
        if check(found):
            return found
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what} to be stored")
