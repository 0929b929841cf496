"""Load: N tables played at once by simulated users over the fake Bot API (its limits off).

    .venv/bin/python bench/load.py [--tables 100 1000] [--seconds 60]

Each table has two players who press a random button of their hand message as soon as it shows one. Prints
press-to-answer latency (p50, p99), moves applied per second, and the process's peak RSS. The fake API runs
in the same process and event loop as the bot, so the figures include its cost too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.callbacks import MovePress, PickPress, decode
from tests.bot.conftest import start_app, stop_app
from tests.bot.fake_telegram import FakeTelegram
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
    with tempfile.TemporaryDirectory() as tmp:
        app = await start_app(
            fake,
            Path(tmp) / "load.sqlite3",
            private_redraw_interval=0.05,
            bot_move_delay=0.5,
            database_synchronous=synchronous,
        )
        try:
            players = await setup(fake, tables)
            service = app.bot_data["deps"].service
            await fake.wait_for(
                lambda: sum(1 for live in service.live.values() if live.game) == tables,
                timeout=120,
                what="deals",
            )
            moves_before = sum(live.seq for live in service.live.values())
            latencies: list[float] = []
            rng = random.Random(tables)
            until = time.monotonic() + seconds
            started = time.monotonic()
            await asyncio.gather(*(player(fake, u, until, latencies, rng) for pair in players for u in pair))
            elapsed = time.monotonic() - started
            moves = sum(live.seq for live in service.live.values()) - moves_before
            finished = sum(1 for live in service.live.values() if live.result is not None)
        finally:
            await stop_app(app)
    latencies.sort()
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p99 = latencies[int(len(latencies) * 0.99)] * 1000 if latencies else float("nan")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{tables:>6} tables ({synchronous}): {len(latencies):>7,} presses, press→answer p50 {p50:6.1f} ms, p99 {p99:7.1f} ms, "
        f"{moves / elapsed:7.1f} moves/s, {finished} games finished, peak RSS {rss:,.0f} MiB"
    )


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
