"""The outbox: every message the bot sends or edits leaves through here, within Telegram's limits.

Telegram allows about one message a second into a chat, 20 a minute into a group (edits count) and 30 a
second overall, and answers 429 with ``retry_after`` past them. Each chat (and, as the limits model says, each
in-group receiver) is a lane with one task that sends its work in order of urgency: what a person waits for (a
reply, a menu they pressed, a result), then the redraws, which coalesce (only the latest state of a message is
drawn, when its turn comes). When the token's overall budget is short, lanes queue for it by priority
(bot.budget). A 429 for any call into a chat holds every lane into it until its ``retry_after``, and the same
work is tried again, never earlier; a chat that refuses the bot (403) gets nothing more until it writes again.
What a lane may send next, and when, is ``bot.pacing``'s; the lanes themselves, ``bot.lanes``'; their tasks,
``bot.sender``'s; each call to Telegram, ``bot.delivery``'s; paying past the overall budget, ``bot.paid``'s. A tidy chat's deletions after a table ends are a redraw too (docs/groups.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from telegram import Bot, InlineKeyboardMarkup

from bot import budget
from bot.budget import Budget
from bot.delivery import Delivery, MigratedHook, PushHook, RefusedHook
from bot.ephemeral import Grants, Support
from bot.kept_paces import KeptPaces, PaceStore
from bot.lanes import Lanes
from bot.messages import Draft
from bot.pacing import Key, Lane, Limits, Queue
from bot.paid import Paid
from bot.sender import DraftSource, Sender, SentHook

log = logging.getLogger(__name__)


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
        self._budget = Budget(self.limits.global_budget, self.limits.global_window, clock)
        self._paid = Paid(self.limits.paid_budget, self.limits.global_window, clock)
        self._kept = KeptPaces(paces, self.limits.window, clock) if paces is not None else None
        self._refused: set[int] = set()  # chats that answered 403
        self._closed = False
        self._lanes = Lanes(lambda lane: self._sender.run(lane), self.limits.window, clock)
        self._sender = Sender(
            self._lanes,
            self._delivery,
            (self._budget, self._paid),
            source=source,
            on_sent=on_sent,
            limits=self.limits,
            clock=clock,
            kept=self._kept,
            stopped=self.stopped,
        )

    def share(self, processes: int) -> None:
        for pool in self._paid.pools(self._budget):  # processes send for this token: this one keeps its part
            pool.share(processes)

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
        self._mark(self._lane(chat_id, receiver), key, priority)

    def _lane(self, chat_id: int, receiver: int | None) -> Lane:
        """Whose pace a message into ``chat_id`` keeps: the chat's, or (seen by ``receiver`` alone) as the
        limits model says (``Limits.ephemeral``)."""
        if receiver is None:
            return chat_id
        if self.limits.ephemeral == "group" or chat_id in self.lanes.shared:
            self.lanes(chat_id).hands_until = self.clock() + self.limits.window
            return chat_id
        return ("to", chat_id, receiver)

    @property
    def grants(self) -> Grants:
        """Members' presses in groups: each lets the bot send its member an ephemeral message for a while."""
        return self._delivery.grants

    def delivered_ago(self) -> float:
        """Seconds since Telegram last took a send or an edit (or since the start)."""
        return self.clock() - self._delivery.delivered

    @property
    def support(self) -> Support:
        """Whether the Bot API server knows ephemeral messages (bot.ephemeral)."""
        return self._delivery.support

    def _mark(self, lane: Lane, key: Key, priority: int) -> None:
        chat = self.lanes(lane)
        chat.dirty[key] = min(priority, chat.dirty.get(key, priority))
        chat.since.setdefault(key, self.clock())
        if chat.asking is not None:  # its turn came while the chat waits for the budget: it waits as that
            for pool in self._paid.pools(self._budget):
                pool.promote(chat.asking, priority)
            if priority <= budget.SOON and self._paid.budget is not None:  # a turn: it may be paid for now
                self._budget.withdraw(chat.asking)
        self.lanes.kick(lane)

    def _next(self, lane: Lane, chat: Queue) -> tuple[Key | None, int, float]:
        return self._sender.next(lane, chat)

    def stopped(self, lane: Lane) -> bool:
        """Nothing more goes out of this lane: the outbox is closed, or its chat refused the bot."""
        return self._closed or lane in self._refused

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
        receiver: int | None = None,
    ) -> int | None:
        """A message somebody waits for (a command's reply, a menu's new page: ``message_id`` edits that
        message): sent before any redraw, retried after a 429. Returns its id (None if the chat refused, or
        if it was to be seen by ``receiver`` alone and Telegram does not allow that now)."""
        if self._closed or chat_id in self._refused:
            return None
        done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        lane = self._lane(chat_id, receiver)
        draft = Draft(chat_id, message_id, text, keyboard, thread_id, reply_to, receiver=receiver)
        self.lanes(lane).urgent.append((draft, done, self.clock()))
        self.lanes.kick(lane)
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
