"""The outbox: every message the bot sends or edits leaves through here, within Telegram's limits.

Telegram allows about one message a second into a chat, 20 a minute into a group (edits count) and 30 a
second overall, and answers 429 with ``retry_after`` past them. Each chat has one task that sends its work in
order of urgency: first what a person waits for (a command's reply, a menu they pressed, a result), then the
redraws of table and hand messages. When the token's overall budget is short, the chats queue for it by rank
(bot.budget): the hand of whoever must act now, then the hand of the player who just moved, then the rest. Redraws coalesce (only the latest state of a message is drawn, when its
turn comes), keep a few of a group's sends a minute free for replies, and are spaced by the redraw interval.
A 429 is waited out and the same work tried again, never earlier; a redraw is drawn anew. A chat that refuses
the bot (403) gets nothing more until it writes again. A tidy chat's deletions after a table ends are a redraw
too, the group's last (docs/groups.md). Each call to Telegram is made by ``bot.delivery``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, TypeGuard

from telegram import Bot, InlineKeyboardMarkup

from bot import budget
from bot.budget import Budget
from bot.delivery import Delivery, Draft, MigratedHook, Pace, RefusedHook, TryAgain
from bot.kept_paces import KeptPaces, PaceStore

log = logging.getLogger(__name__)

MessageKind = Literal["table", "hand", "cards", "result", "broken", "tidy"]
# (kind, table id, seat): ("table", id, -1), ("hand", id, seat) in private, ("cards", id, seat) the same hand in
# the group (an ephemeral message), ("result", id, -1), ("broken", id, -1); ("tidy", id, -1) is no message but
# the group's messages that led to an ended table, to delete (its draft names them)
Key = tuple[MessageKind, int, int]
# Whose pace a piece of work keeps: a chat's (its id), or an ephemeral receiver's (``("to", user id)``).
Lane = int | tuple[str, int]
EphemeralModel = Literal["receiver", "group"]
URGENT: frozenset[MessageKind] = frozenset({"result", "broken"})  # told once, and people wait for them


@dataclass(frozen=True, slots=True)
class Limits:
    """Telegram's budgets (the defaults), or scaled down for tests."""

    window: float = 60.0  # seconds over which a group's budget counts
    group_budget: int = 20  # sends and edits into one group per window
    reserve: int = 4  # of those, kept free for replies: redraws wait when only this many are left
    chat_spacing: float = 1.0  # seconds between two sends into one chat
    global_budget: int = 30  # sends into all chats per global window
    global_window: float = 1.0
    group_redraw: float = 3.0  # seconds between two redraws in a group
    private_redraw: float = 1.0  # ... and in a private chat
    # How Telegram counts ephemeral messages (it does not say): each receiver as a private chat of its own, or
    # inside the group's budget. Either way the group's table and replies go before hands.
    ephemeral: EphemeralModel = "receiver"


MAX_FAILURES = 8  # a message somebody waits for is given up after this many failed tries in a row


DraftSource = Callable[[Key], Awaitable[Draft | None]]
SentHook = Callable[[Key, int], Awaitable[None]]  # a message sent anew (its id), or a tidy-up done (0)


@dataclass
class _Chat(Pace):
    # Work somebody waits for: the draft, who waits for it, and when it was queued.
    urgent: deque[tuple[Draft, asyncio.Future[int | None], float]] = field(default_factory=deque)
    dirty: dict[Key, int] = field(
        default_factory=dict
    )  # redraws in marking order, and their rank (bot.budget)
    asking: asyncio.Future[float] | None = None  # the slot of the overall budget this chat waits for
    since: dict[Key, float] = field(default_factory=dict)  # when each redraw was first marked
    last_redraw: float = 0.0
    failures: int = 0  # network failures in a row (a 429 is pacing, not a failure)
    wake: asyncio.Event = field(default_factory=asyncio.Event)


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
    ) -> None:
        self.source = source
        self.on_sent = on_sent
        self.on_refused = on_refused
        self.limits = limits or Limits()
        self.clock = clock
        self._delivery = Delivery(bot, on_refused=self._refused_by, on_migrated=on_migrated, clock=clock)
        self._chats: dict[Lane, _Chat] = {}
        self._tasks: dict[Lane, asyncio.Task[None]] = {}
        self._budget = Budget(self.limits.global_budget, self.limits.global_window, clock)
        self._kept = KeptPaces(paces, self.limits.window, clock) if paces is not None else None
        self._refused: set[int] = set()  # chats that answered 403
        self._closed = False

    # ------------------------------------------------------------------ what the bot asks

    def share(self, processes: int) -> None:
        """``processes`` bot processes send for this token now: this one keeps its part of the overall budget."""
        self._budget.share(processes)

    def mark(self, chat_id: int, key: Key, *, rank: int = budget.LATER) -> None:
        """This message shows something else now: draw and send it when its turn comes. When the overall
        budget is short, ``rank`` decides who goes first (bot.budget: ``SOON``, somebody must act on it;
        ``OWN``, its player just acted; ``LATER``, the rest)."""
        if self._closed or chat_id in self._refused:
            return
        self._mark(chat_id, key, rank)

    def mark_ephemeral(self, chat_id: int, receiver: int, key: Key, *, rank: int = budget.LATER) -> None:
        """As ``mark``, for a message in group ``chat_id`` that only ``receiver`` sees: paced as the limits
        model says (``Limits.ephemeral``)."""
        if self._closed or chat_id in self._refused:
            return
        self._mark(chat_id if self.limits.ephemeral == "group" else ("to", receiver), key, rank)

    def _mark(self, lane: Lane, key: Key, rank: int) -> None:
        chat = self._chat(lane)
        chat.dirty[key] = min(rank, chat.dirty.get(key, rank))
        chat.since.setdefault(key, self.clock())
        if chat.asking is not None:  # its turn came while the chat waits for the budget: it waits as that
            self._budget.promote(chat.asking, rank)
        self._kick(lane)

    def lagging(self) -> bool:
        """The token is full: the hand of a player who just moved waits longer than a window of the overall
        budget before it is redrawn (bench/load.py: seconds, from about 100 busy tables on)."""
        return self._budget.lag(budget.OWN) > self.limits.global_window

    def backlog(self) -> tuple[dict[str, int], float]:
        """What waits to be sent now, by priority (``urgent``: replies and results; ``soon``: hands of players
        who must act; ``own``: hands of players who just acted; ``later``: other redraws), and how many seconds
        the oldest of it has waited."""
        counts = {"urgent": 0, "soon": 0, "own": 0, "later": 0}
        names = {budget.SOON: "soon", budget.OWN: "own", budget.LATER: "later"}
        now, oldest = self.clock(), 0.0
        for chat in self._chats.values():
            counts["urgent"] += len(chat.urgent)
            if chat.urgent:
                oldest = max(oldest, now - chat.urgent[0][2])
            for key, rank in chat.dirty.items():
                counts["urgent" if key[0] in URGENT else names.get(rank, "later")] += 1
                oldest = max(oldest, now - chat.since.get(key, now))
        return counts, oldest

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
        chat = self._chat(chat_id)
        chat.urgent.append(
            (Draft(chat_id, message_id, text, keyboard, thread_id, reply_to), done, self.clock())
        )
        self._kick(chat_id)
        return await done

    def refuse(self, chat_id: int) -> None:
        """Nothing more is to be sent to this chat (the bot left it) until it writes again."""
        self._refused.add(chat_id)
        chat = self._chats.pop(chat_id, None)
        for _, done, _ in chat.urgent if chat else ():
            if not done.done():
                done.set_result(None)

    async def _refused_by(self, chat_id: int) -> None:
        self.refuse(chat_id)
        await self.on_refused(chat_id)

    def forgive(self, chat_id: int) -> None:
        """The chat wrote to the bot again: it may be sent to."""
        self._refused.discard(chat_id)

    async def idle(self) -> None:
        """Wait until nothing is left to send (tests, shutdown)."""
        while any(not t.done() for t in self._tasks.values()):
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def close(self, flush: float = 0.0) -> None:
        """Stop, after at most ``flush`` seconds of sending what is left (the database has everything)."""
        if flush:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.idle(), flush)
        self._closed = True
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        if self._kept is not None:  # the budgets, for the next process
            await self._kept.flush()
        for chat in self._chats.values():  # nobody waits for ever on a message that will not go out now
            for _, done, _ in chat.urgent:
                if not done.done():
                    done.set_result(None)

    # ------------------------------------------------------------------ one task per chat

    def _chat(self, lane: Lane) -> _Chat:
        return self._chats.setdefault(lane, _Chat())

    def _kick(self, lane: Lane) -> None:
        self._chat(lane).wake.set()
        task = self._tasks.get(lane)
        if task is None or task.done():
            self._tasks[lane] = asyncio.get_running_loop().create_task(self._run(lane))

    def _wait(self, lane: Lane, chat: _Chat, redraw: bool) -> float:
        """Seconds until this chat may send the next piece of work (0: now), the overall budget aside."""
        limits, now = self.limits, self.clock()
        while chat.sent and chat.sent[0] <= now - limits.window:
            chat.sent.popleft()
        ready = [chat.blocked_until, (chat.sent[-1] + limits.chat_spacing) if chat.sent else 0.0]
        group = _is_group(lane)
        if group:
            budget = limits.group_budget - (limits.reserve if redraw else 0)
            if len(chat.sent) >= budget:
                ready.append(chat.sent[len(chat.sent) - budget] + limits.window)
        if redraw:
            spacing = limits.group_redraw if group else limits.private_redraw
            ready.append(chat.last_redraw + spacing)
        return max(0.0, max(ready) - now)

    async def _run(self, lane: Lane) -> None:
        chat = self._chat(lane)
        if _is_group(lane) and self._kept is not None:
            await self._kept.recall(lane, chat)
        while (chat.urgent or chat.dirty) and lane not in self._refused and not self._closed:
            redraw = not chat.urgent and _told_once(chat) is None
            wait = self._wait(lane, chat, redraw)
            if wait > 0:
                chat.wake.clear()
                with contextlib.suppress(TimeoutError):  # urgent work arriving cuts a redraw's wait short
                    await asyncio.wait_for(chat.wake.wait(), wait)
                continue
            rank = budget.URGENT if not redraw else min(chat.dirty.values())
            chat.asking = self._budget.ask(rank)
            try:
                slot = await chat.asking
            finally:
                chat.asking = None
            calls = chat.calls
            if lane in self._refused or self._closed or not (chat.urgent or chat.dirty):
                self._budget.done(slot, 0)
                continue
            waiting = chat.urgent[0] if chat.urgent else None
            key = _told_once(chat)  # after the wait for a slot: what is there now
            was, queued_at = budget.LATER, self.clock()
            try:
                if waiting is not None:
                    message_id = await self._delivery.deliver(chat, waiting[0])
                    self._settle(chat, message_id)
                else:
                    key = key or _next_redraw(chat, _is_group(lane))
                    was = chat.dirty.pop(key)
                    queued_at = chat.since.pop(key, self.clock())
                    found = await self.source(key)
                    message_id = await self._delivery.deliver(chat, found) if found is not None else None
                    if key[0] not in URGENT and found is not None:
                        chat.last_redraw = self.clock()  # spaced from when it went out (a hand held
                        # elsewhere draws nothing here, and holds the next redraw up for nothing)
                    chat.failures = 0
                    if found is not None and message_id is not None and message_id != found.message_id:
                        await self.on_sent(key, message_id)  # a new message (or one sent anew)
                    elif found is not None and found.deletes:
                        await self.on_sent(key, 0)  # deleted (or refused for good): not tried again
            except TryAgain as again:
                if waiting is None and key is not None:
                    chat.dirty[key] = min(was, chat.dirty.get(key, was))  # drawn anew in its turn
                    chat.since[key] = min(queued_at, chat.since.get(key, queued_at))
                chat.failures += again.failure
                if chat.failures > MAX_FAILURES and waiting is not None:
                    log.error("giving up a message to chat %s after %d failures", lane, chat.failures)
                    self._settle(chat, None)
            except Exception:  # one bad message must not stop the chat's other messages
                log.exception("sending to chat %s failed", lane)
                if waiting is not None:
                    self._settle(chat, None)
            finally:
                self._budget.done(slot, chat.calls - calls)
                if chat.calls != calls and _is_group(lane) and self._kept is not None:
                    self._kept.keep(lane, chat)

    def _settle(self, chat: _Chat, message_id: int | None) -> None:
        """The first urgent piece of work is done (sent, or given up): its sender learns the message id."""
        _, done, _ = chat.urgent.popleft()
        chat.failures = 0
        if not done.done():
            done.set_result(message_id)


def _is_group(lane: Lane) -> TypeGuard[int]:
    return isinstance(lane, int) and lane < 0


def _next_redraw(chat: _Chat, group: bool) -> Key:
    """The redraw to draw next: in a group the table first (hands that share the group's budget wait for
    it), then by rank (a hand somebody must act on first), each rank in the order it was marked."""
    dirty = chat.dirty
    if group:
        table = next((k for k in dirty if k[0] == "table"), None)
        if table is not None:
            return table
    return min(dirty, key=dirty.__getitem__)


def _told_once(chat: _Chat) -> Key | None:
    """A result or a broken-table notice waiting in the chat (they go before its redraws)."""
    return next((k for k in chat.dirty if k[0] in URGENT), None)
