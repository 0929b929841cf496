"""Random and mutated callback data and command arguments through the real stack, from a stranger and from
the players: every press is answered exactly once, every command gets a reply, no handler fails, and
nothing changes that a press by that person may not change.

The case count comes from FUZZ_CASES (default 300 presses and 120 commands; a thorough run by hand:
FUZZ_CASES=3000)."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import string

import pytest

from bot.callbacks import LobbyPress, decode
from engine.snapshot import dumps
from tests.bot.conftest import Harness
from tests.bot.players import GROUP, open_table, start, table_id

CASES = int(os.environ.get("FUZZ_CASES", "300"))
STRANGER = 9
NUMBERS = [
    "0",
    "1",
    "-1",
    "7",
    "99999999999999999999",
    str(2**63),
    str(2**64 - 1),
    "١٢",
    "1e3",
    "",
    " 1",
    "0x10",
]
PIECES = [
    "m",
    "k",
    "h",
    "b",
    "L",
    "T",
    "S",
    "c",
    "g",
    "u",
    "join",
    "start",
    "set",
    "bot",
    "rematch",
    "x",
    "p",
]
ALPHABET = string.ascii_letters + string.digits + ":_-#/ ÿ😀\u0000\u202e"


def mutate(data: str, rng: random.Random) -> str:
    parts = data.split(":")
    how = rng.randrange(7)
    if how == 0 and parts:  # a field becomes a hostile number
        parts[rng.randrange(len(parts))] = rng.choice(NUMBERS)
    elif how == 1:  # a field is dropped or doubled
        i = rng.randrange(len(parts))
        parts = parts[:i] + parts[i + 1 :] if rng.random() < 0.5 else parts[: i + 1] + parts[i:]
    elif how == 2:  # another kind of button's prefix
        parts[0] = rng.choice(PIECES)
    elif how == 3:  # a field replaced by a word that means something elsewhere
        parts[rng.randrange(len(parts))] = rng.choice(PIECES)
    elif how == 4:  # characters flipped
        text = list(":".join(parts))
        for _ in range(rng.randint(1, 3)):
            if text:
                text[rng.randrange(len(text))] = rng.choice(ALPHABET)
        return "".join(text)
    elif how == 5:  # cut short
        return data[: rng.randrange(len(data) + 1)]
    else:  # noise
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 70)))
    return ":".join(parts)


async def state(h: Harness, tid: int) -> tuple[object, ...]:
    """Everything a press may not change: the game, the table (status, seats, options), the chat's settings."""
    live = h.deps.service.tables[tid]
    table = await h.deps.storage.tables.get(tid)
    chat = await h.deps.storage.chats.get(GROUP)
    assert table is not None
    return (
        dumps(live.game) if live.game else None,
        table.status,
        table.seats and [s.user_id for s in table.seats],
        table.options,
        chat.language if chat else None,
        chat.default_options if chat else None,
    )


@pytest.mark.parametrize("seed", [1, 2])
async def test_mutated_presses_and_commands_are_answered_and_change_nothing(
    harness: Harness, caplog: pytest.LogCaptureFixture, seed: int
) -> None:
    rng = random.Random(seed)
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob", "Cid"])
    tid = table_id(lobby)
    real = [data for _, data in fake.messages[GROUP][lobby.message_id].buttons()]
    await start(harness, lobby)
    fake.add_user(STRANGER, "Mallory")
    fake.send(STRANGER, STRANGER, "/start")
    fake.send(1, GROUP, "/top")
    fake.send(2, 2, "/language")
    await fake.wait_for(
        lambda: (
            len(fake.bot_messages(STRANGER))
            and len(fake.bot_messages(2)) > 1
            and any(d.startswith("T:") for m in fake.bot_messages(GROUP) for _, d in m.buttons())
        ),
        what="replies",
    )
    for chat in (1, 2, 3, GROUP):
        real += [data for m in fake.bot_messages(chat) for _, data in m.buttons()]
    assert any(d.startswith("m:") for d in real) and any(d.startswith("T:") for d in real)
    caplog.set_level(logging.WARNING)
    assert harness.app.job_queue is not None
    harness.app.job_queue.scheduler.pause()  # move timers stand still: only presses may change anything

    for case in range(CASES):
        data = mutate(rng.choice(real), rng) if case % 5 else rng.choice(real)
        # A stranger (anything), or a player pressing what is not a move of theirs.
        user = STRANGER if rng.random() < 0.6 else rng.choice([1, 2, 3])
        if isinstance(decode(data), LobbyPress) and ":leave" in data:
            user = STRANGER  # a player's leave hands the seat to a bot, whose moves would come at any time
        chat = rng.choice([GROUP, user])
        messages = fake.bot_messages(chat)
        if not messages:
            continue
        before = await state(harness, tid)
        callback = fake.press(user, chat, rng.choice(messages).message_id, data)
        await fake.wait_for(lambda: fake.answers[callback], what=f"an answer to {data!r}")
        if user == STRANGER or not data.startswith(("m:", "b:", "L:", "k:", "h:")):
            assert await state(harness, tid) == before, (user, data)
    assert all(len(a) == 1 for a in fake.answers.values())

    group = [
        "/replay",
        "/top",
        "/stats",
        "/join",
        "/leave",
        "/cancel",
        "/newgame",
        "/startgame",
        "/settings",
        "/rules",
        "/help",
    ]
    private = ["/start", "/top", "/stats", "/language", "/rules", "/help"]
    for _ in range(CASES * 2 // 5):
        chat = rng.choice([GROUP, STRANGER])
        command = rng.choice(group if chat == GROUP else private)
        argument = mutate(rng.choice(["join_abc", "global", "#1", "1", "ru"]), rng).replace("\n", " ")
        before, count = await state(harness, tid), len(fake.bot_messages(chat))
        fake.send(STRANGER, chat, f"{command} {argument}")
        await fake.wait_for(lambda: len(fake.bot_messages(chat)) > count, what=f"a reply to {command}")
        assert await state(harness, tid) == before, (command, argument)
    await asyncio.sleep(0.1)
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR or "failed" in r.getMessage()]
    assert not failures, [r.getMessage() for r in failures]
