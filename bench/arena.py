"""What a group receives for an arena (docs/groups.md, "Game night"): arenas of 8, 16 and 32 players, two a
table, played at a human pace through the real bot and a fake Bot API that keeps every call and enforces
Telegram's limits, ten times faster than life (the arena's minutes too).

    .venv/bin/python bench/arena.py [--players 8 16 32] [--minutes 10] [--size 2] [--pace 2 6]

Every player starts the bot (cards in private), joins, and presses a move of their hand LO to HI seconds after
it shows one. For each arena it prints, per minute of the arena (as Telegram counts, in real minutes): the
group's calls (median and busiest minute; Telegram allows about 20), how many of them were the arena's
message and its podium, and the answers to commands; private messages; games finished; calls Telegram
refused (429). The group's calls stay the same whether 8 or 32 play: one message for the whole arena.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.callbacks import ArenaPress, encode
from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.fake_telegram import FakeTelegram, RateLimits
from tests.bot.players import GROUP, hand_message, move_choices, press_and_wait, welcome

SCALE = 0.1  # Telegram's limits, and the arena's minutes, ten times faster


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def arena(
    players: int, minutes: int, size: int, pace: tuple[float, float], seed: int
) -> dict[str, float]:
    fake = FakeTelegram(limits=RateLimits(scale=SCALE))
    rng = random.Random(seed)
    scaled = {
        "rate_scale": SCALE,
        "group_redraw_interval": 3.0 * SCALE,
        "private_redraw_interval": 1.0 * SCALE,
        "arena_minute": 60.0 * SCALE,
        "bot_move_delay": 0.01,
        "log_level": "WARNING",
    }
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "arena.sqlite3"
        h = Harness(fake, await start_app(fake, db, **scaled), db)
        try:
            await welcome(h, [f"P{i}" for i in range(1, players + 1)])
            first = len(fake.sent)
            fake.send(1, GROUP, f"/arena {minutes} {size}")
            message = await fake.wait_for(
                lambda: next((m for m in fake.bot_messages(GROUP) if m.buttons()), None), what="the arena"
            )
            started = time.monotonic()
            for user in range(2, players + 1):
                await press_and_wait(fake, user, GROUP, message.message_id, encode(ArenaPress(1, "join")))
            storage = h.deps.storage

            async def over() -> bool:
                row = await storage.arenas.get(1)
                return row is None or row.finished

            async def player(user: int) -> None:
                while not await over():
                    hand = hand_message(fake, user)
                    if hand is None or not move_choices(hand.reply_markup):
                        await asyncio.sleep(0.02)
                        continue
                    await asyncio.sleep(rng.uniform(*pace) * SCALE)  # thinking
                    hand = hand_message(fake, user)
                    choices = move_choices(hand.reply_markup) if hand is not None else []
                    if hand is not None and choices:
                        fake.press(user, user, hand.message_id, rng.choice(choices))

            await asyncio.gather(*(player(u) for u in range(1, players + 1)))
            await h.deps.outbox.idle()
            ended = time.monotonic()
            row = await storage.arenas.get(1)
            games = len({g.table_id for g in row.games if g.base is not None}) if row else 0
        finally:
            await stop_app(h.app)
    sent = [s for s in fake.sent[first:] if s.ok]
    window = 60 * SCALE
    group = [s.at for s in sent if s.chat_id == GROUP and s.receiver is None]
    starts = [started + i * window for i in range(max(1, int((ended - started) / window)))]
    per_minute = [sum(1 for t in group if a <= t < a + window) for a in starts]
    real_minutes = (ended - started) / window
    arena_calls = sum(1 for s in sent if s.chat_id == GROUP and s.receiver is None and "Arena" in s.text)
    return {
        "minutes": real_minutes,
        "median": percentile(per_minute, 0.5),
        "busiest": max(per_minute, default=0),
        "arena": arena_calls / real_minutes,
        "group": len(group) / real_minutes,
        "private": sum(1 for s in sent if s.chat_id > 0) / real_minutes,
        "games": games,
        "refused": sum(1 for s in fake.sent[first:] if not s.ok),
    }


async def run(sizes: list[int], minutes: int, size: int, pace: tuple[float, float]) -> None:
    print(
        f"arena of {minutes} minutes, {size} a table, moves {pace[0]:g}-{pace[1]:g} s apart, limits x{1 / SCALE:g}"
    )
    print(
        "players  minutes  group calls a minute: median busiest (arena msg)  private a minute  games  refused"
    )
    for players in sizes:
        found = await arena(players, minutes, size, pace, seed=players)
        print(
            f"{players:7d}  {found['minutes']:7.1f}  {found['median']:28.0f} {found['busiest']:7d}"
            f" ({found['arena']:4.1f})  {found['private']:16.1f}  {found['games']:5d}  {found['refused']:7d}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, nargs="+", default=[8, 16, 32])
    parser.add_argument("--minutes", type=int, default=10)
    parser.add_argument("--size", type=int, choices=(2, 3), default=2)
    parser.add_argument("--pace", type=float, nargs=2, default=(2.0, 6.0))
    args = parser.parse_args()
    asyncio.run(run(args.players, args.minutes, args.size, (args.pace[0], args.pace[1])))


if __name__ == "__main__":
    main()
