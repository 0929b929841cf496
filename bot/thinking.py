"""Computer players think away from the event loop: in worker processes (one core each; a search holds the
CPU for its whole budget, which a thread would take from the loop under the GIL), or, with
``AI_WORKERS=0``, in a thread of the bot's own process (small hosts, tests).

A worker that fails or dies never costs a move: the instant heuristic player answers instead, and a broken
pool is replaced on the next decision.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from engine.ai import HeuristicPlayer, decide
from engine.ai.levels import BUDGET, ready
from engine.moves import Move
from engine.options import BotLevel
from engine.views import View

log = logging.getLogger(__name__)


class Thinker:
    def __init__(self, workers: int = 1, budget_scale: float = 1.0) -> None:
        self.workers = workers
        self.budget_scale = budget_scale
        self._pool: Executor | None = None
        self._fallback = HeuristicPlayer()

    def warm_up(self) -> None:
        """Start the workers now, so the first bot move does not wait for a process to import the engine."""
        if self.workers > 0:
            self._executor().submit(ready)

    def budget(self, level: BotLevel) -> float:
        """Seconds a decision of ``level`` takes at most (plus a worker's overhead)."""
        return BUDGET.get(level, 0.0) * self.budget_scale

    async def choose(self, seen: View, level: BotLevel) -> Move:
        """A move for the seat of ``seen`` (one of ``seen.moves``, which must not be empty)."""
        if len(seen.moves) == 1 or level is BotLevel.EASY:
            return decide(seen, level)  # instant: not worth a trip to a worker
        loop = asyncio.get_running_loop()
        try:
            move = await loop.run_in_executor(self._executor(), decide, seen, level, self.budget_scale)
        except Exception:
            log.exception("a computer player failed; the heuristic player moves instead")
            self._discard()
            return self._fallback.choose(seen)
        if move not in seen.moves:  # never trust a worker blindly: the engine would refuse it anyway
            log.error("a computer player chose an illegal move %s; the heuristic player moves instead", move)
            return self._fallback.choose(seen)
        return move

    def _executor(self) -> Executor:
        if self._pool is None:
            if self.workers > 0:
                context = multiprocessing.get_context("spawn")  # no fork of a process running threads
                self._pool = ProcessPoolExecutor(self.workers, mp_context=context)
            else:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="thinker")
        return self._pool

    def _discard(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        self._discard()
