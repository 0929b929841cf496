"""Load: N tables played at once by simulated users over the fake Bot API (its limits off).

    .venv/bin/python bench/load.py [--tables 100 1000] [--seconds 60]

The bot runs as its own process (``python -m bot``) and talks real HTTP on 127.0.0.1 to the fake Bot API,
which runs here with the simulated users: each table has two players who press a random button of their hand
message whenever it shows a new one. Prints press-to-answer latency (p50, p99), accepted moves per second,
and the bot process's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.callbacks import MovePress, PickPress, decode
from tests.bot.fake_telegram import TOKEN, FakeTelegram
from tests.bot.players import hand_message


async def setup(fake: FakeTelegram, tables: int) -> list[tuple[int, int]]:
    players = []
    for t in range(tables):
        group = -(t + 1)
        fake.add_group(group, f"Group {t}")
        a, b = 2 * t + 1, 2 * t + 2
        fake.add_user(a, f"A{t}")
        fake.add_user(b, f"B{t}")
        fake.send(a, a, "/start")
        fake.send(b, b, "/start")
        players.append((a, b))
    await fake.wait_for(
        lambda: all(fake.last(u) for pair in players for u in pair), timeout=300, what="welcomes"
    )
    for t, (a, _) in enumerate(players):
        fake.send(a, -(t + 1), "/newgame")
    await fake.wait_for(lambda: all(fake.last(-(t + 1)) for t in range(tables)), timeout=300, what="lobbies")
    for t, (_, b) in enumerate(players):
        lobby = fake.last(-(t + 1))
        assert lobby is not None
        table = lobby.buttons()[0][1].split(":")[1]
        fake.press(b, -(t + 1), lobby.message_id, f"L:{table}:join")
    await asyncio.sleep(1)
    for t, (a, _) in enumerate(players):
        lobby = fake.last(-(t + 1))
        assert lobby is not None
        table = lobby.buttons()[0][1].split(":")[1]
        fake.press(a, -(t + 1), lobby.message_id, f"L:{table}:start")
    return players


async def player(
    fake: FakeTelegram, user: int, until: float, latencies: list[float], rng: random.Random
) -> None:
    """Press a random shown button whenever the hand message changes; sleep on an event otherwise."""
    changed = fake.changed(user)
    pressed: list[str] = []
    while time.monotonic() < until:
        message = hand_message(fake, user)
        choices = (
            []
            if message is None
            else [d for _, d in message.buttons() if isinstance(decode(d), MovePress | PickPress)]
        )
        if message is None or not choices or choices == pressed:  # nothing new to press
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), max(0.01, until - time.monotonic()))
            continue
        changed.clear()
        pressed = choices
        start = time.monotonic()
        callback = fake.press(user, user, message.message_id, rng.choice(choices))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(fake.answered(callback).wait(), max(0.01, until - time.monotonic()))
        if fake.answers[callback]:
            latencies.append(time.monotonic() - start)
        # Wait for the hand to be redrawn before pressing again (a stale keyboard would only get an alert).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(changed.wait(), max(0.01, min(2.0, until - time.monotonic())))


async def run(tables: int, seconds: float, synchronous: str = "FULL") -> None:
    fake = FakeTelegram()
    runner, port = await fake.serve()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "BOT_TOKEN": TOKEN,
            "BOT_API_URL": f"http://127.0.0.1:{port}/bot",
            "DATABASE_PATH": str(Path(tmp) / "load.sqlite3"),
            "DATABASE_SYNCHRONOUS": synchronous,
            "PRIVATE_REDRAW_INTERVAL": "0.05",
            "BOT_MOVE_DELAY": "0.5",
            "LOG_LEVEL": "WARNING",
        }
        profile = (
            ["-m", "cProfile", "-o", os.environ["BENCH_PROFILE"]] if os.environ.get("BENCH_PROFILE") else []
        )
        bot = await asyncio.create_subprocess_exec(sys.executable, *profile, "-m", "bot", env=env, cwd=tmp)
        try:
            await fake.wait_for(lambda: fake.commands, timeout=60, what="the bot to start")
            players = await setup(fake, tables)
            await fake.wait_for(
                lambda: all(hand_message(fake, a) or hand_message(fake, b) for a, b in players),
                timeout=300,
                what="deals",
            )
            latencies: list[float] = []
            accepted_before = _accepted(fake)
            rng = random.Random(tables)
            until = time.monotonic() + seconds
            started = time.monotonic()
            await asyncio.gather(*(player(fake, u, until, latencies, rng) for pair in players for u in pair))
            elapsed = time.monotonic() - started
            moves = _accepted(fake) - accepted_before
            rss = _peak_rss_mib(bot.pid)
        finally:
            bot.terminate()
            await bot.wait()
            await runner.cleanup()
    latencies.sort()
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p99 = latencies[int(len(latencies) * 0.99)] * 1000 if latencies else float("nan")
    print(
        f"{tables:>6} tables ({synchronous}): {len(latencies):>7,} presses, press→answer p50 {p50:6.1f} ms, "
        f"p99 {p99:7.1f} ms, {moves / elapsed:7.1f} accepted moves/s, bot peak RSS {rss:,.0f} MiB"
    )


def _accepted(fake: FakeTelegram) -> int:
    """Presses the bot took (answered without an alert)."""
    return sum(1 for answers in fake.answers.values() if answers and not answers[0].get("show_alert"))


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    args = parser.parse_args()
    for tables in args.tables:
        asyncio.run(run(tables, args.seconds, args.synchronous))


if __name__ == "__main__":
    main()
