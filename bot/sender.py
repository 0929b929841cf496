"""Sending: every message the bot shows goes through here, paced per chat.

A change only marks a message dirty. One task per chat redraws its dirty messages from the latest state,
never faster than one send every ``group_interval`` seconds in a group (3 s: at most 20 a minute, Telegram's
limit) or ``private_interval`` in a private chat, so a burst of moves costs one edit, and a slow chat never
holds up another. RetryAfter waits and retries; "message is not modified" is ignored; a message that is gone
is sent anew. A chat that refuses the bot (403: a user who blocked it, a group that removed it) gets nothing
more until an update comes from it again (``forgive``); the hook records it, and the seat plays on by its
timer or the group's tables end.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Draft:
    """What one message should show now. ``message_id`` None: send it as a new message."""

    chat_id: int
    message_id: int | None
    text: str
    keyboard: InlineKeyboardMarkup | None
    thread_id: int | None = None


MessageKind = Literal["table", "hand", "result", "broken"]
# (kind, table id, seat): ("table", id, -1), ("hand", id, seat), ("result", id, -1), ("broken", id, -1)
Key = tuple[MessageKind, int, int]
DraftSource = Callable[[Key], Awaitable[Draft | None]]
SentHook = Callable[[Key, int], Awaitable[None]]
BlockedHook = Callable[[int], Awaitable[None]]
MigratedHook = Callable[[int, int], Awaitable[None]]


class Sender:
    def __init__(
        self,
        bot: Bot,
        source: DraftSource,
        *,
        on_sent: SentHook,
        on_blocked: BlockedHook,
        on_migrated: MigratedHook,
        group_interval: float = 3.0,
        private_interval: float = 1.0,
    ) -> None:
        self.bot = bot
        self.source = source
        self.on_sent = on_sent
        self.on_blocked = on_blocked
        self.on_migrated = on_migrated
        self.group_interval = group_interval
        self.private_interval = private_interval
        self._dirty: dict[int, dict[Key, None]] = {}  # per chat, in marking order
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._last: dict[int, float] = {}
        self._refused: set[int] = set()  # chats that answered 403
        self._closed = False

    def mark(self, chat_id: int, key: Key) -> None:
        if self._closed or chat_id in self._refused:
            return
        self._dirty.setdefault(chat_id, {})[key] = None
        task = self._tasks.get(chat_id)
        if task is None or task.done():
            self._tasks[chat_id] = asyncio.get_running_loop().create_task(self._run(chat_id))

    def refuse(self, chat_id: int) -> None:
        """Nothing more is to be sent to this chat (the bot left it) until it writes again."""
        self._refused.add(chat_id)
        self._dirty.pop(chat_id, None)

    def forgive(self, chat_id: int) -> None:
        """The chat wrote to the bot again: it may be sent to."""
        self._refused.discard(chat_id)

    async def idle(self) -> None:
        """Wait until nothing is left to send (tests, shutdown)."""
        while any(not t.done() for t in self._tasks.values()):
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def close(self) -> None:
        self._closed = True
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _run(self, chat_id: int) -> None:
        interval = self.private_interval if chat_id > 0 else self.group_interval
        dirty = self._dirty[chat_id]
        while dirty and chat_id not in self._refused:
            wait = self._last.get(chat_id, 0.0) + interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            key = next(iter(dirty))
            del dirty[key]
            try:
                draft = await self.source(key)
                if draft is not None:
                    await self._send(key, draft)
            except Exception:  # one bad message must not stop the chat's other messages
                log.exception("redrawing %s failed", key)

    async def _send(self, key: Key, draft: Draft, attempt: int = 0) -> None:
        chat_id = draft.chat_id
        try:
            if draft.message_id is None:
                sent = await self.bot.send_message(
                    chat_id,
                    draft.text,
                    reply_markup=draft.keyboard,
                    message_thread_id=draft.thread_id,
                    disable_web_page_preview=True,
                )
                self._last[chat_id] = time.monotonic()
                await self.on_sent(key, sent.message_id)
            else:
                await self.bot.edit_message_text(
                    draft.text,
                    chat_id=chat_id,
                    message_id=draft.message_id,
                    reply_markup=draft.keyboard,
                    disable_web_page_preview=True,
                )
                self._last[chat_id] = time.monotonic()
        except RetryAfter as exc:
            self._last[chat_id] = time.monotonic()
            delay = (
                exc.retry_after
                if isinstance(exc.retry_after, int | float)
                else exc.retry_after.total_seconds()
            )
            log.warning("429 in chat %s: waiting %s s", chat_id, delay)
            await asyncio.sleep(float(delay))
            self.mark(chat_id, key)  # redraw from the latest state, not the stale draft
        except BadRequest as exc:
            text = exc.message.lower()
            if "not modified" in text:
                return
            if (
                draft.message_id is not None
                and ("not found" in text or "can't be edited" in text)
                and attempt == 0
            ):
                await self._send(
                    key, Draft(chat_id, None, draft.text, draft.keyboard, draft.thread_id), attempt + 1
                )
                return
            log.error("Telegram refused a message in chat %s: %s", chat_id, exc.message)
        except Forbidden:
            self.refuse(chat_id)
            log.info("chat %s does not accept messages from the bot: nothing more is sent there", chat_id)
            await self.on_blocked(chat_id)
        except ChatMigrated as exc:
            await self.on_migrated(chat_id, exc.new_chat_id)
        except TelegramError as exc:
            log.warning("sending to %s failed (%s); retrying", chat_id, exc)
            if attempt < 3:
                await asyncio.sleep(2.0**attempt)
                await self._send(key, draft, attempt + 1)
