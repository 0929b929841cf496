"""Telegram's overall sending budget (about 30 messages a second for the whole bot), granted in turn.

Every chat's outbox task asks for a slot before it sends. A slot is granted at once while the last window
holds fewer sends than the budget and nobody waits; otherwise the asker joins the queue of its rank (work
somebody waits for first, then the hands of players who must act now, then every other redraw) and one timer
grants the next slot when the oldest send leaves the window. Each grant
is counted from the moment it is made, so chats asking together cannot all pass on the same count, and
moved to when Telegram answered once the send is done, as a chat's own spacing is. Without the queue, a few
hundred busy chats all slept until the same instant, woke together, all went past the budget at once and
then all waited again: a burst every second that held every press's answer up (bench/load.py, 300 tables).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable

# What each call the outbox makes costs against Telegram's limits (a chat's spacing, a group's 20 a minute,
# the token's 30 a second). Telegram documents that messages sent count; edits are believed to count the
# same; deletions are believed not to. An operator who learns better changes a line here, and nothing else.
COST: dict[str, int] = {
    "sendMessage": 1,
    "editMessageText": 1,
    "deleteMessage": 0,
    "sendMessage (ephemeral)": 1,
    "editEphemeralMessageText": 1,
    "deleteEphemeralMessage": 0,
}

URGENT, SOON, LATER = 0, 1, 2  # ranks: a reply or result; a hand whose player must act; any other redraw


class Budget:
    def __init__(self, budget: int, window: float, clock: Callable[[], float]) -> None:
        self.full = self.budget = budget
        self.window = window
        self.clock = clock
        self._sent: deque[float] = deque()  # grants and sends in the last window, oldest first
        self._queues: tuple[deque[asyncio.Future[float]], ...] = (deque(), deque(), deque())  # by rank
        self._timer: asyncio.TimerHandle | None = None

    def free_in(self) -> float:
        """Seconds until a slot is free (0: now)."""
        now = self.clock()
        while self._sent and self._sent[0] <= now - self.window:
            self._sent.popleft()
        if len(self._sent) < self.budget:
            return 0.0
        return max(0.0, self._sent[len(self._sent) - self.budget] + self.window - now)

    def share(self, processes: int) -> None:
        """Several bot processes send for one token (bot/cluster.py): this one keeps its part of the budget."""
        self.budget = max(1, self.full // max(1, processes))
        if any(self._queues):
            self._schedule()

    def waiting(self) -> int:
        return sum(len(q) for q in self._queues)

    async def take(self, rank: int) -> float:
        """A slot for one send of ``rank``; returns its stamp, to hand back to ``done``."""
        if not any(self._queues[: rank + 1]) and self.free_in() == 0:
            return self._grant()
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._queues[rank].append(future)
        self._schedule()
        return await future

    def done(self, stamp: float, sends: int) -> None:
        """The send a slot was taken for is over: ``sends`` went out (0: the slot was not needed)."""
        with contextlib.suppress(ValueError):
            self._sent.remove(stamp)
        self._sent.extend([self.clock()] * sends)
        self._schedule()

    def _grant(self) -> float:
        stamp = self.clock()
        self._sent.append(stamp)
        return stamp

    def _schedule(self) -> None:
        """Grant what is free now to those waiting first; set the timer for the next free slot."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for queue in self._queues:
            while queue:
                if queue[0].done():  # its task was cancelled (shutting down)
                    queue.popleft()
                    continue
                wait = self.free_in()
                if wait > 0:
                    self._timer = asyncio.get_running_loop().call_later(wait, self._schedule)
                    return
                queue.popleft().set_result(self._grant())
