"""A group's sends of the last minute, kept where a restarted process (or the one that takes the group over)
reads them: without them a new process starts with the whole budget its predecessor had partly spent, and
draws a 429 from the group's 20 a minute (tests/bot/test_stop.py)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from bot.messages import Pace

log = logging.getLogger("bot.outbox")

UNSAVED = 2  # sends into a group a killed process may have made and not yet kept


class PaceStore(Protocol):
    """Where a group's recent sends are kept across processes (storage.paces.Paces): unix times."""

    async def get(self, chat_id: int) -> tuple[list[float], float] | None: ...

    async def put(self, chat_id: int, sent: list[float], blocked_until: float) -> None: ...


class KeptPaces:
    """The outbox's groups' paces, read back once and written after sends (``window``: the group budget's, in
    seconds; ``clock``: the outbox's, monotonic; the store keeps unix times)."""

    def __init__(self, store: PaceStore, window: float, clock: Callable[[], float]) -> None:
        self.store = store
        self.window = window
        self.clock = clock
        self._saving: dict[int, asyncio.Task[None]] = {}  # per group: the one write of its pace under way
        self._unsaved: set[int] = set()  # groups that sent more since their sends were last kept

    async def recall(self, chat_id: int, chat: Pace) -> None:
        """A group this process has not sent into within the window: what was sent into it meanwhile (by a
        process before a restart, or by another that held it) counts against its budget here too."""
        now = self.clock()
        if chat.sent and chat.sent[-1] > now - self.window:
            return
        try:
            kept = await self.store.get(chat_id)
        except Exception:  # the budget is a courtesy to Telegram: a database hiccup must not stop sending
            log.warning("could not read the sending budget of chat %s", chat_id, exc_info=True)
            return
        if kept is None:
            return
        wall = time.time()
        sent, blocked = kept
        recent = [now - (wall - t) for t in sent if t > wall - self.window]
        if recent:
            # A process killed between a send and its write (sends are kept in the background) sent a few more
            # than it kept: count them as sent now, so that a restart spends less, never more, than Telegram
            # allows (tests/bot/test_stop.py: kill -9, then a 429 within the minute without this).
            recent += [now] * UNSAVED
        chat.sent = deque(sorted([*chat.sent, *recent]))
        chat.blocked_until = max(chat.blocked_until, now - (wall - blocked))

    def keep(self, chat_id: int, chat: Pace) -> None:
        """Keep the group's recent sends (in the background: sending never waits on the database). One write
        per group at a time; sends made while it runs are kept by one more write after it."""
        self._unsaved.add(chat_id)
        if chat_id not in self._saving:
            self._saving[chat_id] = asyncio.get_running_loop().create_task(self._put(chat_id, chat))

    async def flush(self) -> None:
        """Wait for the writes under way (the outbox is closing)."""
        await asyncio.gather(*self._saving.values(), return_exceptions=True)

    async def _put(self, chat_id: int, chat: Pace) -> None:
        try:
            while chat_id in self._unsaved:
                self._unsaved.discard(chat_id)
                now, wall = self.clock(), time.time()
                sent = [wall - (now - t) for t in chat.sent]
                blocked = wall - (now - chat.blocked_until) if chat.blocked_until > now else 0.0
                await self.store.put(chat_id, sent, blocked)
        except Exception:
            log.warning("could not keep the sending budget of chat %s", chat_id, exc_info=True)
        finally:
            del self._saving[chat_id]  # no await since the last look at ``_unsaved``: none is missed
