"""The outbox under a busy group: a table always in play (one person and two bots) while members send commands,
against a fake Bot API that enforces Telegram's limits and answers some sends with a 429.

    .venv/bin/python bench/outbox.py [--minutes 10] [--scale 0.05] [--every 5] [--faults 0.03]

Time runs ``1/scale`` times faster than Telegram's (the bot's RATE_SCALE and the fake's limits alike); every
figure is printed in Telegram's time. Prints the command-to-reply time (p50, p99, max), the most messages one
group got in any 60 s, replies lost, 429s the bot was sent and sends it made before a 429's retry_after ran out.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.callbacks import LobbyPress, decode
from tests.bot.conftest import start_app, stop_app
from tests.bot.fake_telegram import ApiError, FakeTelegram, Message, RateLimits
from tests.bot.players import hand_message

GROUP = -100
COMMANDS = ("/top", "/stats", "/help", "/rules", "/top global")


async def keep_a_table(fake: FakeTelegram, until: float, rng: random.Random) -> None:
    """Ann opens a table with two bots and plays it; when it ends, the next one."""
    while time.monotonic() < until:
        before = len(fake.bot_messages(GROUP))
        fake.send(1, GROUP, "/newgame")
        lobby = await fake.wait_for(
            lambda: next((m for m in fake.bot_messages(GROUP)[before:] if _table(m)), None),  # noqa: B023
            timeout=120,
        )
        table = _table(lobby)
        for data in (f"L:{table}:bot", f"L:{table}:bot", f"L:{table}:start"):
            fake.press(1, GROUP, lobby.message_id, data)
            await asyncio.sleep(0.05)
        while time.monotonic() < until:
            hand = hand_message(fake, 1)
            moves = [d for _, d in hand.buttons() if d.startswith(("m:", "k:"))] if hand else []
            if hand is not None and not hand.buttons() and "Your hand" in hand.text and "place" in hand.text:
                break
            if moves:
                fake.press(1, 1, hand.message_id, rng.choice(moves))  # type: ignore[union-attr]
            await asyncio.sleep(0.1)
            if not fake.bot_messages(GROUP) or "Game over" in fake.bot_messages(GROUP)[-1].text:
                break


def _table(message: Message) -> int | None:
    """The table of a lobby message (None for any other message)."""
    pressed = [p for _, d in message.buttons() if isinstance(p := decode(d), LobbyPress)]
    return pressed[0].table_id if pressed else None


async def chatter(
    fake: FakeTelegram, until: float, every: float, rng: random.Random, asked: dict[int, float]
) -> None:
    """Members send a command now and then; each is timed until its reply."""
    while time.monotonic() < until:
        await asyncio.sleep(rng.expovariate(1 / every))
        message_id = fake.send(rng.choice([2, 3, 4]), GROUP, rng.choice(COMMANDS))
        asked[message_id] = time.monotonic()


async def faults(fake: FakeTelegram, until: float, share: float, rng: random.Random) -> None:
    """Now and then the next send or edit into the group is answered with a 429."""
    while time.monotonic() < until:
        await asyncio.sleep(0.2)
        if rng.random() < share * 5:
            method = rng.choice(["sendMessage", "editMessageText"])
            wait = fake.limits.scale if fake.limits else 1.0  # one Telegram second
            fake.fail_next(method, ApiError(429, "Too Many Requests: retry after 1", retry_after=wait))


async def run(minutes: float, scale: float, every: float, share: float) -> None:
    fake = FakeTelegram()
    fake.limits = RateLimits(scale=scale, scale_retry=True)
    fake.add_group(GROUP, "Busy")
    for user, name in ((1, "Ann"), (2, "Bob"), (3, "Cid"), (4, "Dan")):
        fake.add_user(user, name)
        fake.send(user, user, "/start")
    rng = random.Random(1)
    asked: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        app = await start_app(
            fake,
            Path(tmp) / "outbox.sqlite3",
            rate_scale=scale,
            group_redraw_interval=3.0 * scale,
            private_redraw_interval=1.0 * scale,
            bot_move_delay=1.5 * scale,
        )
        until = time.monotonic() + minutes * 60 * scale
        try:
            await asyncio.gather(
                keep_a_table(fake, until, rng),
                chatter(fake, until, every * scale, rng, asked),
                faults(fake, until, share, rng),
            )
            await asyncio.sleep(30 * scale)  # the last replies
        finally:
            await stop_app(app)
    answered = {m.reply_to: m for m in fake.bot_messages(GROUP) if m.reply_to in asked}
    latency = sorted((m.at - asked[r]) / scale for r, m in answered.items())
    ok = [s.at for s in fake.sent if s.ok and s.chat_id == GROUP]
    window = 60 * scale
    busiest = max((sum(1 for t in ok if a <= t < a + window) for a in ok), default=0)
    refused = sum(1 for s in fake.sent if not s.ok and s.chat_id == GROUP)
    print(f"{minutes:g} Telegram minutes at scale {scale}: {len(asked)} commands, {len(ok)} group messages")
    if latency:
        p99 = latency[min(len(latency) - 1, int(len(latency) * 0.99))]
        print(
            f"command -> reply: p50 {statistics.median(latency):.1f} s, p99 {p99:.1f} s, max {latency[-1]:.1f} s"
        )
    print(f"replies lost: {len(asked) - len(answered)}")
    print(f"most messages into the group in any 60 s: {busiest} (Telegram allows 20)")
    print(
        f"sends refused (429 and others): {refused}; sent before retry_after ran out: {len(fake.too_early)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="Telegram minutes to play")
    parser.add_argument("--scale", type=float, default=0.05, help="time scale (0.05: 20 times faster)")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between commands, on average")
    parser.add_argument("--faults", type=float, default=0.03, help="share of 0.2 s ticks that inject a 429")
    args = parser.parse_args()
    asyncio.run(run(args.minutes, args.scale, args.every, args.faults))


if __name__ == "__main__":
    main()
