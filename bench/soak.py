"""Soak: one bot process plays thousands of short games across hundreds of groups for many minutes, and its
RSS and the size of every in-memory map are sampled every few seconds.

    .venv/bin/python bench/soak.py [--minutes 25] [--warm-up 13] [--groups 600] [--at-once 8] [--every 10]

The bot runs as its own process (``python -m bot``, SQLite in a temporary directory, METRICS_PORT on) against
the fake Bot API over real HTTP, Telegram's limits off. ``--at-once`` sessions run side by side, one after the
other: a player (a new one half of the time) opens a table in a group (a new group half of the time, until
``--groups`` have been seen, then old ones), adds a computer player, deals and leaves at once, so computer
players play the game out (a game nobody watches is played at once) and its result is shown. Every
``--every`` seconds a line: minutes, games ended, groups and players seen, the bot's RSS, and each map
(/metrics: ``durak_memory_entries`` by map, ``durak_live_tables``). At the end: the RSS growth after the
warm-up (``--warm-up`` minutes: a finished table stays in memory for its last redraws, 10 minutes and 2 more
for a rematch button to go, so the tables in memory level off only then), and for each map its size at the
end of the warm-up and at the end, against the groups seen then: a map that follows every group ever seen
grows with them; one that is bounded, or freed when its chat, table or job goes, levels off.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import _free_port, _listening
from tests.bot.fake_telegram import TOKEN, FakeTelegram, Message

GAUGE = re.compile(r'^durak_(memory_entries\{map="(\w+)"\}|restorable\{status="(\w+)"\}) ([0-9.e+]+)$')


@dataclass
class Seen:
    groups: list[int] = field(default_factory=list)
    users: list[int] = field(default_factory=list)
    games: int = 0
    stuck: int = 0  # sessions that did not reach a result in time (a defect, if any)
    busy: set[int] = field(default_factory=set)  # groups with a session under way


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def scrape(http: aiohttp.ClientSession, port: int) -> dict[str, float]:
    """The bot's maps now: ``durak_memory_entries`` by map, and the live tables in all."""
    async with http.get(f"http://127.0.0.1:{port}/metrics") as response:
        text = await response.text()
    sizes: dict[str, float] = {"restorable": 0.0}
    for line in text.splitlines():
        found = GAUGE.match(line)
        if found is None:
            continue
        if found.group(2):
            sizes[found.group(2)] = float(found.group(4))
        else:
            sizes["restorable"] += float(found.group(4))
    return sizes


async def session(fake: FakeTelegram, seen: Seen, rng: random.Random, groups: int) -> None:
    """One short game: open, add a computer player, deal, leave; wait for the result."""
    if not seen.groups or (len(seen.groups) < groups and rng.random() < 0.5):
        group = -(len(seen.groups) + 1)
        fake.add_group(group, f"Group {len(seen.groups) + 1}")
        seen.groups.append(group)
    else:
        group = rng.choice(seen.groups)
    if not seen.users or rng.random() < 0.5:
        user = len(seen.users) + 1
        fake.add_user(user, f"P{user}", started=False)
        seen.users.append(user)
    else:
        user = rng.choice(seen.users)
    if group in seen.busy:  # a table of this group still plays: another session's turn
        return
    seen.busy.add(group)
    try:
        count = len(fake.bot_messages(group))
        fake.send(user, group, "/newgame")
        lobby: Message = await fake.wait_for(
            lambda: next((m for m in fake.bot_messages(group)[count:] if _lobby(m)), None), 60, "a lobby"
        )
        table = _lobby(lobby)
        for action in ("bot", "start"):
            callback = fake.press(user, group, lobby.message_id, f"L:{table}:{action}")
            await asyncio.wait_for(fake.answered(callback).wait(), 60)
        fake.send(user, group, "/leave")
        await fake.wait_for(
            lambda: any("Game over" in m.text for m in fake.bot_messages(group)[count:]), 120, "the result"
        )
        seen.games += 1
    except (TimeoutError, AssertionError):
        seen.stuck += 1
    finally:
        seen.busy.discard(group)


def _lobby(message: Message) -> str | None:
    data = next((d for _, d in message.buttons() if d.startswith("L:") and d.endswith(":start")), None)
    return data.split(":")[1] if data else None


async def run(minutes: float, warm_up: float, groups: int, at_once: int, every: float) -> None:
    fake = FakeTelegram()
    runner, port = await fake.serve()
    metrics = _free_port()
    rng = random.Random(7)
    seen = Seen()
    samples: list[tuple[float, int, int, float, dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "BOT_TOKEN": TOKEN,
            "BOT_API_URL": f"http://127.0.0.1:{port}/bot",
            "DATABASE_PATH": str(Path(tmp) / "soak.sqlite3"),
            "LOG_LEVEL": "WARNING",
            "AI_WORKERS": "1",
            "AI_BUDGET_SCALE": "0.02",  # quick decisions: the games, not the thinking, are soaked
            "BOT_MOVE_DELAY": "0",
            "METRICS_PORT": str(metrics),
        }
        bot = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", env=env, cwd=tmp)
        try:
            await fake.wait_for(lambda: fake.commands, 60, "the bot to start")
            await fake.wait_for(lambda: _listening(metrics), 60, "the metrics port")
            started = time.monotonic()
            until = started + minutes * 60

            async def player() -> None:
                while time.monotonic() < until:
                    await session(fake, seen, rng, groups)
                    await asyncio.sleep(0.01)

            async def sample(http: aiohttp.ClientSession) -> None:
                while time.monotonic() < until:
                    sizes = await scrape(http, metrics)
                    at = (time.monotonic() - started) / 60
                    samples.append((at, len(seen.groups), seen.games, rss_mib(bot.pid), sizes))
                    shown = " ".join(f"{k} {v:.0f}" for k, v in sorted(sizes.items()))
                    print(
                        f"{at:5.1f} min  games {seen.games:5d}  groups {len(seen.groups):4d}  players"
                        f" {len(seen.users):5d}  RSS {samples[-1][3]:6.1f} MiB  {shown}",
                        flush=True,
                    )
                    await asyncio.sleep(every)

            async with aiohttp.ClientSession() as http:
                await asyncio.gather(sample(http), *(player() for _ in range(at_once)))
        finally:
            bot.terminate()
            await bot.wait()
            await runner.cleanup()
    report(samples, seen, warm_up)


def report(
    samples: list[tuple[float, int, int, float, dict[str, float]]], seen: Seen, warm_up: float
) -> None:
    if len(samples) < 4:
        print("too short to tell")
        return
    warm = next((s for s in samples if s[0] >= warm_up), samples[len(samples) // 2])
    last = samples[-1]
    growth = (last[3] - warm[3]) / warm[3]
    print(
        f"\n{seen.games} games in {last[0]:.1f} min, {len(seen.groups)} groups, {len(seen.users)} players,"
        f" {seen.stuck} sessions without a result"
    )
    print(
        f"RSS after the warm-up ({warm[0]:.1f} min): {warm[3]:.1f} MiB; at the end: {last[3]:.1f} MiB"
        f" ({growth:+.1%}); peak {max(s[3] for s in samples):.1f} MiB"
    )
    print(f"{'map':20} {'warm-up':>8} {'end':>8} {'peak':>8}   groups seen {warm[1]} → {last[1]}")
    for name in sorted(last[4]):
        peak = max(s[4].get(name, 0.0) for s in samples)
        print(f"{name:20} {warm[4].get(name, 0.0):8.0f} {last[4][name]:8.0f} {peak:8.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=25.0)
    parser.add_argument("--warm-up", type=float, default=13.0, help="minutes before RSS growth is measured")
    parser.add_argument("--groups", type=int, default=600, help="groups seen in all (new ones until then)")
    parser.add_argument("--at-once", type=int, default=8, help="sessions side by side")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between two samples")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args.minutes, args.warm_up, args.groups, args.at_once, args.every))


if __name__ == "__main__":
    main()
