"""Telegram's overall sending budget (about 30 messages a second for the whole bot), granted in turn.

Every chat's outbox task asks for a slot before it sends. A slot is granted at once while the last window
holds fewer sends than the budget and nobody waits; otherwise the asker joins the queue of its priority (work
somebody waits for first, then the hands of players who must act now, then the hand of the player who just
moved, then every other redraw) and one timer grants the next slot when the oldest send leaves the window.
An asker whose work becomes more urgent while it waits (the other player moved: it is this player's turn
now) is moved up to that priority's queue, and a redraw that has waited ``AGING`` seconds moves up to the
priority of the hands of players who just moved, so that a token that is full for minutes still redraws every
group's table now and then. Each grant is counted from the moment it is made, so chats asking together
cannot all pass on the same count, and moved to when Telegram answered once the send is done, as a chat's own
spacing is. Without the queue, a few hundred busy chats all slept until the same instant, woke together, all
went past the budget at once and then all waited again: a burst every second that held every press's answer
up (bench/load.py, 300 tables).
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
    "deleteMessages": 0,  # up to 100 messages of one chat in one call (a tidy chat after a game)
    "sendMessage (ephemeral)": 1,
    "editEphemeralMessageText": 1,
    "deleteEphemeralMessage": 0,
}

# What Telegram charges for a message sent with ``allow_paid_broadcast`` (sends only: an edit cannot carry it).
STARS_A_MESSAGE = 0.1

# Priorities: a reply or a result; a hand whose player must act now (the turn); the hand of a player who just
# acted (they look at it); any other redraw (a group's table, hands nobody acts on).
URGENT, SOON, OWN, LATER = 0, 1, 2, 3
NO_SLOT = -1.0  # what a withdrawn request for a slot is answered
AGING = 5.0  # seconds a request waits before it moves up one priority
SPREAD = 6  # the budget is granted in this many parts of its window, not all at its start
KEPT = 10  # this part of the budget is for turns and replies only


class Budget:
    def __init__(self, budget: int, window: float, clock: Callable[[], float]) -> None:
        self.full = self.budget = budget
        self.window = window
        self.clock = clock
        self._sent: deque[float] = deque()  # grants and sends in the last window, oldest first
        # By priority: each asker, and since when it has waited at that priority.
        self._queues: tuple[deque[tuple[asyncio.Future[float], float]], ...] = tuple(
            deque() for _ in range(LATER + 1)
        )
        self._timer: asyncio.TimerHandle | None = None

    def free_in(self, priority: int = URGENT) -> float:
        """Seconds until a slot of ``priority`` is free (0: now): fewer sends than the budget in the window (a
        tenth of it kept for turns and replies: redraws nobody acts on leave room for a turn that comes in a
        burst), and fewer than a sixth of it in the last sixth. Without the second rule, slots freed together
        were granted together, the budget went out in a burst at the start of each window, and a turn that
        came just after waited for the next one (half a second at the median, bench/load.py at 150 tables)."""
        now = self.clock()
        sent = self._sent
        while sent and sent[0] <= now - self.window:
            sent.popleft()
        burst = max(1, self.budget // SPREAD)
        limit = self.budget - (self.budget // KEPT if priority > SOON else 0)
        ready = [now]
        if len(sent) >= limit:
            ready.append(sent[len(sent) - limit] + self.window)
        if len(sent) >= burst:
            ready.append(sent[len(sent) - burst] + self.window * burst / self.budget)
        return max(ready) - now

    def share(self, processes: int) -> None:
        """Several bot processes send for one token (bot/cluster.py): this one keeps its part of the budget."""
        self.budget = max(1, self.full // max(1, processes))
        if any(self._queues):
            self._schedule()

    def waiting(self) -> int:
        return sum(len(q) for q in self._queues)

    def lag(self, priority: int) -> float:
        """How long the oldest request of ``priority`` or more urgent has waited for a slot, in seconds (0:
        none waits)."""
        now = self.clock()
        return max((now - queue[0][1] for queue in self._queues[: priority + 1] if queue), default=0.0)

    async def take(self, priority: int) -> float:
        """A slot for one send of ``priority``; returns its stamp, to hand back to ``done``."""
        return await self.ask(priority)

    def ask(self, priority: int) -> asyncio.Future[float]:
        """As ``take``, the slot to be awaited: a caller that keeps it can ``promote`` it while it waits."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._age()  # who waited long enough is ahead of a newcomer at its new priority
        if not any(self._queues[: priority + 1]) and self.free_in(priority) == 0:
            future.set_result(self._grant())
            return future
        self._queues[priority].append((future, self.clock()))
        self._schedule()
        return future

    def promote(self, future: asyncio.Future[float], priority: int) -> None:
        """The work a waiting slot is for became more urgent: it waits at ``priority`` from now on (at the end
        of that priority's queue), if that is sooner than where it waits."""
        for worse in self._queues[priority + 1 :]:
            for entry in worse:
                if entry[0] is future:
                    worse.remove(entry)
                    self._queues[priority].append((future, self.clock()))
                    self._schedule()
                    return

    def withdraw(self, future: asyncio.Future[float]) -> bool:
        """A waiting slot is no longer wanted from this budget: it is answered ``NO_SLOT`` (its chat looks
        again at what to send, and where). False if it was not waiting here."""
        for queue in self._queues:
            for entry in queue:
                if entry[0] is future:
                    queue.remove(entry)
                    future.set_result(NO_SLOT)
                    self._schedule()
                    return True
        return False

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
        self._age()
        for priority, queue in enumerate(self._queues):
            while queue:
                if queue[0][0].done():  # its task was cancelled (shutting down)
                    queue.popleft()
                    continue
                wait = self.free_in(priority)
                if wait > 0:
                    self._timer = asyncio.get_running_loop().call_later(wait, self._schedule)
                    return
                queue.popleft()[0].set_result(self._grant())

    def _age(self) -> None:
        """Who has waited ``AGING`` seconds at a priority moves up one (each queue is oldest first), but never
        into the turns' own priority: a token full for minutes would otherwise serve everything in one queue,
        oldest first, and a turn would wait behind every table."""
        now = self.clock()
        for priority in range(OWN + 1, LATER + 1):
            queue = self._queues[priority]
            while queue and queue[0][1] <= now - AGING:
                future, _ = queue.popleft()
                self._queues[priority - 1].append((future, now))
