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
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import psycopg

from bot.callbacks import MovePress, PickPress, decode
from engine.actions import TIMEOUT
from engine.snapshot import loads
from storage import Storage
from tests.bot.fake_telegram import TOKEN, FakeTelegram
from tests.bot.players import hand_message, is_result
from tests.bot.web import Page as WebPage
from tests.bot.web import signed

ROOT = Path(__file__).resolve().parents[2]
GROUPS = (-101, -102, -103, -104)
RATE_SCALE = 0.05  # Telegram's limits twenty times faster: a group may get 20 messages in 3 s
LEASE = 3.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def bot_process(
    api_port: int, database_url: str, hook_port: int, log: Path, web_port: int | None = None
) -> asyncio.subprocess.Process:
    env = {
        **({"WEB_PORT": str(web_port)} if web_port is not None else {}),
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
    web: list[str]  # each process's web table (with web=True)


@contextlib.asynccontextmanager
async def two_processes(tmp_path: Path, postgres_url: str, *, web: bool = False) -> AsyncIterator[Cluster]:
    """Two bot processes on one database, behind the fake's load balancer, stopped with SIGTERM after."""
    fake = FakeTelegram()
    runner, api_port = await fake.serve()
    ports = [_free_port(), _free_port()]
    web_ports = [_free_port(), _free_port()] if web else [None, None]
    logs = [tmp_path / f"bot{i}.log" for i in range(2)]
    bots = [
        await bot_process(api_port, postgres_url, p, log, w)
        for p, log, w in zip(ports, logs, web_ports, strict=True)
    ]
    try:
        for port in [*ports, *(w for w in web_ports if w is not None)]:
            for _ in range(600):
                if await listening(port):
                    break
                await asyncio.sleep(0.1)
        fake.balance = [f"http://127.0.0.1:{p}/durak" for p in ports]
        await fake.wait_for(lambda: fake.webhook, timeout=30, what="the webhook set")
        yield Cluster(fake, bots, logs, [f"http://127.0.0.1:{w}" for w in web_ports if w is not None])
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


async def dealt(fake: FakeTelegram, group: int, users: list[int]) -> int:
    """A table of two in a new group, opened by the first, joined by the second and dealt; its id."""
    fake.add_group(group, f"Group {group}")
    for user in users:
        fake.add_user(user, f"P{user}")
        fake.send(user, user, "/start")
    fake.send(users[0], group, "/newgame")
    lobby = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(group) if m.buttons()), None), timeout=30, what="a lobby"
    )
    table = lobby.buttons()[0][1].split(":")[1]
    fake.press(users[1], group, lobby.message_id, f"L:{table}:join")
    second = f"P{users[1]}"
    await fake.wait_for(
        lambda: second in fake.messages[group][lobby.message_id].text, timeout=30, what=second
    )
    fake.press(users[0], group, lobby.message_id, f"L:{table}:start")
    await fake.wait_for(lambda: any(hand_message(fake, u) for u in users), timeout=30, what="the hands")
    return int(table)


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
        users = [1, 2]
        await dealt(fake, old, users)
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


async def test_a_page_opened_at_any_process_plays_its_table_and_follows_it_when_its_process_dies(
    tmp_path: Path, postgres_url: str
) -> None:
    """The web table behind a load balancer: both players' pages open their sockets at the process that does
    not play the table, are relayed to the one that does, and see every move; when that one is killed, the
    pages open again, the survivor takes the table over, and the game ends through the pages."""
    group = -301
    async with two_processes(tmp_path, postgres_url, web=True) as cluster:
        fake, bots = cluster.fake, cluster.bots
        users = [1, 2]
        table = await dealt(fake, group, users)
        with psycopg.connect(postgres_url) as conn:
            (owner,) = conn.execute(
                "SELECT owner FROM chat_owners WHERE chat_id = %s", (group,)
            ).fetchone() or ("",)
        playing = next(i for i, b in enumerate(bots) if f":{b.pid}:" in owner)
        elsewhere = cluster.web[1 - playing]

        pages = [await opened(elsewhere, user, table) for user in users]
        rng = random.Random(7)
        for _ in range(4):
            await play(pages, rng)
        seen = pages[0].state["game"]["version"]

        bots[playing].send_signal(signal.SIGKILL)
        await bots[playing].wait()
        for page in pages:  # the relay closes with the process behind it
            await asyncio.wait_for(page.reader, 10)
            await page.session.close()
        pages = [await opened(elsewhere, user, table, tries=200) for user in users]
        assert pages[0].state["game"]["version"] >= seen  # the survivor restored every move made
        for _ in range(500):
            if pages[0].state.get("result"):
                break
            await play(pages, rng)
        await fake.wait_for(lambda: finished(fake, group), timeout=30, what="the result in the group")
        for page in pages:
            await wait_until(page, lambda state: bool(state.get("result")))
        for page in pages:
            await page.close()
        await every_game_whole(postgres_url, [group])


async def play(pages: list[WebPage], rng: random.Random) -> None:
    """Whoever's page has a move plays one, and every page is shown it."""
    before = pages[0].state["game"]["version"]
    for page in rng.sample(pages, len(pages)):
        refused = len(page.refusals)
        if await page.play_one(rng):
            break
    else:
        await asyncio.sleep(0.05)  # a bot's move, a deal: the next state shows who is to move
        return
    for _ in range(500):
        if len(page.refusals) > refused:  # faster than a page may tap: a breath, then again
            assert "Too many taps" in page.refusals[-1], page.refusals
            await asyncio.sleep(0.5)
            return
        if page.state["game"]["version"] > before:
            break
        await asyncio.sleep(0.02)
    for page in pages:
        await wait_until(page, lambda state: state["game"]["version"] > before)


async def opened(url: str, user: int, table: int, tries: int = 50) -> WebPage:
    """A player's page whose first state came (the socket is tried again while the table's process cannot
    be reached)."""
    for _ in range(tries):
        try:
            page = await WebPage.at(url, signed(user, f"P{user}", table), table)
        except aiohttp.WSServerHandshakeError as exc:
            assert exc.status == 503, exc  # only "not now" may come: never refused, never gone
            await asyncio.sleep(0.2)
            continue
        await wait_until(page, lambda state: True)
        return page
    raise AssertionError("the page never opened")


async def wait_until(page: WebPage, ready: Callable[[dict[str, Any]], bool], timeout: float = 15) -> None:
    """Until the page was sent a state ``ready`` accepts."""
    for _ in range(int(timeout / 0.02)):
        if page.states and ready(page.state):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the page never showed it; refused {page.refusals}, has {page.states[-1:]}")
