"""The web tables' side of what tables publish: a watcher of the same records the chat's screens are drawn
from (bot.service.Watcher, beside the presenter), which sends every open page of a table the table as its
viewer may see it (bot.web.snapshot), over that page's socket, off Telegram's budget.

A record is drawn for each page when it comes, and only the newest counts: a page that is still sending
gets the latest record once it is free (never an older one after a newer). Nothing here waits on a table's
lock or changes a table."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.i18n import Text
from bot.service import Published
from bot.web.snapshot import snapshot
from storage.records import User

log = logging.getLogger(__name__)


class Socket(Protocol):
    """What the hub needs of a page's connection (aiohttp's WebSocketResponse has it)."""

    @property
    def closed(self) -> bool: ...

    async def send_str(self, data: str) -> None: ...


@dataclass(eq=False)
class Page:
    """One open web table: who looks at which table, in which language, through which socket."""

    socket: Socket
    table_id: int
    t: Text
    profile: User  # the viewer as Telegram says it (recorded when they join from the page)
    visible: bool = True  # the page says whether it is on screen (a hidden page's turn still sounds)
    shown: int = 0  # the version of the last record sent
    sending: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def user_id(self) -> int:
        return self.profile.id

    def seat(self, record: Published) -> int | None:
        """The viewer's seat at the table, or None: they watch."""
        return record.seat_of(self.user_id)


class Hub:
    def __init__(
        self,
        record_of: Callable[[int], Published | None],
        away: Callable[[int, int], None] = lambda table_id, user_id: None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.record_of = record_of  # a table's last record (the service's)
        self.clock = clock  # the service's, which its deadlines are in
        self.away = away  # a player's page went away: their hand in the chat catches up (the presenter)
        self.pages: dict[int, set[Page]] = {}  # table id -> its open pages

    # ------------------------------------------------------------------ pages

    def open(self, page: Page) -> None:
        self.pages.setdefault(page.table_id, set()).add(page)
        self._send(page)

    def close(self, page: Page) -> None:
        self.shown(page, False)
        pages = self.pages.get(page.table_id)
        if pages is not None:
            pages.discard(page)
            if not pages:
                del self.pages[page.table_id]
        if page.sending is not None:
            page.sending.cancel()

    def shown(self, page: Page, visible: bool) -> None:
        """The page says whether it is on screen; once its player has none left on screen, the chat is
        where they see their hand again."""
        was = self.watching(page.table_id, page.user_id)
        page.visible = visible
        if was and not self.watching(page.table_id, page.user_id):
            self.away(page.table_id, page.user_id)

    def watching(self, table_id: int, user_id: int) -> bool:
        """The user has the table's page open and on screen (their hand there needs no message)."""
        return any(p.user_id == user_id and p.visible for p in self.pages.get(table_id, ()))

    def held(self) -> dict[str, int]:
        return {"web_pages": sum(len(pages) for pages in self.pages.values())}

    # ------------------------------------------------------------------ Watcher

    def published(self, record: Published) -> None:
        for page in self.pages.get(record.id, ()):
            self._send(page)

    def forgotten(self, table_id: int) -> None:
        """The table left memory: its pages keep what they show (a reopened page is told it is gone)."""

    def tidy(self, chat_id: int, table_id: int) -> None:
        """Only the chat's messages are tidied."""

    # ------------------------------------------------------------------ sending

    def _send(self, page: Page) -> None:
        if page.sending is None or page.sending.done():
            page.sending = asyncio.get_running_loop().create_task(self._drain(page))

    async def _drain(self, page: Page) -> None:
        """Send the page the table's newest record until it has it."""
        while not page.socket.closed:
            record = self.record_of(page.table_id)
            if record is None or record.version <= page.shown:
                return
            page.shown = record.version
            state = snapshot(record, page.seat(record), page.t, page.user_id, self.clock())
            try:
                await page.socket.send_str(message("state", **state))
            except (ConnectionError, RuntimeError) as exc:  # the page went away while it was sent
                log.debug("web table %s: a page stopped listening: %s", page.table_id, exc)
                return


def message(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, **fields}, ensure_ascii=False)
