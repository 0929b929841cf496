"""One table driven by several people at once: random schedules of lobby and play commands, all started
together and interleaved at random, over a real database.

Every command takes the table's lock once, and asyncio's lock is fair, so the order in which the commands took
it is the order they happened in. A plain model of the lobby replays the commands in that order and must agree
with every answer the table gave; after each schedule the seats, the options and the status are the model's,
the seats are numbered without gaps, and the stored table equals the table in memory.

``SCHEDULES`` (environment) sets how many schedules run: 350 by default (the suite's time); more by hand.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

from bot.service import Table, TableService, Verdict
from engine import Options, OptionsError
from engine.moves import TAKE
from engine.options import cycle
from engine.views import view
from storage import Storage
from storage.records import TableStatus, User
from tests.bot.test_service import service_over

SCHEDULES = int(os.environ.get("SCHEDULES", "350"))
PEOPLE = 5  # user 1 opens every table
OPTIONS = ["move_timer", "deck", "seats", "teams", "variant", "draw"]


class OrderedLock(asyncio.Lock):
    """The table's lock, writing down which task took it, in the order they took it."""

    def __init__(self, order: list[asyncio.Task[Any] | None]) -> None:
        super().__init__()
        self.order = order

    async def acquire(self) -> Literal[True]:
        taken = await super().acquire()
        self.order.append(asyncio.current_task())
        return taken


@dataclass
class Lobby:
    """The model: what a table's lobby must look like after the commands, applied one after the other."""

    options: Options = field(default_factory=Options)
    seats: list[int | None] = field(default_factory=lambda: [1])
    status: TableStatus = TableStatus.LOBBY

    def apply(self, command: str, user: int, arg: str) -> bool | None:
        """Whether ``command`` must succeed now (None: the model does not say, a move), applying it."""
        lobby = self.status is TableStatus.LOBBY
        if command == "join":
            ok = lobby and user not in self.seats and len(self.seats) < self.options.max_players
            if ok:
                self.seats.append(user)
            return ok
        if command == "leave":
            if user not in self.seats or self.status is TableStatus.CANCELLED:
                return False
            if lobby:
                self.seats.remove(user)
            return True  # in a game a bot takes the seat
        if command == "cancel":
            ok = user == 1 and self.status is not TableStatus.CANCELLED
            if ok:
                self.status = TableStatus.CANCELLED
            return ok
        if command in ("bot", "option", "start") and (not lobby or user != 1):
            return False
        if command == "bot":
            ok = len(self.seats) < self.options.max_players
            if ok:
                self.seats.append(None)
            return ok
        if command == "option":
            self.options = cycle(self.options, arg)
            return True
        if command == "start":
            try:
                self.options.check_players(len(self.seats))
            except OptionsError:
                return False
            self.status = TableStatus.PLAYING
            return True
        return None  # a move: the engine decides


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(tmp_path / "schedules.sqlite3", synchronous="NORMAL")
    for user in range(1, PEOPLE + 1):
        await opened.users.seen(User(id=user, first_name=f"P{user}"))
        await opened.users.set_started(user)
    yield opened
    await opened.close()


def commands(rng: random.Random) -> list[tuple[str, int, str]]:
    """A schedule: joins, leaves, bots, options, a start or two, moves and now and then a cancel."""
    weights = {"join": 5, "leave": 3, "bot": 1, "option": 2, "start": 1.5, "move": 6, "cancel": 0.3}
    kinds = rng.choices(list(weights), list(weights.values()), k=rng.randint(6, 24))
    # The creator runs the table most of the time; anybody else's press is refused.
    runs = ("bot", "option", "start", "cancel")
    return [
        (kind, 1 if kind in runs and rng.random() < 0.7 else rng.randint(1, PEOPLE), rng.choice(OPTIONS))
        for kind in kinds
    ]


def call(
    table: Table, users: dict[int, User], command: str, user: int, arg: str, rng: random.Random
) -> Awaitable[Verdict]:
    if command == "join":
        return table.lobby.join(users[user])
    if command == "leave":
        return table.lobby.leave(user)
    if command == "bot":
        return table.lobby.add_bot(user, False)
    if command == "option":
        return table.lobby.set_option(user, False, arg)
    if command == "start":
        return table.lobby.start(user, False)
    if command == "cancel":
        return table.lobby.cancel(user, False)
    game, seat = table.game, table.seat_of(user)
    moves = list(view(game, seat).moves) if game is not None and seat is not None else []
    if game is None or not moves:  # a button from a hand that has none now
        return table.play.press(user, game.version if game else 0, TAKE)
    return table.play.press(user, game.version, rng.choice(moves))


async def run_schedule(service: TableService, users: dict[int, User], chat: int, rng: random.Random) -> None:
    opened = await service.open_lobby(chat, 0, users[1], "Friends", Options())
    assert opened.ok and opened.table_id is not None
    table = service.tables[opened.table_id]
    order: list[asyncio.Task[Any] | None] = []
    table.lock = OrderedLock(order)
    schedule = commands(rng)

    async def one(command: str, user: int, arg: str) -> Verdict:
        for _ in range(rng.randint(0, 6)):  # arrive in a random order, between the others' awaits
            await asyncio.sleep(0)
        for _ in range(rng.randint(0, 20) if command == "move" else 0):  # moves come in a game, mostly
            if table.game is not None:
                break
            await asyncio.sleep(0.001)
        return await call(table, users, command, user, arg, rng)

    tasks = [asyncio.ensure_future(one(*c)) for c in schedule]
    verdicts = await asyncio.gather(*tasks)
    assert sorted(map(id, order)) == sorted(map(id, tasks)), "every command takes the lock exactly once"

    model = Lobby()
    for task in order:
        assert task is not None
        command, user, arg = schedule[tasks.index(task)]
        expected = model.apply(command, user, arg)
        got = verdicts[tasks.index(task)]
        if expected is not None:
            assert got.ok == expected, (command, user, arg, got, [schedule[tasks.index(t)] for t in order])  # type: ignore[arg-type]

    stored = await service.storage.tables.get(table.id)
    assert stored == table.row, "the stored table equals the table in memory"
    assert [s.seat for s in stored.seats] == list(range(len(stored.seats))), "seats without gaps"
    assert [s.user_id for s in stored.seats] == model.seats, "seated: exactly the successful joins not undone"
    assert stored.options == model.options, "no option change is lost"
    assert stored.status == model.status
    if table.game is not None:
        current = await service.storage.games.current(table.id)
        assert current is not None and current.version == table.game.version


async def test_random_schedules_of_lobby_and_play_commands_keep_the_table_whole(storage: Storage) -> None:
    service, *_ = service_over(storage)
    users: dict[int, User] = {}
    for user in range(1, PEOPLE + 1):
        found = await storage.users.get(user)
        assert found is not None
        users[user] = found
    for seed in range(SCHEDULES):
        chat = -1000 - seed
        await storage.chats.seen(chat, "group", "Friends")
        await run_schedule(service, users, chat, random.Random(seed))
        service.tables.clear()  # the next schedule's table starts with memory as a restart leaves it
