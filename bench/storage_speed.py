"""Storage speed: moves persisted per second (event, snapshot and timer written atomically) with 1, 10 and 100
tables moving at once, a transaction per move against the group commit side by side; and leaderboard and
stats query times with 100k stored games.

    .venv/bin/python bench/storage_speed.py [--moves 3000] [--games 100000]

The database lives in a temporary directory (the system's temp dir).
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

from engine import Game, Options
from engine.actions import act
from engine.moves import move_str
from engine.snapshot import dumps
from storage import GLOBAL, Storage
from storage.ratings import START_MU, START_SIGMA, ordinal
from storage.records import TableStatus, User


async def one_transaction_each(
    store: Storage, game_id: int, seq: int, seat: int, action: str, snapshot: str, version: int
) -> None:
    """The write path before the group commit, kept here as the reference: a transaction of its own per
    move, each statement a hop to the database thread."""
    db = store.db
    async with db.transaction():
        await db.execute(
            "INSERT INTO events (game_id, seq, seat, action, at) VALUES (?, ?, ?, ?, ?)",
            (game_id, seq, seat, action, time.time()),
        )
        await db.execute(
            "UPDATE games SET snapshot = ?, version = ?, seq = ? WHERE id = ? AND seq = ?",
            (snapshot, version, seq, game_id, seq - 1),
        )
        await db.execute(
            "UPDATE tables SET deadline = ?, updated_at = ? WHERE id = (SELECT table_id FROM games WHERE id = ?)",
            (time.time() + 30, time.time(), game_id),
        )


async def moves_per_second(path: Path, moves: int, synchronous: str, tables: int, grouped: bool) -> float:
    """Moves persisted per second with ``tables`` tables moving at once (each sends its next move as soon
    as the last one is stored, like a table whose players answer instantly)."""
    store = await Storage.open(path, synchronous=synchronous)
    for user in (1, 2):
        await store.users.seen(User(id=user, first_name=f"P{user}"))
    await store.chats.seen(-1, "group", "Bench")
    per_table = max(1, moves // tables)

    async def deal(table_no: int, rng: random.Random) -> tuple[int, int, Game]:
        table = await store.tables.create(-1, table_no, 1, Options())
        for user in (1, 2):
            await store.tables.add_seat(table.id, user)
        game = Game.deal(Options(), 2, rng=rng)
        row = await store.games.start(table.id, dumps(game), game.version, rated=True, deadline=None)
        return table.id, row.id, game

    rngs = [random.Random(t) for t in range(tables)]
    dealt = [await deal(t, rngs[t]) for t in range(tables)]  # opened before the clock starts

    async def play(table_no: int) -> None:
        rng = rngs[table_no]
        table_id, game_id, game = dealt[table_no]
        seq = done = 0
        while done < per_table:
            if game.over:  # rare: a new table, timed too (a small share of the writes)
                await store.tables.set_status(table_id, TableStatus.FINISHED)
                table_id, game_id, game = await deal(table_no, rng)
                seq = 0
            seat = rng.choice(game.actors())
            action = move_str(rng.choice(game.legal_moves(seat)))
            act(game, seat, action)
            seq += 1
            snapshot = dumps(game)
            if grouped:
                await store.games.record(
                    game_id, seq, seat, action, snapshot, game.version, deadline=time.time() + 30
                )
            else:
                await one_transaction_each(store, game_id, seq, seat, action, snapshot, game.version)
            done += 1

    start = time.perf_counter()
    await asyncio.gather(*(play(t) for t in range(tables)))
    elapsed = time.perf_counter() - start
    await store.close()
    return per_table * tables / elapsed


async def fill(store: Storage, games: int, users: int, chats: int) -> None:
    """Bulk-load synthetic finished games and ratings (the repositories would take minutes for 100k)."""
    rng = random.Random(2)
    db = store.db
    await db.executemany(
        "INSERT INTO users (id, first_name, updated_at) VALUES (?, ?, 0)",
        [(u, f"User {u}") for u in range(1, users + 1)],
    )
    await db.executemany(
        "INSERT INTO chats (id, type, updated_at) VALUES (?, 'group', 0)",
        [(-c,) for c in range(1, chats + 1)],
    )
    await db.executemany(
        "INSERT INTO tables (id, chat_id, creator_id, status, options, created_at, updated_at) "
        "VALUES (?, ?, 1, 'finished', '{}', 0, 0)",
        [(g, -(g % chats) - 1) for g in range(1, games + 1)],
    )
    await db.executemany(
        "INSERT INTO games (id, table_id, deal, snapshot, version, rated, started_at, finished_at) "
        "VALUES (?, ?, '{}', '{}', 0, 1, 0, 300)",
        [(g, g) for g in range(1, games + 1)],
    )
    await db.executemany(
        "INSERT INTO results (game_id, chat_id, game_type, draw, pogony, durak_seat, rated, duration, finished_at) "
        "VALUES (?, ?, 'throw_in', 0, 0, 1, 1, 300, 300)",
        [(g, -(g % chats) - 1) for g in range(1, games + 1)],
    )
    lines = []
    for g in range(1, games + 1):
        a, b = rng.sample(range(1, users + 1), 2)
        lines += [(g, 0, a, 1, 1, 0, 0, 0), (g, 1, b, 2, 0, 1, 0, 0)]
    await db.executemany(
        "INSERT INTO result_players (game_id, seat, user_id, place, won, durak, drawn, pogony) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        lines,
    )
    ratings = []
    for u in range(1, users + 1):
        for chat in [GLOBAL, *rng.sample([-c for c in range(1, chats + 1)], 3)]:
            mu, sigma = START_MU + rng.gauss(0, 5), START_SIGMA * rng.uniform(0.3, 1)
            ratings.append((u, chat, "throw_in", mu, sigma, ordinal(mu, sigma), rng.randint(1, 200)))
    await db.executemany(
        "INSERT INTO ratings (user_id, chat_id, game_type, mu, sigma, ordinal, games) VALUES (?, ?, ?, ?, ?, ?, ?)",
        ratings,
    )


async def timed(label: str, call: object, repeats: int = 50) -> None:
    assert callable(call)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    print(f"  {label:<44} median {statistics.median(times):7.2f} ms   max {max(times):7.2f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--chats", type=int, default=2_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("moves persisted per second: a transaction per move (before) / group commit (now)")
        for mode in ("FULL", "NORMAL"):
            for tables in (1, 10, 100):
                rates = [
                    await moves_per_second(
                        Path(tmp) / f"moves-{mode}-{tables}-{grouped}.sqlite3",
                        args.moves,
                        mode,
                        tables,
                        grouped,
                    )
                    for grouped in (False, True)
                ]
                print(
                    f"  synchronous={mode:<6} {tables:>3} tables at once: {rates[0]:>7,.0f} / {rates[1]:>7,.0f}"
                    f"   ×{rates[1] / rates[0]:.1f}"
                )
        store = await Storage.open(Path(tmp) / "board.sqlite3")
        start = time.perf_counter()
        await fill(store, args.games, args.users, args.chats)
        print(
            f"loaded {args.games:,} games, {args.users:,} users, {args.chats:,} chats in {time.perf_counter() - start:.1f} s"
        )
        chat = -1
        await timed("top 10 of a chat (min 1 game)", lambda: store.results.leaderboard(chat, "throw_in"))
        await timed(
            "top 10 global (min 10 games)",
            lambda: store.results.leaderboard(GLOBAL, "throw_in", min_games=10),
        )
        await timed(
            "page 50 of the global board", lambda: store.results.leaderboard(GLOBAL, "throw_in", offset=500)
        )
        await timed("a user's global rank", lambda: store.results.standing(77, GLOBAL, "throw_in"))
        await timed("a user's stats (all chats)", lambda: store.results.stats(77))
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
