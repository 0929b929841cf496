"""The outbox: every message the bot sends or edits leaves through here, within Telegram's limits.

Telegram allows about one message a second into a chat, 20 a minute into a group (edits count) and 30 a
second overall, and answers 429 with ``retry_after`` past them. Each chat has one task that sends its work in
order of urgency: first what a person waits for (a command's reply, a menu they pressed, a result), then the
redraws of table and hand messages. When the token's overall budget is short, the chats queue for it by rank
(bot.budget): the hand of whoever must act now, then the hand of the player who just moved, then the rest.
Redraws coalesce (only the latest state of a message is drawn, when its turn comes), keep a few of a group's
sends a minute free for replies (and, where in-group hands share a group's budget, a few for the turns), and
are spaced by the redraw interval.
A 429 is waited out and the same work tried again, never earlier; a redraw is drawn anew. Telegram's limits
are per chat, so a 429 for any call into a chat holds every lane into it (its own, and its in-group hands')
until its ``retry_after``; a group whose in-group hands draw one counts them in its own budget from then on.
A chat that refuses the bot (403) gets nothing more until it writes again. A tidy chat's deletions after a
table ends are a redraw too, the group's last (docs/groups.md). What a lane may send next, and when, is
``bot.pacing``'s; each call to Telegram is made by ``bot.delivery``. A lane with nothing to send that sent
nothing for a window is freed.
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
from bot.delivery import Delivery, Draft, Gone, MigratedHook, PushHook, RefusedHook, TryAgain
from bot.ephemeral import Support
from bot.kept_paces import KeptPaces, PaceStore
from bot.pacing import URGENT, Key, Lane, Limits, Queue, chat_of, is_group, next_work

log = logging.getLogger(__name__)

SWEEP_FIRST = 100  # lanes (chats, and in-group receivers) kept before idle ones are looked for and freed
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
        self._paused: dict[int, float] = {}  # chat -> until when Telegram asked us to leave it alone (429)
        self._shared: set[int] = set()  # groups whose in-group hands drew a 429: counted in their budget
        self._chats: dict[Lane, Queue] = {}
        self._tasks: dict[Lane, asyncio.Task[None]] = {}
        self._budget = Budget(self.limits.global_budget, self.limits.global_window, clock)
        self._kept = KeptPaces(paces, self.limits.window, clock) if paces is not None else None
        self._refused: set[int] = set()  # chats that answered 403
        self._sweep_at = SWEEP_FIRST  # lanes kept before the idle ones are looked for and freed
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
        model says (``Limits.ephemeral``). ``rank`` URGENT: the answer to the receiver's own press, which
        Telegram lets a bot that is not an administrator send for 15 seconds only: ahead of the redraws."""
        if self._closed or chat_id in self._refused or self.support.known is False:
            return
        if self.limits.ephemeral == "group" or chat_id in self._shared:
            self._chat(chat_id).hands_until = self.clock() + self.limits.window
            self._mark(chat_id, key, rank)
        else:
            self._mark(("to", chat_id, receiver), key, rank)

    def grant(self, chat_id: int, user_id: int, query_id: str) -> None:
        """A member pressed a button in a group: the bot may send them an ephemeral message for a while."""
        self._delivery.grants.note(chat_id, user_id, query_id)

    def answerable(self, chat_id: int, user_id: int) -> bool:
        """A press of this member's in the group lets the bot send them a message there now."""
        return self._delivery.grants.fresh(chat_id, user_id) is not None

    @property
    def support(self) -> Support:
        """Whether the Bot API server knows ephemeral messages (bot.ephemeral)."""
        return self._delivery.support

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

    def held(self) -> dict[str, int]:
        """Entries of its in-memory maps now (bot.watch): lanes and their tasks follow the chats served in the
        last window, the rest are bounded."""
        return {
            "outbox_lanes": len(self._chats),
            "outbox_tasks": len(self._tasks),
            "outbox_pauses": len(self._paused),
            "outbox_refused": len(self._refused),
            **self._delivery.held(),
        }

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

    def _chat(self, lane: Lane) -> Queue:
        return self._chats.setdefault(lane, Queue())

    def _kick(self, lane: Lane) -> None:
        if len(self._chats) >= self._sweep_at:
            self._sweep()
        self._chat(lane).wake.set()
        task = self._tasks.get(lane)
        if task is None or task.done():
            self._tasks[lane] = asyncio.get_running_loop().create_task(self._run(lane))

    def _sweep(self) -> None:
        """Lanes with nothing to send and nothing sent for a window go (their pace no longer counts; a group's
        is kept in the database anyway): memory follows the chats the bot talks to now, not every chat ever."""
        now = self.clock()
        horizon = now - self.limits.window

        def idle(lane: Lane, chat: Queue) -> bool:
            task = self._tasks.get(lane)
            quiet = not chat.sent or chat.sent[-1] <= horizon
            waits = chat.urgent or chat.dirty or chat.asking is not None or chat.blocked_until > now
            return quiet and not waits and chat.hands_until <= now and (task is None or task.done())

        for lane in [lane for lane, chat in self._chats.items() if idle(lane, chat)]:
            del self._chats[lane]
            self._tasks.pop(lane, None)
        self._sweep_at = max(SWEEP_FIRST, 2 * len(self._chats))

    def _next(self, lane: Lane, chat: Queue) -> tuple[Key | None, int, float]:
        return next_work(lane, chat, self.limits, self.clock(), self._paused.get(chat_of(lane), 0.0))

    def _pause(self, lane: Lane, again: TryAgain) -> None:
        """A 429: nothing goes into its chat by any lane before ``again.until``. In-group hands paced as their
        receivers' own (``Limits.ephemeral``) that drew it are counted in the group's budget from now on."""
        if again.chat_id is None:
            return
        if len(self._paused) > 1000:  # memory stays bounded: drop the pauses that are over
            now = self.clock()
            self._paused = {c: until for c, until in self._paused.items() if until > now}
        self._paused[again.chat_id] = max(again.until, self._paused.get(again.chat_id, 0.0))
        if isinstance(lane, tuple) and again.chat_id not in self._shared:
            self._shared.add(again.chat_id)
            log.warning(
                "in-group hands drew a 429 in chat %s: counted in the group's budget from now on",
                again.chat_id,
            )

    async def _run(self, lane: Lane) -> None:
        chat = self._chat(lane)
        if is_group(lane) and self._kept is not None:
            await self._kept.recall(lane, chat)
        while (chat.urgent or chat.dirty) and lane not in self._refused and not self._closed:
            _, rank, wait = self._next(lane, chat)
            if wait > 0:
                chat.wake.clear()
                with contextlib.suppress(TimeoutError):  # urgent work arriving cuts a redraw's wait short
                    await asyncio.wait_for(chat.wake.wait(), wait)
                continue
            chat.asking = self._budget.ask(rank)
            try:
                slot = await chat.asking
            finally:
                chat.asking = None
            calls = chat.calls
            paused = self._paused.get(chat_of(lane), 0.0) > self.clock()  # a 429 by another lane meanwhile
            if lane in self._refused or self._closed or not (chat.urgent or chat.dirty) or paused:
                self._budget.done(slot, 0)
                continue
            waiting = chat.urgent[0] if chat.urgent else None
            key, _, _ = self._next(lane, chat)  # after the wait for a slot: what is there now
            was, queued_at = budget.LATER, self.clock()
            try:
                if waiting is not None:
                    message_id = await self._delivery.deliver(chat, waiting[0])
                    self._settle(chat, message_id)
                else:
                    assert key is not None
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
                self._pause(lane, again)
                if waiting is None and key is not None:
                    chat.dirty[key] = min(was, chat.dirty.get(key, was))  # drawn anew in its turn
                    chat.since[key] = min(queued_at, chat.since.get(key, queued_at))
                chat.failures += again.failure
                if chat.failures > MAX_FAILURES and waiting is not None:
                    log.error("giving up a message to chat %s after %d failures", lane, chat.failures)
                    self._settle(chat, None)
            except Gone:  # an in-group hand that is gone stays gone until its player presses something
                chat.failures = 0
                if key is not None:
                    await self.on_sent(key, 0)
            except Exception:  # one bad message must not stop the chat's other messages
                log.exception("sending to chat %s failed", lane)
                if waiting is not None:
                    self._settle(chat, None)
            finally:
                self._budget.done(slot, chat.calls - calls)
                if chat.calls != calls and is_group(lane) and self._kept is not None:
                    self._kept.keep(lane, chat)

    def _settle(self, chat: Queue, message_id: int | None) -> None:
        """The first urgent piece of work is done (sent, or given up): its sender learns the message id."""
        _, done, _ = chat.urgent.popleft()
        chat.failures = 0
        if not done.done():
            done.set_result(message_id)
