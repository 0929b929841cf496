"""Two bot processes on one PostgreSQL database behind a load balancer (webhook mode): updates of four
tables spread over both, one process is killed with SIGKILL mid-game, and every game still finishes — with
no move lost or doubled (each log runs 1, 2, 3, … and replays to the stored game), the timers of the killed
process's tables firing in the survivor, and no group ever sent more than Telegram allows."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bot.callbacks import MovePress, PickPress, decode
from engine.actions import TIMEOUT
from engine.snapshot import loads
from storage import Storage
from tests.bot.fake_telegram import TOKEN, FakeTelegram
from tests.bot.players import hand_message, is_result

ROOT = Path(__file__).resolve().parents[2]
GROUPS = (-101, -102, -103, -104)
RATE_SCALE = 0.05  # Telegram's limits twenty times faster: a group may get 20 messages in 3 s
LEASE = 3.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def bot_process(
    api_port: int, database_url: str, hook_port: int, log: Path
) -> asyncio.subprocess.Process:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "BOT_TOKEN": TOKEN,
        "BOT_API_URL": f"http://127.0.0.1:{api_port}/bot",
        "DATABASE_URL": database_url,
        "WEBHOOK_URL": "https://bot.example/durak",
        "WEBHOOK_SECRET": "cluster-test-secret",
        "WEBHOOK_LISTEN": "127.0.0.1",
        "WEBHOOK_PORT": str(hook_port),
        "CLUSTER_LEASE": str(LEASE),
        "AI_WORKERS": "0",
        "RATE_SCALE": str(RATE_SCALE),
        "GROUP_REDRAW_INTERVAL": "0.2",
        "PRIVATE_REDRAW_INTERVAL": "0.05",
        "BOT_MOVE_DELAY": "0.05",
    }
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=ROOT, env=env, stderr=log.open("wb")
    )


async def listening(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    return True


@dataclass
class Cluster:
    fake: FakeTelegram
    bots: list[asyncio.subprocess.Process]
    logs: list[Path]


@contextlib.asynccontextmanager
async def two_processes(tmp_path: Path, postgres_url: str) -> AsyncIterator[Cluster]:
    """Two bot processes on one database, behind the fake's load balancer, stopped with SIGTERM after."""
    fake = FakeTelegram()
    runner, api_port = await fake.serve()
    ports = [_free_port(), _free_port()]
    logs = [tmp_path / f"bot{i}.log" for i in range(2)]
    bots = [await bot_process(api_port, postgres_url, p, log) for p, log in zip(ports, logs, strict=True)]
    try:
        for port in ports:
            for _ in range(600):
                if await listening(port):
                    break
                await asyncio.sleep(0.1)
        fake.balance = [f"http://127.0.0.1:{p}/durak" for p in ports]
        await fake.wait_for(lambda: fake.webhook, timeout=30, what="the webhook set")
        yield Cluster(fake, bots, logs)
    finally:
        for bot in bots:
            if bot.returncode is None:
                bot.send_signal(signal.SIGTERM)
                await asyncio.wait_for(bot.wait(), 30)
        await runner.cleanup()


async def press_some(fake: FakeTelegram, users: list[int], rng: random.Random) -> bool:
    """One of ``users`` presses a move button of their hand; False if nobody has one. An answer that never
    comes (the press went to the process being killed) is not waited for long: the player presses again."""
    for user in rng.sample(users, len(users)):
        hand = hand_message(fake, user)
        choices = [
            data
            for _, data in (hand.buttons() if hand else [])
            if isinstance(decode(data), MovePress | PickPress)
        ]
        if hand is None or not choices:
            continue
        callback = fake.press(user, user, hand.message_id, rng.choice(choices))
        for _ in range(300):
            if fake.answers.get(callback):
                break
            await asyncio.sleep(0.01)
        return True
    return False


def finished(fake: FakeTelegram, group: int) -> bool:
    return any(is_result(m.text) for m in fake.bot_messages(group))


async def test_two_processes_share_the_tables_and_one_killed_stops_no_game(
    tmp_path: Path, postgres_url: str
) -> None:
    async with two_processes(tmp_path, postgres_url) as cluster:
        fake, bots = cluster.fake, cluster.bots

        # Four groups, two players each; every update reaches either process, in turn.
        players = {g: [2 * i + 1, 2 * i + 2] for i, g in enumerate(GROUPS)}
        for group, users in players.items():
            fake.add_group(group, f"Group {group}")
            for user in users:
                fake.add_user(user, f"P{user}")
                fake.send(user, user, "/start")
        for group, (first, second) in players.items():
            fake.send(first, group, "/newgame")
            lobby = await fake.wait_for(
                lambda group=group: next((m for m in fake.bot_messages(group) if m.buttons()), None),  # type: ignore[misc]
                timeout=30,
                what="a lobby",
            )
            table = lobby.buttons()[0][1].split(":")[1]
            for _ in range(2):  # the move timer: 30 -> 60 -> 10 seconds
                fake.press(first, group, lobby.message_id, f"L:{table}:set:move_timer")
                await asyncio.sleep(0.3)
            fake.press(second, group, lobby.message_id, f"L:{table}:join")
            await fake.wait_for(
                lambda group=group, lobby=lobby: (
                    f"P{players[group][1]}" in fake.messages[group][lobby.message_id].text
                ),  # type: ignore[misc]
                timeout=30,
                what="the second player seated",
            )
            fake.press(first, group, lobby.message_id, f"L:{table}:start")
        for users in players.values():
            await fake.wait_for(lambda users=users: any(hand_message(fake, u) for u in users), timeout=30)  # type: ignore[misc]

        rng = random.Random(19)
        for _ in range(6):  # a few moves at every table, through both processes
            for users in players.values():
                await press_some(fake, users, rng)

        # Both processes own chats; kill the one that owns the first group, mid-game, without warning.
        with psycopg.connect(postgres_url) as conn:
            owners = {int(c): str(o) for c, o in conn.execute("SELECT chat_id, owner FROM chat_owners")}
        assert set(owners) == set(GROUPS)
        assert len(set(owners.values())) == 2, owners  # the tables were spread over both
        victim_owner = owners[GROUPS[0]]
        victim = next(b for b in bots if f":{b.pid}:" in victim_owner)
        orphans = [g for g, o in owners.items() if o == victim_owner]
        victim.send_signal(signal.SIGKILL)
        await victim.wait()

        # Nobody presses at the first orphaned table: its timer must fire in the survivor.
        waiting = orphans[0]
        with psycopg.connect(postgres_url) as conn:
            (waiting_game,) = conn.execute(
                "SELECT g.id FROM games AS g JOIN tables AS t ON t.id = g.table_id WHERE t.chat_id = %s",
                (waiting,),
            ).fetchone() or (None,)

        def timed_out() -> bool:
            with psycopg.connect(postgres_url) as conn:
                row = conn.execute(
                    "SELECT COUNT(*) FROM events WHERE game_id = %s AND action = %s", (waiting_game, TIMEOUT)
                ).fetchone()
            return bool(row and row[0])

        for _ in range(3000):
            if all(finished(fake, g) for g in GROUPS):
                break
            pressed = False
            for group, users in players.items():
                if finished(fake, group) or (group == waiting and not timed_out()):
                    continue
                pressed = await press_some(fake, users, rng) or pressed
            if not pressed:
                await asyncio.sleep(0.1)
        assert timed_out(), "the killed process's table never timed out in the survivor"
        assert all(finished(fake, g) for g in GROUPS), [g for g in GROUPS if not finished(fake, g)]

        await every_game_whole(postgres_url, GROUPS)

        # No group ever got more than 20 messages within Telegram's minute (scaled), from either process.
        window = 60 * RATE_SCALE
        for group in GROUPS:
            times = sorted(s.at for s in fake.sent if s.chat_id == group and s.ok)
            worst = max((sum(1 for t in times if a <= t < a + window) for a in times), default=0)
            assert worst <= 20, (group, worst)


async def every_game_whole(postgres_url: str, groups: Sequence[int]) -> None:
    """Each group's game finished, its log runs 1, 2, 3 … with nothing lost or doubled, and it replays to the
    stored game."""
    store = await Storage.open(postgres_url)
    try:
        for group in groups:
            (table,) = await _tables(store, group)
            row = await store.games.current(table)
            assert row is not None and row.finished_at is not None
            log = await store.games.log(row.id)
            assert [a.seq for a in log] == list(range(1, len(log) + 1))
            assert await store.games.replay(row) == loads(row.snapshot)
    finally:
        await store.close()


async def _tables(store: Storage, chat: int) -> list[int]:
    rows = await store.db.fetch_all("SELECT id FROM tables WHERE chat_id = ? ORDER BY id", (chat,))
    return [int(r["id"]) for r in rows]


async def test_a_group_that_becomes_a_supergroup_stays_with_the_process_playing_it(
    tmp_path: Path, postgres_url: str
) -> None:
    """The group's lease moves with it to the new id: the other process forwards the supergroup's updates to
    the one playing its table instead of claiming the new id and restoring a second copy of the game."""
    old, new = -201, -1000000000201
    async with two_processes(tmp_path, postgres_url) as cluster:
        fake, logs = cluster.fake, cluster.logs
        fake.add_group(old, "Friends")
        users = [1, 2]
        for user in users:
            fake.add_user(user, f"P{user}")
            fake.send(user, user, "/start")
        fake.send(1, old, "/newgame")
        lobby = await fake.wait_for(
            lambda: next((m for m in fake.bot_messages(old) if m.buttons()), None), timeout=30, what="a lobby"
        )
        table = lobby.buttons()[0][1].split(":")[1]
        fake.press(2, old, lobby.message_id, f"L:{table}:join")
        await fake.wait_for(lambda: "P2" in fake.messages[old][lobby.message_id].text, timeout=30, what="P2")
        fake.press(1, old, lobby.message_id, f"L:{table}:start")
        await fake.wait_for(lambda: any(hand_message(fake, u) for u in users), timeout=30, what="the hands")
        rng = random.Random(5)
        for _ in range(3):
            await press_some(fake, users, rng)
        with psycopg.connect(postgres_url) as conn:
            (owner,) = conn.execute(
                "SELECT owner FROM chat_owners WHERE chat_id = %s", (old,)
            ).fetchone() or ("",)

        fake.upgrade(old, new)  # the owner learns it from Telegram when it next writes to the group
        for step in range(3000):
            if finished(fake, new):
                break
            if step % 10 == 0:  # group commands in the supergroup reach either process
                fake.send(users[step % 2], new, "/join")
            if not await press_some(fake, users, rng):
                await asyncio.sleep(0.1)
        assert finished(fake, new), "the game did not end in the supergroup"

        with psycopg.connect(postgres_url) as conn:
            leases = {int(c): str(o) for c, o in conn.execute("SELECT chat_id, owner FROM chat_owners")}
        assert leases.get(new) == owner, (owner, leases)
        await every_game_whole(postgres_url, [new])
    lines = [line for log in logs for line in log.read_text().splitlines()]
    restored = [line for line in lines if f"took chat {new} over" in line and "over: 0 tables" not in line]
    assert not restored, restored  # nobody restored a second copy of the table being played
