"""Storage speed: moves persisted per second (event + snapshot in one transaction), and leaderboard and stats
query times with 100k stored games.

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
from engine.log import act
from engine.moves import move_str
from engine.snapshot import dumps
from storage import GLOBAL, Storage
from storage.ratings import START_MU, START_SIGMA, ordinal
from storage.records import TableStatus, User


async def moves_per_second(path: Path, moves: int, synchronous: str) -> float:
    store = await Storage.open(path, synchronous=synchronous)
    rng = random.Random(1)
    for user in (1, 2):
        await store.users.seen(User(id=user, first_name=f"P{user}"))
    await store.chats.seen(-1, "group", "Bench")
    done = 0
    elapsed = 0.0
    while done < moves:
        table = await store.tables.create(-1, 0, 1, Options())
        for user in (1, 2):
            await store.tables.add_seat(table.id, user)
        game = Game.deal(Options(), 2, rng=rng)
        row = await store.games.start(table.id, dumps(game), game.version, rated=True, deadline=None)
        seq = 0
        while not game.over and done < moves:
            seat = rng.choice(game.actors())
            action = move_str(rng.choice(game.legal_moves(seat)))
            act(game, seat, action)
            seq += 1
            snapshot = dumps(game)  # the bot serialises once per move too; timed with the write
            start = time.perf_counter()
            await store.games.record(
                row.id, seq, seat, action, snapshot, game.version, deadline=time.time() + 30
            )
            elapsed += time.perf_counter() - start
            done += 1
        await store.tables.set_status(table.id, TableStatus.FINISHED)
    await store.close()
    return done / elapsed


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
        for mode in ("FULL", "NORMAL"):
            rate = await moves_per_second(Path(tmp) / f"moves-{mode}.sqlite3", args.moves, mode)
            print(f"moves persisted per second (synchronous={mode}): {rate:,.0f}")
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
