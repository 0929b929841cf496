"""Messages per game and per move, and how many turns a player feels: whole games played by people pressing
random buttons through the real bot and a fake Bot API that keeps every call (and enforces Telegram's limits,
scaled as the tests scale them).

    .venv/bin/python bench/messages.py [--games 3] [--cards private group both] [--limits receiver group]

For 3-player throw-in, 2-player transfer and 2x2 teams, for each place the players hold their cards
(``private``: in private chats; ``group``: in the group only, as players who never started the bot;
``both``) and each model of how Telegram counts in-group hands (EPHEMERAL_LIMITS), it prints per game and per
move: the group's own sends and edits; private sends (how many sound), edits and deletes; in-group hand sends
(each sounds for a player who holds the cards nowhere else), edits and deletes; the most calls the group took
within one minute as Telegram counts them under that model, and 429s; how often a person's hand gained move
buttons, and how often the table started waiting for them (the timer ⏳), with how many of those sounded.
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
from tests.bot.fake_telegram import FakeTelegram, RateLimits, Sent
from tests.bot.players import GROUP, choose, open_table, play_until_over, start

SCALE = 0.01  # Telegram's limits a hundred times faster, as in the tests

SETUPS = {
    "3-player throw-in": (["Ann", "Bob", "Cid"], []),
    "2-player transfer": (["Ann", "Bob"], ["variant"]),
    "2x2 teams": (["Ann", "Bob", "Cid", "Dan"], ["teams"]),
}


def on_clock(markup: dict[str, Any] | None) -> bool:
    rows: list[list[dict[str, Any]]] = markup.get("inline_keyboard", []) if markup else []
    return any(str(b.get("callback_data", "")).startswith(("m:", "k:")) for row in rows for b in row)


def kind(s: Sent) -> str:
    return "hand in group" if s.receiver is not None else "group" if s.chat_id == GROUP else "private"


def count(fake: FakeTelegram, users: list[int], db: Path) -> Counter[str]:
    c: Counter[str] = Counter()
    with sqlite3.connect(db) as conn:
        c["moves"] = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    for s in fake.sent:
        c["429s"] += not s.ok
        if not s.ok:
            continue
        where = kind(s)
        c[f"{where} {'sends' if s.method == 'sendMessage' else 'edits'}"] += 1
        if where != "group" and s.method == "sendMessage" and s.sound:
            c[f"{where} sounds"] += 1
    c["private deletes"] = sum(1 for chat, _ in fake.deleted if chat in users)
    c["hand in group deletes"] = fake.calls["deleteEphemeralMessage"]
    # The group's busiest minute as Telegram counts it: its own messages, and in-group hands in that model.
    window = 60 * SCALE
    counted = [
        s.at
        for s in fake.sent
        if s.ok and s.chat_id == GROUP and (s.receiver is None or fake.ephemeral_limits == "group")
    ]
    c["group's busiest minute"] = max(
        (sum(1 for t in counted if a <= t < a + window) for a in counted), default=0
    )
    for user in users:
        shown = clocked = False
        for s in fake.sent:
            mine = s.receiver == user or (s.receiver is None and s.chat_id == user)
            if s.ok and mine and s.method in ("sendMessage", "editMessageText", "editEphemeralMessageText"):
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


async def one_game(names: list[str], options: list[str], seed: int, cards: str, limits: str) -> Counter[str]:
    fake = FakeTelegram(limits=RateLimits(scale=SCALE), ephemeral_limits=limits)
    users = list(range(1, len(names) + 1))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "messages.sqlite3"
        h = Harness(fake, await start_app(fake, db, ephemeral_limits=limits), db)
        try:
            lobby = await open_table(h, names, options, started=cards != "group")
            if cards == "both":
                for user in users:
                    await choose(fake, user, "both")
            start_index = len(fake.sent)
            deleted_index = len(fake.deleted)
            calls = fake.calls.copy()
            await start(h, lobby)
            in_group = frozenset(users) if cards != "private" else frozenset()
            await play_until_over(fake, GROUP, users, random.Random(seed), in_group=in_group)
            await h.deps.outbox.idle()
        finally:
            await stop_app(h.app)
        fake.sent = fake.sent[start_index:]  # the game only: not the welcome and the lobby
        fake.deleted = fake.deleted[deleted_index:]
        fake.calls = fake.calls - calls
        return count(fake, users, db)


KEYS = (
    "group sends",
    "group edits",
    "private sends",
    "private sounds",
    "private edits",
    "private deletes",
    "hand in group sends",
    "hand in group sounds",
    "hand in group edits",
    "hand in group deletes",
    "buttons came",
    "buttons came, sound",
    "on the clock",
    "on the clock, sound",
)


async def run(games: int, places: list[str], models: list[str]) -> None:
    for title, (names, options) in SETUPS.items():
        for cards in places:
            for limits in models if cards != "private" else models[:1]:
                total: Counter[str] = Counter()
                busiest = 0
                for seed in range(games):
                    game = await one_game(names, options, seed, cards, limits)
                    busiest = max(busiest, game.pop("group's busiest minute"))
                    total += game
                moves = total["moves"]
                model = f", EPHEMERAL_LIMITS={limits}" if cards != "private" else ""
                print(f"{title}, cards {cards}{model}: {games} games, {moves / games:.0f} moves a game")
                for key in KEYS:
                    print(
                        f"  {key:22} {total[key] / games:7.1f} a game  {total[key] / max(1, moves):5.2f} a move"
                    )
                print(
                    f"  group's busiest minute {busiest:7d} calls (Telegram allows 20)  429s: {total['429s']}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=3, help="games per setup")
    parser.add_argument(
        "--cards", nargs="+", default=["private", "group", "both"], help="where the cards are"
    )
    parser.add_argument("--limits", nargs="+", default=["receiver", "group"], help="EPHEMERAL_LIMITS models")
    args = parser.parse_args()
    asyncio.run(run(args.games, args.cards, args.limits))


if __name__ == "__main__":
    main()
