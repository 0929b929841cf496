"""The outbox: every message the bot sends or edits leaves through here, within Telegram's limits.

Telegram allows about one message a second into a chat, 20 a minute into a group (edits count) and 30 a
second overall, and answers 429 with ``retry_after`` past them. Each chat (and, as the limits model says, each
in-group receiver) is a lane with one task that sends its work in order of urgency: what a person waits for (a
reply, a menu they pressed, a result), then the redraws, which coalesce (only the latest state of a message is
drawn, when its turn comes). When the token's overall budget is short, lanes queue for it by priority
(bot.budget). A 429 for any call into a chat holds every lane into it until its ``retry_after``, and the same
work is tried again, never earlier; a chat that refuses the bot (403) gets nothing more until it writes again.
What a lane may send next, and when, is ``bot.pacing``'s; the lanes themselves, ``bot.lanes``'; each call to
Telegram, ``bot.delivery``'s. A tidy chat's deletions after a table ends are a redraw too (docs/groups.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from telegram import Bot, InlineKeyboardMarkup

from bot import budget
from bot.budget import Budget
from bot.delivery import Delivery, MigratedHook, PushHook, RefusedHook
from bot.ephemeral import Grants, Support
from bot.kept_paces import KeptPaces, PaceStore
from bot.kinds import TOLD_ONCE
from bot.lanes import Lanes
from bot.messages import Draft, Gone, TryAgain
from bot.pacing import Key, Lane, Limits, Queue, is_group, next_work

log = logging.getLogger(__name__)

MAX_FAILURES = 8  # a message somebody waits for is given up after this many failed tries in a row

DraftSource = Callable[[Key], Awaitable[Draft | None]]
# A message sent anew (its id), or a tidy-up done, or an in-group hand gone and not sent anew (0).
SentHook = Callable[[Key, int], Awaitable[None]]


class Outbox:
    def __init__(
        self,
        bot: Bot,
        source: DraftSource,
        *,
        on_sent: SentHook,
        on_refused: RefusedHook,
        on_migrated: MigratedHook,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.monotonic,
        paces: PaceStore | None = None,
        pushes: PushHook | None = None,
    ) -> None:
        """``pushes``: whether the bot may send ephemeral messages in a group at any time (it is an
        administrator there); without it, only as the answer to a press (``grant``)."""
        self.source = source
        self.on_sent = on_sent
        self.on_refused = on_refused
        self.limits = limits or Limits()
        self.clock = clock
        self._delivery = Delivery(
            bot, on_refused=self._refused_by, on_migrated=on_migrated, clock=clock, pushes=pushes
        )
        self._lanes = Lanes(self._run, self.limits.window, clock)
        self._budget = Budget(self.limits.global_budget, self.limits.global_window, clock)
        self._kept = KeptPaces(paces, self.limits.window, clock) if paces is not None else None
        self._refused: set[int] = set()  # chats that answered 403
        self._closed = False

    def share(self, processes: int) -> None:
        self._budget.share(processes)  # processes send for this token now: this one keeps its part

    def mark(self, chat_id: int, key: Key, *, priority: int = budget.LATER) -> None:
        """This message shows something else now: draw and send it when its turn comes (``priority``: how soon
        somebody needs it, bot.budget)."""
        if not self._closed and chat_id not in self._refused:
            self._mark(chat_id, key, priority)

    def mark_ephemeral(self, chat_id: int, receiver: int, key: Key, *, priority: int = budget.LATER) -> None:
        """As ``mark``, for a message in group ``chat_id`` that only ``receiver`` sees: paced as the limits
        model says (``Limits.ephemeral``). ``priority`` URGENT: the answer to the receiver's own press, which
        Telegram lets a bot that is not an administrator send for 15 seconds only: ahead of the redraws."""
        if self._closed or chat_id in self._refused or self.support.known is False:
            return
        if self.limits.ephemeral == "group" or chat_id in self.lanes.shared:
            self.lanes(chat_id).hands_until = self.clock() + self.limits.window
            self._mark(chat_id, key, priority)
        else:
            self._mark(("to", chat_id, receiver), key, priority)

    @property
    def grants(self) -> Grants:
        """Members' presses in groups: each lets the bot send its member an ephemeral message for a while."""
        return self._delivery.grants

    @property
    def support(self) -> Support:
        """Whether the Bot API server knows ephemeral messages (bot.ephemeral)."""
        return self._delivery.support

    def _mark(self, lane: Lane, key: Key, priority: int) -> None:
        chat = self.lanes(lane)
        chat.dirty[key] = min(priority, chat.dirty.get(key, priority))
        chat.since.setdefault(key, self.clock())
        if chat.asking is not None:  # its turn came while the chat waits for the budget: it waits as that
            self._budget.promote(chat.asking, priority)
        self.lanes.kick(lane)

    def lagging(self) -> bool:
        """The token is full: the hand of a player who just moved waits longer than a window of the overall
        budget before it is redrawn (bench/load.py: seconds, from about 100 busy tables on)."""
        return self._budget.lag(budget.OWN) > self.limits.global_window

    def held(self) -> dict[str, int]:
        """Entries of its in-memory maps now (bot.watch): lanes and their tasks follow the chats served in the
        last window, the rest are bounded."""
        return {**self.lanes.held(), "outbox_refused": len(self._refused), **self._delivery.held()}

    @property
    def lanes(self) -> Lanes:
        """Its lanes (bot.watch reads what waits in them)."""
        return self._lanes

    async def send(
        self,
        chat_id: int,
        text: str,
        *,
        keyboard: InlineKeyboardMarkup | None = None,
        thread_id: int | None = None,
        reply_to: int | None = None,
        message_id: int | None = None,
    ) -> int | None:
        """A message somebody waits for (a command's reply, a menu's new page: ``message_id`` edits that
        message): sent before any redraw, retried after a 429. Returns its id (None if the chat refused)."""
        if self._closed or chat_id in self._refused:
            return None
        done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        chat = self.lanes(chat_id)
        chat.urgent.append(
            (Draft(chat_id, message_id, text, keyboard, thread_id, reply_to), done, self.clock())
        )
        self.lanes.kick(chat_id)
        return await done

    def refuse(self, chat_id: int) -> None:
        """Nothing more is to be sent to this chat (the bot left it) until it writes again."""
        self._refused.add(chat_id)
        chat = self.lanes.drop(chat_id)
        if chat is not None:
            chat.release()

    async def _refused_by(self, chat_id: int) -> None:
        self.refuse(chat_id)
        await self.on_refused(chat_id)

    def forgive(self, chat_id: int) -> None:
        """The chat wrote to the bot again: it may be sent to."""
        self._refused.discard(chat_id)

    async def idle(self) -> None:
        """Wait until nothing is left to send (tests, shutdown)."""
        await self.lanes.idle()

    async def close(self, flush: float = 0.0) -> None:
        """Stop, after at most ``flush`` seconds of sending what is left (the database has everything)."""
        if flush:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.idle(), flush)
        self._closed = True
        await self.lanes.stop()
        if self._kept is not None:  # the budgets, for the next process
            await self._kept.flush()
        for chat in self.lanes:
            chat.release()

    # ------------------------------------------------------------------ one task per chat

    def _next(self, lane: Lane, chat: Queue) -> tuple[Key | None, int, float]:
        return next_work(lane, chat, self.limits, self.clock(), self.lanes.paused_until(lane))

    async def _run(self, lane: Lane) -> None:
        chat = self.lanes(lane)
        if is_group(lane) and self._kept is not None:
            await self._kept.recall(lane, chat)
        while (chat.urgent or chat.dirty) and lane not in self._refused and not self._closed:
            _, priority, wait = self._next(lane, chat)
            if wait > 0:
                chat.wake.clear()
                with contextlib.suppress(TimeoutError):  # urgent work arriving cuts a redraw's wait short
                    await asyncio.wait_for(chat.wake.wait(), wait)
                continue
            chat.asking = self._budget.ask(priority)
            try:
                slot = await chat.asking
            finally:
                chat.asking = None
            calls = chat.calls
            paused = self.lanes.paused_until(lane) > self.clock()  # a 429 by another lane meanwhile
            if lane in self._refused or self._closed or not (chat.urgent or chat.dirty) or paused:
                self._budget.done(slot, 0)
                continue
            waiting = chat.urgent[0] if chat.urgent else None
            key, _, _ = self._next(lane, chat)  # after the wait for a slot: what is there now
            was, queued_at = budget.LATER, self.clock()
            try:
                if waiting is not None:
                    message_id = await self._delivery.deliver(chat, waiting[0])
                    chat.settle(message_id)
                else:
                    assert key is not None
                    was = chat.dirty.pop(key)
                    queued_at = chat.since.pop(key, self.clock())
                    found = await self.source(key)
                    message_id = await self._delivery.deliver(chat, found) if found is not None else None
                    if key[0] not in TOLD_ONCE and found is not None:
                        chat.last_redraw = self.clock()  # spaced from when it went out (a hand held
                        # elsewhere draws nothing here, and holds the next redraw up for nothing)
                    chat.failures = 0
                    if found is not None and message_id is not None and message_id != found.message_id:
                        await self.on_sent(key, message_id)  # a new message (or one sent anew)
                    elif found is not None and found.deletes:
                        await self.on_sent(key, 0)  # deleted (or refused for good): not tried again
            except TryAgain as again:
                # A 429: nothing goes into its chat by any lane before ``again.until``; in-group hands paced
                # as their receivers' own that drew it count in the group's budget from now on.
                if again.chat_id is not None and self.lanes.pause(lane, again.chat_id, again.until):
                    log.warning("in-group hands drew a 429 in chat %s: counted in its budget", again.chat_id)
                if waiting is None and key is not None:
                    chat.dirty[key] = min(was, chat.dirty.get(key, was))  # drawn anew in its turn
                    chat.since[key] = min(queued_at, chat.since.get(key, queued_at))
                chat.failures += again.failure
                if chat.failures > MAX_FAILURES and waiting is not None:
                    log.error("giving up a message to chat %s after %d failures", lane, chat.failures)
                    chat.settle(None)
            except Gone:  # an in-group hand that is gone stays gone until its player presses something
                chat.failures = 0
                if key is not None:
                    await self.on_sent(key, 0)
            except Exception:  # one bad message must not stop the chat's other messages
                log.exception("sending to chat %s failed", lane)
                if waiting is not None:
                    chat.settle(None)
            finally:
                self._budget.done(slot, chat.calls - calls)
                if chat.calls != calls and is_group(lane) and self._kept is not None:
                    self._kept.keep(lane, chat)
