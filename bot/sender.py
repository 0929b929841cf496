"""The outbox's lanes at work (bot.outbox): one task per lane sends its work in order of urgency, each
call within a slot of the token's overall budget (bot.budget; past it, paid for where bot.paid allows), and
keeps the work queued when Telegram asks to wait or the network fails."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable

from bot import budget
from bot.budget import Budget
from bot.delivery import Delivery
from bot.kept_paces import KeptPaces
from bot.kinds import FREE, TOLD_ONCE
from bot.lanes import Lanes
from bot.messages import Draft, Gone, TryAgain, Unpaid
from bot.pacing import Key, Lane, Limits, Queue, is_group, next_work
from bot.paid import Paid

log = logging.getLogger(__name__)

MAX_FAILURES = 8  # a message somebody waits for is given up after this many failed tries in a row
# A lane whose calls fail (a network failure, Telegram's 5xx) waits before the next try: 1, 2, 4 ... 60 s
# after the 1st, 2nd, 3rd ... failure in a row, each drawn between half and all of that, so that lanes that
# failed together (an outage) do not all come back in the same second.
BACKOFF_FIRST, BACKOFF_CAP = 1.0, 60.0


def backoff(failures: int, draw: Callable[[float, float], float] = random.uniform) -> float:
    """Seconds to wait after the ``failures``-th failure in a row."""
    step = min(BACKOFF_CAP, BACKOFF_FIRST * 2 ** min(failures - 1, 16))
    return draw(step / 2, step)


DraftSource = Callable[[Key], Awaitable[Draft | None]]
# A message sent anew (its id), or a tidy-up done, or an in-group hand gone and not sent anew (0).
SentHook = Callable[[Key, int], Awaitable[None]]


class Sender:
    def __init__(
        self,
        lanes: Lanes,
        delivery: Delivery,
        budgets: tuple[Budget, Paid],
        *,
        source: DraftSource,
        on_sent: SentHook,
        limits: Limits,
        clock: Callable[[], float],
        kept: KeptPaces | None,
        stopped: Callable[[Lane], bool],
    ) -> None:
        self.lanes, self.delivery = lanes, delivery
        self.budget, self.paid = budgets
        self.source, self.on_sent = source, on_sent
        self.limits, self.clock, self.kept, self.stopped = limits, clock, kept, stopped

    def next(self, lane: Lane, chat: Queue) -> tuple[Key | None, int, float]:
        """The lane's next work (bot.pacing): its key (None: a reply first), priority, and the wait before it."""
        return next_work(lane, chat, self.limits, self.clock(), self.lanes.paused_until(lane))

    async def run(self, lane: Lane) -> None:
        chat = self.lanes(lane)
        if is_group(lane) and self.kept is not None:
            await self.kept.recall(lane, chat)
        while (chat.urgent or chat.dirty) and not self.stopped(lane):
            upcoming, priority, wait = self.next(lane, chat)
            if wait > 0:
                chat.wake.clear()
                with contextlib.suppress(TimeoutError):  # urgent work arriving cuts a redraw's wait short
                    await asyncio.wait_for(chat.wake.wait(), wait)
                continue
            paying = await self.paid.payable(self.budget, chat, upcoming, priority, self.source)
            pool = self.budget if paying is None or self.paid.budget is None else self.paid.budget
            chat.asking = pool.ask(priority)
            try:
                slot = await chat.asking
            finally:
                chat.asking = None
            if slot == budget.NO_SLOT:  # its turn came while it waited for the free budget: looked at again
                continue
            calls = chat.calls
            paused = self.lanes.paused_until(lane) > self.clock()  # a 429 by another lane meanwhile
            if self.stopped(lane) or not (chat.urgent or chat.dirty) or paused:
                pool.done(slot, 0)
                continue
            waiting = chat.urgent[0] if chat.urgent else None
            key, _, _ = self.next(lane, chat)  # after the wait for a slot: what is there now
            was, queued_at = budget.LATER, self.clock()
            try:
                if waiting is not None:
                    paid = paying is not None and waiting[0] is paying[1]
                    message_id = await self.delivery.deliver(chat, waiting[0], paid=paid)
                    self.paid.spent(paid and message_id is not None)
                    chat.settle(message_id)
                else:
                    assert key is not None
                    was = chat.dirty.pop(key)
                    queued_at = chat.since.pop(key, self.clock())
                    # A hand drawn to see whether it could be paid for is sent as drawn (a moment ago).
                    drawn = paying[1] if paying is not None and paying[0] == key else None
                    found = drawn or await self.source(key)
                    message_id = (
                        await self.delivery.deliver(chat, found, paid=found is drawn)
                        if found is not None
                        else None
                    )
                    self.paid.spent(drawn is not None and found is drawn and message_id is not None)
                    if key[0] not in TOLD_ONCE | FREE and found is not None:
                        chat.last_redraw = self.clock()  # spaced from when it went out (a hand held
                        # elsewhere draws nothing here, and holds the next redraw up for nothing)
                    chat.failures = 0
                    if found is not None and message_id is not None and message_id != found.message_id:
                        await self.on_sent(key, message_id)  # a new message (or one sent anew)
                    elif found is not None and found.deletes:
                        await self.on_sent(key, 0)  # deleted (or refused for good): not tried again
            except TryAgain as again:
                self._again(lane, chat, again, None if waiting is not None else key, was, queued_at)
            except Gone:  # an in-group hand that is gone stays gone until its player presses something
                chat.failures = 0
                if key is not None:
                    await self.on_sent(key, 0)
            except Exception:  # one bad message must not stop the chat's other messages
                log.exception("sending to chat %s failed", lane)
                if waiting is not None:
                    chat.settle(None)
            finally:
                pool.done(slot, chat.calls - calls)
                if chat.calls != calls and is_group(lane) and self.kept is not None:
                    self.kept.keep(lane, chat)

    def _again(
        self, lane: Lane, chat: Queue, again: TryAgain, key: Key | None, was: int, queued_at: float
    ) -> None:
        """The work stays queued (``key``: a redraw's, else the first the chat waits for). After a 429,
        nothing goes into its chat by any lane before ``again.until``; in-group hands paced as their
        receivers' own that drew it count in the group's budget from now on."""
        if isinstance(again, Unpaid):
            self.paid.refused(again.reason)
        if again.chat_id is not None and self.lanes.pause(lane, again.chat_id, again.until):
            log.warning("in-group hands drew a 429 in chat %s: counted in its budget", again.chat_id)
        if key is not None:
            chat.dirty[key] = min(was, chat.dirty.get(key, was))  # drawn anew in its turn
            chat.since[key] = min(queued_at, chat.since.get(key, queued_at))
        chat.failures += again.failure
        if again.failure:
            wait = backoff(chat.failures)
            chat.blocked_until = max(chat.blocked_until, self.clock() + wait)
            log.warning(
                "sending to chat %s failed (%s): failure %d in a row, next try in %.1f s",
                lane,
                again.reason,
                chat.failures,
                wait,
            )
        if chat.failures > MAX_FAILURES and key is None and chat.urgent:
            log.error("giving up a message to chat %s after %d failures", lane, chat.failures)
            chat.settle(None)
