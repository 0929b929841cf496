"""Move timers and bot turns on PTB's JobQueue. Deadlines themselves live in the database (the service
writes them with each move); a job only asks the service to apply the timeout if nothing moved since."""

from __future__ import annotations

import time
from typing import Any

from telegram.ext import ContextTypes, JobQueue

from bot.service import Scheduler, TableService


class JobScheduler(Scheduler):
    def __init__(self, job_queue: JobQueue[Any], service: TableService | None = None) -> None:
        self.job_queue = job_queue
        self.service = service

    def _replace(self, name: str) -> None:
        for job in self.job_queue.get_jobs_by_name(name):
            job.schedule_removal()

    def deadline(self, table_id: int, version: int, at: float | None) -> None:
        name = f"deadline:{table_id}"
        self._replace(name)
        if at is not None:
            self.job_queue.run_once(
                self._deadline, max(0.0, at - time.time()), data=(table_id, version), name=name
            )

    def bot_turn(self, table_id: int, version: int, delay: float) -> None:
        name = f"bot:{table_id}"
        self._replace(name)
        self.job_queue.run_once(self._bot_turn, delay, data=(table_id, version), name=name)

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
