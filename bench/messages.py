"""Messages per game and per move, and how many turns a player feels: whole games played by people pressing
random buttons through the real bot and a fake Bot API that keeps every call (and enforces Telegram's limits,
scaled as the tests scale them).

    .venv/bin/python bench/messages.py [--games 3] [--cards private group both] [--limits receiver group]
    .venv/bin/python bench/messages.py --pace 2 6 [--games 2] [--admin member admin] [--limits group receiver]

``--pace LO HI``: instead, 3-player throw-in games with the cards in the group only (players who never started
the bot), played at a human pace (each player thinks LO to HI seconds before a move, all three at once) with
Telegram's limits and rules (a bot that is no admin sends a hand only as the answer to a press) ten times
faster than life; for the bot an admin of the group or a plain member, and each EPHEMERAL_LIMITS model, it
prints the group's calls a minute as Telegram would count them (median and busiest minute), how long the
hand of a player the game waits for took to show the move that put them on the clock (p50, p90, p99, in real seconds),
how often the table called somebody by name, and 429s. A player with no hand in the group presses 🃏 My cards.

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
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.fake_telegram import FakeTelegram, RateLimits, Sent
from tests.bot.players import GROUP, choose, group_hand, move_choices, open_table, play_until_over, start

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
    fake.bot_rights[GROUP] = set()  # an admin: it may send in-group hands whenever (see --pace for both)
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


PACE_SCALE = 0.1  # Telegram's limits ten times faster: slow enough that the bot's own work stays small


async def paced_game(seed: int, admin: bool, limits: str, pace: tuple[float, float]) -> dict[str, Any]:
    """One 3-player game at a human pace, cards in the group only: what the group was sent, and how long the
    hand of each player put on the clock took to show their new buttons."""
    from bot import ephemeral
    from bot.callbacks import CardsPress, encode

    ephemeral.GRANT_SECONDS = 13.0 * PACE_SCALE  # Telegram's 15 s, scaled as its limits are
    fake = FakeTelegram(limits=RateLimits(scale=PACE_SCALE), ephemeral_limits=limits)
    fake.ephemeral_window = 15.0 * PACE_SCALE
    users, rng = [1, 2, 3], random.Random(seed)
    scaled = {
        "rate_scale": PACE_SCALE,
        "group_redraw_interval": 3.0 * PACE_SCALE,
        "private_redraw_interval": 1.0 * PACE_SCALE,
        "ephemeral_limits": limits,
    }
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "paced.sqlite3"
        h = Harness(fake, await start_app(fake, db, **scaled), db)
        try:
            if admin:
                fake.bot_rights[GROUP] = set()
            lobby = await open_table(h, ["Ann", "Bob", "Cid"], started=False)
            table_id = lobby.table_id
            assert table_id is not None
            first = len(fake.sent)
            await start(h, lobby)
            live = h.deps.service.tables[table_id]
            clock: list[tuple[float, int, frozenset[int]]] = []  # (when, version, users on the clock)
            asked = [0]

            def over() -> bool:
                return live.game is None or live.game.over or live.row.status.value != "playing"

            async def watch() -> None:
                seen = -1
                while not over():
                    game = live.game
                    if game is not None and game.version != seen:
                        seen = game.version
                        on = frozenset(
                            u for s in game.to_act() if (u := live.row.seats[s].user_id) is not None
                        )
                        clock.append((time.monotonic(), seen, on))
                    await asyncio.sleep(0.002)

            async def player(user: int) -> None:
                while not over():
                    hand = group_hand(fake, user)
                    if hand is None:
                        table = next((m for m in reversed(fake.bot_messages(GROUP)) if m.buttons()), None)
                        if table is not None:
                            asked[0] += 1
                            fake.press(user, GROUP, table.message_id, encode(CardsPress(table_id)))
                        await asyncio.sleep(rng.uniform(*pace) * PACE_SCALE)
                        continue
                    choices = move_choices(hand.seen[1]) if hand.seen else []
                    if not choices:
                        await asyncio.sleep(0.005)
                        continue
                    await asyncio.sleep(rng.uniform(*pace) * PACE_SCALE)  # thinking
                    hand = group_hand(fake, user)
                    choices = move_choices(hand.seen[1]) if hand is not None and hand.seen else []
                    if hand is not None and choices:
                        fake.press_ephemeral(user, GROUP, hand.message_id, rng.choice(choices))

            await asyncio.wait_for(
                asyncio.gather(watch(), *(player(u) for u in users)), timeout=3600 * PACE_SCALE
            )
            await h.deps.outbox.idle()
            # Who took each state on (the action logged with the version it led to): a person, or None.
            users_at = {s.seat: s.user_id for s in live.row.seats}
            with sqlite3.connect(db) as conn:
                logged = conn.execute("SELECT seq, seat FROM events").fetchall()
            moved_by = {seq: users_at.get(seat) for seq, seat in logged}
        finally:
            await stop_app(h.app)
    sent = fake.sent[first:]
    return {"sent": sent, "clock": clock, "asked": asked[0], "limits": limits, "moved_by": moved_by}


def hand_lag(
    sent: list[Sent], clock: list[tuple[float, int, frozenset[int]]], moved_by: dict[int, int | None]
) -> tuple[list[float], int]:
    """For every state that waits for one player alone, the real seconds until their in-group hand showed
    its buttons (only once they had a hand in the group at all); and how many such states the player
    answered before their hand showed them, from buttons it still had (a press counts while its move is
    legal): nobody waited for those."""

    def version_of(s: Sent) -> int:
        found = [
            int(d.split(":")[2])
            for d in (
                b.get("callback_data", "") for row in (s.markup or {}).get("inline_keyboard", []) for b in row
            )
            if d[:2] in ("m:", "k:")
        ]
        return max(found, default=-1)

    shown: dict[int, list[tuple[float, int]]] = {}
    for s in sent:
        if s.ok and s.receiver is not None and s.method != "deleteEphemeralMessage":
            shown.setdefault(s.receiver, []).append((s.at, version_of(s)))
    lags, early = [], 0
    after = {version: at for at, version, _ in clock}
    for at, version, users in clock:
        if len(users) != 1:
            continue  # only states that wait for one player: nobody else can move the game on meanwhile
        for user in users:
            mine = shown.get(user, [])
            if not mine or mine[0][0] > at:
                continue  # no hand in the group yet: they ask for it when the table calls them
            # Buttons of a state cannot be drawn before it: the first hand showing them is the answer (the
            # watcher may notice the state a moment after the hand went out).
            came = next((t for t, v in mine if v >= version), None)
            moved = after.get(version + 1)
            if moved_by.get(version + 1) == user and moved is not None and (came is None or moved < came):
                early += 1  # the player's own press moved the game on (a timeout still counts as waiting)
            elif came is not None:
                lags.append(max(0.0, came - at) / PACE_SCALE)
    return lags, early


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def paced(games: int, admins: list[str], models: list[str], pace: tuple[float, float]) -> None:
    window = 60 * PACE_SCALE
    for rights in admins:
        for limits in models:
            lags: list[float] = []
            per_minute: list[int] = []
            calls = asked = refused = moves = waits = early = 0
            minutes = 0.0
            kinds: Counter[str] = Counter()
            for seed in range(games):
                game = await paced_game(seed, rights == "admin", limits, pace)
                sent: list[Sent] = game["sent"]
                shown, answered = hand_lag(sent, game["clock"], game["moved_by"])
                lags += shown
                early += answered
                moves += len(game["clock"])
                waits += sum(1 for _, _, users in game["clock"] if len(users) == 1)
                if game["clock"]:
                    minutes += (game["clock"][-1][0] - game["clock"][0][0]) / window
                for s in sent:
                    if s.ok and s.chat_id == GROUP:
                        what = "table" if s.receiver is None else "hand"
                        kinds[f"{what} {'sends' if s.method == 'sendMessage' else 'edits'}"] += 1
                counted = [
                    s.at
                    for s in sent
                    if s.ok and s.chat_id == GROUP and (s.receiver is None or limits == "group")
                ]
                if counted:
                    start, end = counted[0], counted[-1]
                    per_minute += [
                        sum(1 for t in counted if a <= t < a + window)
                        for a in (start + i * window for i in range(max(1, int((end - start) / window))))
                    ]
                calls += sum(
                    1
                    for s in sent
                    if s.ok
                    and s.chat_id == GROUP
                    and s.receiver is None
                    and s.method == "sendMessage"
                    and "tg://user?id=" in s.text
                )
                asked += game["asked"]
                refused += sum(1 for s in sent if not s.ok)
            minutes = max(minutes, 1e-9)
            print(
                f"bot {rights}, EPHEMERAL_LIMITS={limits}: {games} games, {minutes:.1f} minutes, pace"
                f" {pace[0]:g}-{pace[1]:g} s: {moves / minutes:.1f} moves a minute,"
                f" {waits / minutes:.1f} of them wait for one player"
            )
            print("  a minute: " + ", ".join(f"{key} {kinds[key] / minutes:.1f}" for key in sorted(kinds)))
            print(
                f"  group's calls a minute  median {percentile([float(n) for n in per_minute], 0.5):4.0f}"
                f"  busiest {max(per_minute, default=0):3d}  (Telegram allows 20)"
            )
            print(
                f"  turn's hand shown after  p50 {percentile(lags, 0.5):5.2f} s  p90 {percentile(lags, 0.9):5.2f} s"
                f"  p99 {percentile(lags, 0.99):5.2f} s  ({len(lags)} turns; {early} more answered from older"
                " buttons before their hand showed them)"
            )
            print(
                f"  table calls by name {calls}  🃏 My cards pressed {asked}  refused calls (429 or other) {refused}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=3, help="games per setup")
    parser.add_argument(
        "--cards", nargs="+", default=["private", "group", "both"], help="where the cards are"
    )
    parser.add_argument("--limits", nargs="+", default=["group", "receiver"], help="EPHEMERAL_LIMITS models")
    parser.add_argument(
        "--pace", nargs=2, type=float, metavar=("LO", "HI"), help="a human pace: seconds a move"
    )
    parser.add_argument("--admin", nargs="+", default=["member", "admin"], help="the bot's rights (--pace)")
    args = parser.parse_args()
    if args.pace:
        asyncio.run(paced(args.games, args.admin, args.limits, (args.pace[0], args.pace[1])))
    else:
        asyncio.run(run(args.games, args.cards, args.limits))


if __name__ == "__main__":
    main()
