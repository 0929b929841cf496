"""Computer players think away from the event loop: in worker processes (one core each; a search holds the
CPU for its whole budget, which a thread would take from the loop under the GIL), or, with
``AI_WORKERS=0``, in a thread of the bot's own process (small hosts, tests).

Each table thinks in one worker, always the same, so a bot's player lives there for the whole game and keeps
what it learnt between moves (engine.ai.levels.decide keeps it).

A worker that fails, dies or does not answer within its patience never costs a move: the instant heuristic
player answers instead, and the worker is stopped and replaced on the next decision.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Hashable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from bot import metrics
from engine.ai import HeuristicPlayer, decide
from engine.ai.levels import BUDGET, ready
from engine.moves import Move
from engine.options import BotLevel
from engine.views import View

log = logging.getLogger(__name__)

# Wall-clock seconds a decision may take before the heuristic player answers for it. The slowest level thinks
# for about 6 s of CPU (hard, in an endgame); a host busy enough to stretch that tenfold is overloaded, and a
# search that runs longer still is broken. Scaled with the budget, for slow hosts.
PATIENCE = 60.0


class Thinker:
    def __init__(self, workers: int = 1, budget_scale: float = 1.0, patience: float | None = None) -> None:
        self.workers = workers
        self.budget_scale = budget_scale
        self.patience = PATIENCE * max(1.0, budget_scale) if patience is None else patience
        self._pools: dict[int, Executor] = {}
        self._fallback = HeuristicPlayer()
        self._thinking: set[asyncio.Future[Move]] = set()  # decisions under way, abandoned by ``stop``

    def warm_up(self) -> None:
        """Start the workers now, so the first bot move does not wait for a process to import the engine."""
        for lane in range(self.workers):  # none with workers=0: a thread needs no warming
            self._executor(lane).submit(ready)

    def budget(self, level: BotLevel) -> float:
        """Seconds of CPU a decision of ``level`` takes at most (plus a worker's overhead)."""
        return BUDGET.get(level, 0.0) * self.budget_scale

    async def choose(self, seen: View, level: BotLevel, table: int = 0, who: Hashable = None) -> Move:
        """A move for the seat of ``seen`` (one of ``seen.moves``, which must not be empty). ``table`` picks
        the worker; ``who`` names the seat of one game, whose player is kept between its moves."""
        if len(seen.moves) == 1 or level is BotLevel.EASY:
            return decide(seen, level)  # instant: not worth a trip to a worker
        loop = asyncio.get_running_loop()
        lane = table % max(1, self.workers)
        pool = self._executor(lane)
        future = loop.run_in_executor(pool, decide, seen, level, self.budget_scale, who)
        self._thinking.add(future)
        began = loop.time()
        try:
            move = await asyncio.wait_for(future, self.patience)
            metrics.DECISION_SECONDS.labels(level.value).observe(loop.time() - began)
        except TimeoutError:
            log.error(
                "a computer player thought for over %.0f s; the heuristic player moves instead", self.patience
            )
            self._discard(lane, pool, stop=True)
            metrics.WORKER_RESTARTS.inc()
            return self._fallback.choose(seen)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a computer player failed; the heuristic player moves instead")
            self._discard(lane, pool)
            metrics.WORKER_RESTARTS.inc()
            return self._fallback.choose(seen)
        finally:
            self._thinking.discard(future)
        if move not in seen.moves:  # never trust a worker blindly: the engine would refuse it anyway
            log.error("a computer player chose an illegal move %s; the heuristic player moves instead", move)
            return self._fallback.choose(seen)
        return move

    def _executor(self, lane: int) -> Executor:
        pool = self._pools.get(lane)
        if pool is None:
            if self.workers > 0:
                context = multiprocessing.get_context("spawn")  # no fork of a process running threads
                pool = ProcessPoolExecutor(1, mp_context=context)
            else:
                pool = ThreadPoolExecutor(1, thread_name_prefix="thinker")
            self._pools[lane] = pool
        return pool

    def _discard(self, lane: int, pool: Executor | None = None, *, stop: bool = False) -> None:
        """Let ``lane``'s pool go (only ``pool``, if given: another decision may have replaced it already).
        ``stop``: its worker is stuck in a decision, which no executor can cancel: end the process."""
        current = self._pools.get(lane)
        if current is None or (pool is not None and current is not pool):
            return
        del self._pools[lane]
        if stop and isinstance(current, ProcessPoolExecutor):
            # Python 3.14 has ProcessPoolExecutor.terminate_workers; before it, only the private table.
            processes: dict[int, multiprocessing.Process] = getattr(current, "_processes", None) or {}
            for process in list(processes.values()):
                process.terminate()
        current.shutdown(wait=False, cancel_futures=True)

    async def stop(self) -> None:
        """The bot is stopping: decisions under way are abandoned (nothing was written; the next start takes
        those turns again), so their tasks end before the event loop closes instead of being destroyed
        pending, and the workers go."""
        for future in list(self._thinking):
            future.cancel()
        self.close()
        await asyncio.sleep(0)  # the abandoned decisions' tasks run to their end

    def close(self) -> None:
        for lane in list(self._pools):
            self._discard(lane)
