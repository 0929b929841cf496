"""Messages per game and per move, and how many turns a player feels: whole games played by people pressing
random buttons through the real bot and a fake Bot API that keeps every call.

    .venv/bin/python bench/messages.py [--games 3]

For 3-player throw-in, 2-player transfer and 2x2 teams it prints, per game: moves, group sends and edits,
private sends (how many of them sound), edits and deletes; how often a person's hand gained move buttons, and
how often the table started waiting for them (their hand shows the timer ⏳), each with how many of those made
their phone sound.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.fake_telegram import FakeTelegram
from tests.bot.players import GROUP, open_table, play_until_over, start

SETUPS = {
    "3-player throw-in": (["Ann", "Bob", "Cid"], []),
    "2-player transfer": (["Ann", "Bob"], ["variant"]),
    "2x2 teams": (["Ann", "Bob", "Cid", "Dan"], ["teams"]),
}


def on_clock(markup: dict[str, Any] | None) -> bool:
    rows: list[list[dict[str, Any]]] = markup.get("inline_keyboard", []) if markup else []
    return any(str(b.get("callback_data", "")).startswith(("m:", "k:")) for row in rows for b in row)


def count(fake: FakeTelegram, users: list[int], db: Path) -> Counter[str]:
    c: Counter[str] = Counter()
    with sqlite3.connect(db) as conn:
        c["moves"] = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    for s in fake.sent:
        if not s.ok:
            continue
        where = "group" if s.chat_id == GROUP else "private"
        c[f"{where} {'sends' if s.method == 'sendMessage' else 'edits'}"] += 1
        if where == "private" and s.method == "sendMessage" and s.sound:
            c["private sounds"] += 1
    c["private deletes"] = sum(1 for chat, _ in fake.deleted if chat in users)
    for user in users:
        shown = clocked = False
        for s in fake.sent:
            if s.ok and s.chat_id == user and s.method in ("sendMessage", "editMessageText"):
                sounds = s.method == "sendMessage" and s.sound
                now = on_clock(s.markup)
                if now and not shown:
                    c["buttons came"] += 1
                    c["buttons came, sound"] += int(sounds)
                shown = now
                timed = "⏳" in s.text  # the table waits for this player (drawn since the timer is shown)
                if timed and not clocked:
                    c["on the clock"] += 1
                    c["on the clock, sound"] += int(sounds)
                clocked = timed
    return c


async def one_game(names: list[str], options: list[str], seed: int) -> Counter[str]:
    fake = FakeTelegram()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "messages.sqlite3"
        h = Harness(fake, await start_app(fake, db), db)
        try:
            lobby = await open_table(h, names, options)
            start_index = len(fake.sent)
            deleted_index = len(fake.deleted)
            await start(h, lobby)
            users = list(range(1, len(names) + 1))
            await play_until_over(fake, GROUP, users, random.Random(seed))
            await h.deps.outbox.idle()
        finally:
            await stop_app(h.app)
        fake.sent = fake.sent[start_index:]  # the game only: not the welcome and the lobby
        fake.deleted = fake.deleted[deleted_index:]
        return count(fake, list(range(1, len(names) + 1)), db)


async def run(games: int) -> None:
    for title, (names, options) in SETUPS.items():
        total: Counter[str] = Counter()
        for seed in range(games):
            total += await one_game(names, options, seed)
        moves = total["moves"]
        print(f"{title}: {games} games, {moves / games:.0f} moves a game")
        for key in (
            "group sends",
            "group edits",
            "private sends",
            "private sounds",
            "private edits",
            "private deletes",
            "buttons came",
            "buttons came, sound",
            "on the clock",
            "on the clock, sound",
        ):
            print(f"  {key:20} {total[key] / games:7.1f} a game  {total[key] / max(1, moves):5.2f} a move")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=3, help="games per setup")
    asyncio.run(run(parser.parse_args().games))


if __name__ == "__main__":
    main()
