"""Move timers and bot turns on PTB's JobQueue. Deadlines themselves live in the database (the service
writes them with each move); a job only asks the service to apply the timeout if nothing moved since."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped]
from telegram.ext import ContextTypes, Job, JobQueue

from bot.service import Scheduler, TableService


class JobScheduler(Scheduler):
    def __init__(self, job_queue: JobQueue[Any], service: TableService | None = None) -> None:
        self.job_queue = job_queue
        self.service = service
        # Our own index of pending jobs: asking the JobQueue by name scans every job of every table.
        self._jobs: dict[str, Job[Any]] = {}

    def _schedule(self, name: str, callback: Any, at: float | None, data: tuple[int, int]) -> None:
        """Replace the job called ``name`` (None: just cancel it)."""
        old = self._jobs.pop(name, None)
        if old is not None and not old.removed:
            with contextlib.suppress(JobLookupError):  # a one-off job that already ran is gone
                old.schedule_removal()
        if at is not None:
            self._jobs[name] = self.job_queue.run_once(
                callback, max(0.0, at - time.time()), data=data, name=name
            )

    def deadline(self, table_id: int, version: int, at: float | None) -> None:
        self._schedule(f"deadline:{table_id}", self._deadline, at, (table_id, version))

    def bot_turn(self, table_id: int, version: int, delay: float) -> None:
        self._schedule(f"bot:{table_id}", self._bot_turn, time.time() + delay, (table_id, version))

    def rematch_expiry(self, table_id: int, at: float) -> None:
        self._schedule(f"rematch:{table_id}", self._rematch, at, (table_id, 0))

    async def _rematch(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert self.service is not None and context.job is not None
        await self.service.expire_rematch(_ids(context.job.data)[0])

    async def _deadline(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert self.service is not None and context.job is not None
        table_id, version = _ids(context.job.data)
        await self.service.timeout(table_id, version)

    async def _bot_turn(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert self.service is not None and context.job is not None
        table_id, version = _ids(context.job.data)
        await self.service.bot_turn(table_id, version)


def _ids(data: object) -> tuple[int, int]:
    assert isinstance(data, tuple) and len(data) == 2
    return int(data[0]), int(data[1])
