"""A process that plays random games and logs every move, printing "game seq" after each commit.
The durability test kills it with SIGKILL at random moments. It resumes whatever game is live."""

from __future__ import annotations

import asyncio
import os
import random
import sys

from engine import Game, Options
from engine.actions import act
from engine.moves import move_str
from engine.snapshot import dumps
from storage import Storage
from storage.records import TableStatus, User


async def main(path: str, seed: int) -> None:
    store = await Storage.open(path)
    rng = random.Random(seed)
    for user in (1, 2, 3):
        await store.users.seen(User(id=user, first_name=f"P{user}"))
    await store.chats.seen(-1, "group", "Durability")
    while True:
        live = await store.restorable()
        if live and live[0].game is not None:
            row = live[0].game
            game = store.games.load(row)
        else:
            # A kill can land between opening the table and dealing: that lobby is simply used.
            table = live[0].row if live else await store.tables.create(-1, 0, 1, Options())
            seated = {s.user_id for s in table.seats}
            for user in (1, 2, 3):
                if user not in seated:
                    await store.tables.add_seat(table.id, user)
            game = Game.deal(Options(), 3, rng=rng)
            row = await store.games.start(table.id, dumps(game), game.version, rated=True, deadline=None)
        seq = row.seq
        while not game.over:
            seat = rng.choice(game.actors())
            action = move_str(rng.choice(game.legal_moves(seat)))
            act(game, seat, action)
            seq += 1
            await store.games.record(row.id, seq, seat, action, dumps(game), game.version, deadline=None)
            print(row.id, seq, flush=True)
        await store.tables.set_status(row.table_id, TableStatus.FINISHED)


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1], int(sys.argv[2])))
    finally:
        # aiosqlite's worker thread would keep a failed writer alive (and the test waiting) forever.
        os._exit(1)
