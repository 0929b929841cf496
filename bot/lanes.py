"""The outbox's lanes: one queue of work and one task per chat (or in-group receiver) it serves, made when
work comes and freed when a lane has had nothing to send and sent nothing for a window, so that memory follows
the chats the bot talks to now, not every chat it ever served; and the chats a 429 holds (Telegram's limits
are per chat: the pause holds every lane into it)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

from bot import budget
from bot.kinds import TOLD_ONCE
from bot.pacing import Lane, Queue, chat_of

SWEEP_FIRST = 100  # lanes kept before idle ones are looked for and freed


class Lanes:
    def __init__(
        self, run: Callable[[Lane], Coroutine[Any, Any, None]], window: float, clock: Callable[[], float]
    ) -> None:
        self._run = run  # a lane's task: sends its work until it has none
        self.window = window
        self.clock = clock
        self.queues: dict[Lane, Queue] = {}
        self.tasks: dict[Lane, asyncio.Task[None]] = {}
        self._sweep_at = SWEEP_FIRST
        self.paused: dict[int, float] = {}  # chat -> until when Telegram asked us to leave it alone (429)
        self.shared: set[int] = set()  # groups whose in-group hands drew a 429: counted in their budget

    def __call__(self, lane: Lane) -> Queue:
        return self.queues.setdefault(lane, Queue())

    def __iter__(self) -> Iterator[Queue]:
        return iter(list(self.queues.values()))

    def kick(self, lane: Lane) -> None:
        """Work came for the lane: its task runs (started if it was not)."""
        if len(self.queues) >= self._sweep_at:
            self.sweep()
        self(lane).wake.set()
        task = self.tasks.get(lane)
        if task is None or task.done():
            self.tasks[lane] = asyncio.get_running_loop().create_task(self._run(lane))

    def pause(self, lane: Lane, chat_id: int, until: float) -> bool:
        """A 429 for a call of ``lane``: nothing goes into ``chat_id`` by any lane before ``until``. True if
        the lane is an in-group receiver's whose group now counts its in-group hands in its own budget."""
        if len(self.paused) > 1000:  # memory stays bounded: drop the pauses that are over
            now = self.clock()
            self.paused = {c: end for c, end in self.paused.items() if end > now}
        self.paused[chat_id] = max(until, self.paused.get(chat_id, 0.0))
        if isinstance(lane, tuple) and chat_id not in self.shared:
            self.shared.add(chat_id)
            return True
        return False

    def paused_until(self, lane: Lane) -> float:
        return self.paused.get(chat_of(lane), 0.0)

    def drop(self, lane: Lane) -> Queue | None:
        self.tasks.pop(lane, None)
        return self.queues.pop(lane, None)

    def sweep(self) -> None:
        """Lanes with nothing to send and nothing sent for a window go (their pace no longer counts; a group's
        is kept in the database anyway)."""
        now = self.clock()
        horizon = now - self.window

        def idle(lane: Lane, chat: Queue) -> bool:
            task = self.tasks.get(lane)
            quiet = not chat.sent or chat.sent[-1] <= horizon
            waits = chat.urgent or chat.dirty or chat.asking is not None or chat.blocked_until > now
            return quiet and not waits and chat.hands_until <= now and (task is None or task.done())

        for lane in [lane for lane, chat in self.queues.items() if idle(lane, chat)]:
            self.drop(lane)
        self._sweep_at = max(SWEEP_FIRST, 2 * len(self.queues))

    async def idle(self) -> None:
        """Wait until no lane has anything left to send."""
        while any(not t.done() for t in self.tasks.values()):
            await asyncio.gather(*self.tasks.values(), return_exceptions=True)

    async def stop(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)

    def backlog(self) -> tuple[dict[str, int], float]:
        """What waits to be sent now, by priority (``urgent``: replies and results; ``soon``: hands of
        players who must act; ``own``: hands of players who just acted; ``later``: other redraws), and how
        many seconds the oldest of it has waited."""
        counts = {"urgent": 0, "soon": 0, "own": 0, "later": 0}
        names = {budget.SOON: "soon", budget.OWN: "own", budget.LATER: "later"}
        now, oldest = self.clock(), 0.0
        for chat in self.queues.values():
            counts["urgent"] += len(chat.urgent)
            if chat.urgent:
                oldest = max(oldest, now - chat.urgent[0][2])
            for key, priority in chat.dirty.items():
                counts["urgent" if key[0] in TOLD_ONCE else names.get(priority, "later")] += 1
                oldest = max(oldest, now - chat.since.get(key, now))
        return counts, oldest

    def held(self) -> dict[str, int]:
        return {
            "outbox_lanes": len(self.queues),
            "outbox_tasks": len(self.tasks),
            "outbox_pauses": len(self.paused),
        }
