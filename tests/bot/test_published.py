"""One way out of a table, through the real bot: random schedules of commands by several people at once (the
style of test_schedules.py), each at a table of its own group, and the screens the fake Bot API holds after
the outbox has drained.

- Every screen a person sees (the group's table message, each hand, the result) shows what the table's last
  published record draws: nothing stale is left.
- No screen is ever drawn from a record older than one it was drawn from already: a screen never goes back.
- Each turn sounds exactly once for its player: a hand is sent anew, sounding, exactly when what it shows
  starts asking something of its player (the table waits for them, a bot took their seat); otherwise it is
  edited, which never sounds.

``PUBLISHED`` (environment) sets how many schedules run: 250 by default (the suite's time); more by hand.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import pytest

from bot.hand_drafts import in_private
from bot.pacing import Key
from bot.service import Published, TableService, Verdict
from engine import Options
from engine.moves import TAKE
from engine.views import view
from storage.records import User, is_former
from tests.bot.conftest import Harness, running
from tests.bot.fake_telegram import FakeTelegram, Sent

# Random schedules of commands; 250 keep the suite within its time (PUBLISHED=5000 by hand for a heavier run).
SCHEDULES = int(os.environ.get("PUBLISHED", "250"))
PEOPLE = 4  # user 1 opens every table
OPTIONS = ["deck", "variant", "draw"]


@pytest.fixture
async def quick(tmp_path: Path) -> AsyncIterator[Harness]:
    # Telegram's limits a thousand times faster: the schedules are about what is shown, not about pace.
    async for h in running(tmp_path, rate_scale=0.001, group_redraw_interval=0.002):
        yield h


LOBBY: dict[str, float] = {"join": 5, "leave": 1, "bot": 1, "option": 1, "start": 2, "move": 3}
PLAY: dict[str, float] = {"move": 12, "pick": 1, "concede": 1, "leave": 0.3}


def commands(rng: random.Random, weights: dict[str, float]) -> list[tuple[str, int]]:
    """A schedule: commands by random people (the creator runs the table), all started together."""
    kinds = rng.choices(list(weights), list(weights.values()), k=rng.randint(3, 10))
    return [(kind, 1 if kind in ("bot", "option", "start") else rng.randint(1, PEOPLE)) for kind in kinds]


def call(
    service: TableService, table_id: int, users: dict[int, User], command: str, user: int, rng: random.Random
) -> Awaitable[Verdict]:
    if command == "join":
        return service.join(table_id, users[user])
    if command == "leave":
        return service.leave(table_id, user)
    if command == "bot":
        return service.add_bot(table_id, user, False)
    if command == "option":
        return service.set_option(table_id, user, False, rng.choice(OPTIONS))
    if command == "start":
        return service.start(table_id, user, False)
    if command == "concede":
        return service.concede(table_id, user, rng.choice(["ask", "no"]))
    record = service.table(table_id)
    game = record.game if record is not None else None
    seat = record.seat_of(user) if record is not None else None
    moves = list(view(game, seat).moves) if game is not None and seat is not None else []
    if command == "pick":
        return service.pick(table_id, user, game.version if game else None, rng.choice([None, *range(36)]))
    if game is None or not moves:  # a button from a hand that has none now
        return service.press(table_id, user, game.version if game else 0, TAKE)
    return service.press(table_id, user, game.version, rng.choice(moves))


async def settle(h: Harness, table_id: int) -> Published:
    """Wait until the table stops changing (bots move on their own) and the outbox has sent everything."""
    service, outbox = h.deps.service, h.deps.outbox
    for _ in range(1000):
        await outbox.idle()
        record = service.table(table_id)
        assert record is not None
        bots = any(record.is_bot_seat(seat) for seat in record.to_act())
        if not bots and outbox.lanes.backlog()[1] == 0:
            await asyncio.sleep(0)
            if service.table(table_id) is record:
                return record
        await asyncio.sleep(0.002)
    raise AssertionError("the table never settled")


def turn(text: str, markup: dict[str, Any] | None) -> str:
    """What a hand shows of its player's turn, read as the player reads it: a bot plays their seat ("I'm
    back"), the table waits for them (the time left), or neither."""
    rows: list[list[dict[str, Any]]] = markup.get("inline_keyboard", []) if markup else []
    if any(str(b.get("callback_data", "")).startswith("b:") for row in rows for b in row):
        return "auto"
    return "clock" if "⏳" in text else "idle"


def hand_screens(sent: list[Sent], user: int) -> list[Sent]:
    """The user's hand as it was sent and edited in their private chat (nothing else goes there here)."""
    return [s for s in sent if s.ok and s.chat_id == user and s.method in ("sendMessage", "editMessageText")]


async def check_screens(h: Harness, record: Published, fake: FakeTelegram) -> None:
    """Every message the table keeps shows what its last record draws."""
    presenter = h.deps.presenter
    shown: list[tuple[Key, int, int | None]] = []
    if record.row.message_id is not None:
        shown.append((("table_message", record.id, -1), record.row.chat_id, record.row.message_id))
    if record.game_row is not None and record.game_row.result_message_id:
        shown.append((("result", record.id, -1), record.row.chat_id, record.game_row.result_message_id))
    for at in record.row.seats:
        user = await h.deps.storage.users.get(at.user_id) if at.user_id is not None else None
        if user is not None and not is_former(user.id) and in_private(user) and at.hand_message_id:
            shown.append((("hand", record.id, at.seat), user.id, at.hand_message_id))
    for key, chat, message_id in shown:
        draft = await presenter.draft(key)
        message = fake.messages.get(chat, {}).get(message_id or 0)
        assert draft is not None and message is not None, key
        assert message.text == draft.text, (key, message.text, draft.text)
        markup = draft.keyboard.to_dict() if draft.keyboard is not None else None
        assert (message.reply_markup or None) == (markup or None), key


def check_sounds(sent: list[Sent], user: int) -> None:
    """A hand is sent anew, sounding, exactly when it starts asking something of its player."""
    before = "none"
    for s in hand_screens(sent, user):
        now = turn(s.text, s.markup)
        if s.method == "sendMessage" and before != "none":
            assert s.sound and now != before and now in ("clock", "auto"), (user, before, now, s.text)
        elif s.method == "editMessageText":
            assert not (now != before and now in ("clock", "auto")), (user, before, now, s.text)
        before = now


async def test_every_screen_shows_the_last_record_never_goes_back_and_each_turn_sounds_once(
    quick: Harness,
) -> None:
    h, fake = quick, quick.fake
    storage, presenter = h.deps.storage, h.deps.presenter
    users: dict[int, User] = {}
    for user in range(1, PEOPLE + 1):
        fake.add_user(user, f"P{user}", started=True)
        await storage.users.seen(User(id=user, first_name=f"P{user}"))
        await storage.users.set_started(user)
        found = await storage.users.get(user)
        assert found is not None
        users[user] = found
    drawn: dict[Key, int] = {}
    draft = presenter.draft

    async def logged(key: Key) -> Any:
        record = presenter.records.get(key[1])
        if record is not None:
            assert record.version >= drawn.get(key, 0), ("a screen went back", key)
            drawn[key] = record.version
        return await draft(key)

    presenter.draft = logged  # type: ignore[method-assign]  # the outbox asks through it
    for seed in range(SCHEDULES):
        await run_schedule(h, users, seed)


async def run_schedule(h: Harness, users: dict[int, User], seed: int) -> None:
    fake, service = h.fake, h.deps.service
    rng = random.Random(seed)
    chat = -5000 - seed
    fake.add_group(chat, "Friends")
    await h.deps.storage.chats.seen(chat, "group", "Friends")
    first = len(fake.sent)
    opened = await service.open_lobby(chat, 0, users[1], "Friends", Options())
    assert opened.ok and opened.table_id is not None
    table_id = opened.table_id

    async def one(command: str, user: int) -> Verdict:
        for _ in range(rng.randint(0, 6)):  # arrive in a random order, between the others' awaits
            await asyncio.sleep(0)
        return await call(service, table_id, users, command, user, rng)

    # The lobby and a deal, then a few rounds of play: each round's presses at once.
    for weights in [LOBBY] + [PLAY] * rng.randint(0, 3):
        await asyncio.gather(*(one(*c) for c in commands(rng, weights)))
        await asyncio.sleep(rng.choice([0, 0, 0.002, 0.01]))
    record = await settle(h, table_id)
    await check_screens(h, record, fake)
    for user in users:
        check_sounds(fake.sent[first:], user)
    if record.open:  # the next schedule's people start with no table waiting for them
        assert (await service.cancel(table_id, 1, True)).ok
        await settle(h, table_id)
