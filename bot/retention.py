"""Retention (MOVE_LOG_DAYS): the move logs of games that finished more than that many days ago are removed,
a few games at a time, so that the database of a busy bot stops growing by its largest part; results,
ratings and statistics stay, and /replay of such a game says its moves are no longer kept."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from storage import Storage

log = logging.getLogger(__name__)

DAY = 86_400.0
EVERY = 3_600.0  # seconds between two runs
BATCH = 50  # games a write prunes: a short write, so that moves never wait long behind it


async def prune(storage: Storage, days: int, clock: Callable[[], float] = time.time) -> int:
    """Prune every log older than ``days`` days, batch after batch; returns how many moves went."""
    before, removed = clock() - days * DAY, 0
    while True:
        gone = await storage.games.prune_logs(before, BATCH)
        if not gone:
            break
        removed += gone
        await asyncio.sleep(0.05)  # other writes go between the batches
    if removed:
        log.info("removed %d moves of games finished over %d days ago", removed, days)
    return removed
