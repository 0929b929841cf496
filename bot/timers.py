"""Move timers and bot turns on PTB's JobQueue. Deadlines themselves live in the database (the service
writes them with each move); a job only asks the service to apply the timeout if nothing moved since. Jobs
find the table service among the bot's parts (bot.deps) when they run, so nothing here is wired late."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import Any

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped]
from telegram.ext import ContextTypes, Job, JobQueue

from bot.deps import deps_of
from bot.service import TableService

Context = ContextTypes.DEFAULT_TYPE
Callback = Callable[[Context], Coroutine[Any, Any, None]]


class JobScheduler:
    """The service's Scheduler over PTB's JobQueue: one pending job per table and purpose."""

    def __init__(self, job_queue: JobQueue[Any], clock: Callable[[], float] = time.time) -> None:
        """``clock``: the service's, which the times given here are read on (wall-clock seconds)."""
        self.job_queue = job_queue
        self.clock = clock
        # Our own index of pending jobs: asking the JobQueue by name scans every job of every table.
        self._jobs: dict[str, Job[Any]] = {}

    def _schedule(self, name: str, callback: Callback, at: float | None, data: tuple[int, int]) -> None:
        """Replace the job called ``name`` (None: just cancel it)."""
        old = self._jobs.pop(name, None)
        if old is not None and not old.removed:
            with contextlib.suppress(JobLookupError):  # a one-off job that already ran is gone
                old.schedule_removal()
        if at is not None:
            self._jobs[name] = self.job_queue.run_once(
                self._ran(name, callback), max(0.0, at - self.clock()), data=data, name=name
            )

    def _ran(self, name: str, callback: Callback) -> Callback:
        """``callback``, then out of the index unless it set the next job of its name: the index holds pending
        jobs only, not one per table ever timed."""

        async def run(context: Context) -> None:
            try:
                await callback(context)
            finally:
                if context.job is not None and self._jobs.get(name) is context.job:
                    del self._jobs[name]

        return run

    def pending(self) -> int:
        """Jobs waiting to run (bench/soak.py watches that it follows the live tables, not every table ever)."""
        return len(self._jobs)

    def deadline(self, table_id: int, version: int, at: float | None) -> None:
        self._schedule(f"deadline:{table_id}", _deadline, at, (table_id, version))

    def bot_turn(self, table_id: int, version: int, delay: float) -> None:
        self._schedule(f"bot:{table_id}", _bot_turn, self.clock() + delay, (table_id, version))

    def tick(self, table_id: int, version: int, at: float | None) -> None:
        self._schedule(f"tick:{table_id}", _tick, at, (table_id, version))

    def rematch_expiry(self, table_id: int, at: float) -> None:
        self._schedule(f"rematch:{table_id}", _rematch, at, (table_id, 0))

    def arena_end(self, arena_id: int, at: float) -> None:
        self._schedule(f"arena:{arena_id}", _arena_end, at, (arena_id, 0))


def _job(context: Context) -> tuple[TableService, int, int]:
    """The service, and the (table, version) a job was scheduled for."""
    service = deps_of(context.application).service
    data = context.job.data if context.job is not None else None
    if not (isinstance(data, tuple) and len(data) == 2):
        raise TypeError(f"a timer job without its table: {data!r}")
    return service, int(data[0]), int(data[1])


async def _rematch(context: Context) -> None:
    service, table_id, _ = _job(context)
    await service.expire_rematch(table_id)


async def _arena_end(context: Context) -> None:
    service, arena_id, _ = _job(context)
    await service.arenas.expire(arena_id)


async def _deadline(context: Context) -> None:
    service, table_id, version = _job(context)
    await service.timeout(table_id, version)


async def _tick(context: Context) -> None:
    service, table_id, version = _job(context)
    await service.tick(table_id, version)


async def _bot_turn(context: Context) -> None:
    service, table_id, version = _job(context)
    await service.bot_turn(table_id, version)
