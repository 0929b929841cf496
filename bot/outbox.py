"""The outbox: every message the bot sends or edits leaves through here, within Telegram's limits.

Telegram allows about one message a second into a chat, 20 a minute into a group (edits count) and 30 a
second overall, and answers 429 with ``retry_after`` past them. Each chat has one task that sends its work in
order of urgency: first what a person waits for (a command's reply, a menu they pressed, a result), then the
redraws of table and hand messages. Redraws coalesce (only the latest state of a message is drawn, when its
turn comes), keep a few of a group's sends a minute free for replies, and are spaced by the redraw interval.
A 429 is waited out and the same work tried again, never earlier; a redraw is drawn anew. An edit that would
not change the message is not sent. A chat that refuses the bot (403) gets nothing more until it writes again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot import budget
from bot.budget import Budget

log = logging.getLogger(__name__)

MessageKind = Literal["table", "hand", "result", "broken"]
# (kind, table id, seat): ("table", id, -1), ("hand", id, seat), ("result", id, -1), ("broken", id, -1)
Key = tuple[MessageKind, int, int]
URGENT: frozenset[MessageKind] = frozenset({"result", "broken"})  # told once, and people wait for them


@dataclass(frozen=True, slots=True)
class Draft:
    """What one message should show now. ``message_id`` None: send it as a new message, which makes the
    phone sound (an edit never does), and then delete ``replaces``: the same message moved to the bottom of
    the chat with a notification, instead of a second message."""

    chat_id: int
    message_id: int | None
    text: str
    keyboard: InlineKeyboardMarkup | None
    thread_id: int | None = None
    reply_to: int | None = None
    replaces: int | None = None


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


MAX_FAILURES = 8  # a message somebody waits for is given up after this many failed tries in a row

DraftSource = Callable[[Key], Awaitable[Draft | None]]
SentHook = Callable[[Key, int], Awaitable[None]]
RefusedHook = Callable[[int], Awaitable[None]]
MigratedHook = Callable[[int, int], Awaitable[None]]


@dataclass
class _Chat:
    urgent: deque[tuple[Draft, asyncio.Future[int | None]]] = field(default_factory=deque)
    dirty: dict[Key, bool] = field(default_factory=dict)  # redraws in marking order: True, soon
    sent: deque[float] = field(default_factory=deque)  # when each send of the window went out
    last_redraw: float = 0.0
    blocked_until: float = 0.0  # a 429's retry_after
    failures: int = 0  # network failures in a row (a 429 is pacing, not a failure)
    calls: int = 0  # sends and edits made, ever (tells whether a piece of work sent anything)
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
    ) -> None:
        self.bot = bot
        self.source = source
        self.on_sent = on_sent
        self.on_refused = on_refused
        self.on_migrated = on_migrated
        self.limits = limits or Limits()
        self.clock = clock
        self._chats: dict[int, _Chat] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._budget = Budget(self.limits.global_budget, self.limits.global_window, clock)
        self._shown: dict[tuple[int, int], tuple[str, object]] = {}  # (chat, message) -> what it shows
        self._refused: set[int] = set()  # chats that answered 403
        self._closed = False

    # ------------------------------------------------------------------ what the bot asks

    def share(self, processes: int) -> None:
        """``processes`` bot processes send for this token now: this one keeps its part of the overall budget."""
        self._budget.share(processes)

    def mark(self, chat_id: int, key: Key, *, soon: bool = False) -> None:
        """This message shows something else now: draw and send it when its turn comes (``soon``: somebody
        must act on it, so it goes ahead of other redraws when the overall budget is short)."""
        if self._closed or chat_id in self._refused:
            return
        dirty = self._chat(chat_id).dirty
        dirty[key] = dirty.get(key, False) or soon
        self._kick(chat_id)

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
        self._chat(chat_id).urgent.append(
            (Draft(chat_id, message_id, text, keyboard, thread_id, reply_to), done)
        )
        self._kick(chat_id)
        return await done

    def refuse(self, chat_id: int) -> None:
        """Nothing more is to be sent to this chat (the bot left it) until it writes again."""
        self._refused.add(chat_id)
        chat = self._chats.pop(chat_id, None)
        for _, done in chat.urgent if chat else ():
            if not done.done():
                done.set_result(None)

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
        for chat in self._chats.values():  # nobody waits for ever on a message that will not go out now
            for _, done in chat.urgent:
                if not done.done():
                    done.set_result(None)

    # ------------------------------------------------------------------ one task per chat

    def _chat(self, chat_id: int) -> _Chat:
        return self._chats.setdefault(chat_id, _Chat())

    def _kick(self, chat_id: int) -> None:
        self._chat(chat_id).wake.set()
        task = self._tasks.get(chat_id)
        if task is None or task.done():
            self._tasks[chat_id] = asyncio.get_running_loop().create_task(self._run(chat_id))

    def _wait(self, chat_id: int, chat: _Chat, redraw: bool) -> float:
        """Seconds until this chat may send the next piece of work (0: now), the overall budget aside."""
        limits, now = self.limits, self.clock()
        while chat.sent and chat.sent[0] <= now - limits.window:
            chat.sent.popleft()
        ready = [chat.blocked_until, (chat.sent[-1] + limits.chat_spacing) if chat.sent else 0.0]
        if chat_id < 0:
            budget = limits.group_budget - (limits.reserve if redraw else 0)
            if len(chat.sent) >= budget:
                ready.append(chat.sent[len(chat.sent) - budget] + limits.window)
        if redraw:
            spacing = limits.group_redraw if chat_id < 0 else limits.private_redraw
            ready.append(chat.last_redraw + spacing)
        return max(0.0, max(ready) - now)

    async def _run(self, chat_id: int) -> None:
        chat = self._chat(chat_id)
        while (chat.urgent or chat.dirty) and chat_id not in self._refused and not self._closed:
            redraw = not chat.urgent and _told_once(chat) is None
            wait = self._wait(chat_id, chat, redraw)
            if wait > 0:
                chat.wake.clear()
                with contextlib.suppress(TimeoutError):  # urgent work arriving cuts a redraw's wait short
                    await asyncio.wait_for(chat.wake.wait(), wait)
                continue
            rank = budget.URGENT if not redraw else budget.SOON if any(chat.dirty.values()) else budget.LATER
            slot, calls = await self._budget.take(rank), chat.calls
            if chat_id in self._refused or self._closed or not (chat.urgent or chat.dirty):
                self._budget.done(slot, 0)
                continue
            waiting = chat.urgent[0] if chat.urgent else None
            key = _told_once(chat)  # after the wait for a slot: what is there now
            was_soon = False
            try:
                if waiting is not None:
                    message_id = await self._deliver(waiting[0])
                    self._settle(chat, message_id)
                else:
                    key = (
                        key
                        or next((k for k, soon in chat.dirty.items() if soon), None)
                        or next(iter(chat.dirty))
                    )
                    was_soon = chat.dirty.pop(key)
                    found = await self.source(key)
                    message_id = await self._deliver(found) if found is not None else None
                    if key[0] not in URGENT:
                        chat.last_redraw = self.clock()  # spaced from when it went out
                    chat.failures = 0
                    if found is not None and message_id is not None and message_id != found.message_id:
                        await self.on_sent(key, message_id)  # a new message (or one sent anew)
            except _TryAgain as again:
                if waiting is None and key is not None:
                    chat.dirty[key] = chat.dirty.get(key, False) or was_soon  # drawn anew in its turn
                chat.failures += again.failure
                if chat.failures > MAX_FAILURES and waiting is not None:
                    log.error("giving up a message to chat %s after %d failures", chat_id, chat.failures)
                    self._settle(chat, None)
            except Exception:  # one bad message must not stop the chat's other messages
                log.exception("sending to chat %s failed", chat_id)
                if waiting is not None:
                    self._settle(chat, None)
            finally:
                self._budget.done(slot, chat.calls - calls)

    def _settle(self, chat: _Chat, message_id: int | None) -> None:
        """The first urgent piece of work is done (sent, or given up): its sender learns the message id."""
        _, done = chat.urgent.popleft()
        chat.failures = 0
        if not done.done():
            done.set_result(message_id)

    # ------------------------------------------------------------------ one call to Telegram

    async def _deliver(self, draft: Draft, again: bool = False) -> int | None:
        """Send or edit; the id of a new message, the edited one's, or None when nothing was sent."""
        chat_id = draft.chat_id
        shown = (draft.text, draft.keyboard.to_dict() if draft.keyboard else None)
        if draft.message_id is not None and self._shown.get((chat_id, draft.message_id)) == shown:
            return draft.message_id  # it shows that already: an edit would change nothing
        chat = self._chat(chat_id)
        chat.calls += 1
        try:
            return await self._call(chat, draft, shown, again)
        finally:
            # Counted from when Telegram answered: a request that waited in a queue on the way still leaves
            # the next one in this chat its full spacing.
            chat.sent.append(self.clock())

    async def _call(self, chat: _Chat, draft: Draft, shown: tuple[str, object], again: bool) -> int | None:
        chat_id = draft.chat_id
        try:
            if draft.message_id is None:
                sent = await self.bot.send_message(
                    chat_id,
                    draft.text,
                    reply_markup=draft.keyboard,
                    message_thread_id=draft.thread_id,
                    reply_to_message_id=draft.reply_to,
                    allow_sending_without_reply=True,
                    disable_web_page_preview=True,
                )
                message_id = sent.message_id
                if draft.replaces is not None:
                    await self._delete(chat_id, draft.replaces)
            else:
                await self.bot.edit_message_text(
                    draft.text,
                    chat_id=chat_id,
                    message_id=draft.message_id,
                    reply_markup=draft.keyboard,
                    disable_web_page_preview=True,
                )
                message_id = draft.message_id
        except RetryAfter as exc:
            delay = exc.retry_after
            seconds = delay if isinstance(delay, int | float) else delay.total_seconds()
            chat.blocked_until = self.clock() + float(seconds)
            log.warning("429 in chat %s: waiting %s s, then trying again", chat_id, seconds)
            raise _TryAgain(failure=False) from None  # Telegram pacing us: tried as long as it takes
        except BadRequest as exc:
            text = exc.message.lower()
            if "not modified" in text and draft.message_id is not None:
                self._shown[(chat_id, draft.message_id)] = shown
                return draft.message_id
            if (
                draft.message_id is not None
                and ("not found" in text or "can't be edited" in text)
                and not again
            ):
                fresh = Draft(chat_id, None, draft.text, draft.keyboard, draft.thread_id)
                return await self._deliver(fresh, again=True)  # gone: sent anew
            log.error("Telegram refused a message in chat %s: %s", chat_id, exc.message)
            return None
        except Forbidden:
            self.refuse(chat_id)
            log.info("chat %s does not accept messages from the bot: nothing more is sent there", chat_id)
            await self.on_refused(chat_id)
            return None
        except ChatMigrated as exc:
            await self.on_migrated(chat_id, exc.new_chat_id)
            return None
        except TelegramError as exc:  # a network failure: the same work again, a little later
            log.warning("sending to %s failed (%s); trying again", chat_id, exc)
            chat.blocked_until = self.clock() + (1.0 if not again else 2.0)
            raise _TryAgain(failure=True) from None
        self._shown[(chat_id, message_id)] = shown
        if (
            len(self._shown) > 50_000
        ):  # memory stays bounded; a forgotten message is at worst edited once more
            self._shown.clear()
        return message_id

    async def _delete(self, chat_id: int, message_id: int) -> None:
        """Best effort: a message that cannot be deleted any more (gone, too old) just stays."""
        self._shown.pop((chat_id, message_id), None)
        try:
            await self.bot.delete_message(chat_id, message_id)
        except TelegramError as exc:
            log.info("could not delete message %s in chat %s: %s", message_id, chat_id, exc)


def _told_once(chat: _Chat) -> Key | None:
    """A result or a broken-table notice waiting in the chat (they go before its redraws)."""
    return next((k for k in chat.dirty if k[0] in URGENT), None)


class _TryAgain(Exception):
    """The work stays queued: Telegram asked us to wait, or (``failure``) the network failed."""

    def __init__(self, *, failure: bool) -> None:
        super().__init__()
        self.failure = failure
