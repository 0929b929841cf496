"""Several bot processes on one PostgreSQL database (``DATABASE_URL``), behind a load balancer that hands
Telegram's webhook calls to any of them (docs/deploy.md).

Each chat with open tables is owned by one process under a lease (``storage.owners``). An update is handled
where it belongs: ``route`` (first of all handlers) finds the chat it is about — the group, or for a hand's
button or a deep link the group of the table — claims that chat if nobody holds it, and otherwise forwards
the update to the owner (a row in ``forwarded`` and a NOTIFY) and stops. So one process plays a table, runs
its timers and bot turns, and sends everything about it: the group's sending budget is spent in one place
and the in-memory tables stay the truth. Five times a lease (``CLUSTER_LEASE``, 15 s) a process renews its
leases, lets go of any chat it lost (it was frozen past its lease), and claims the chats whose owner stopped
renewing, restoring their tables from the database: killing a process stops none of its games for much
longer than a lease.

Private chats without a table in question (/language, /stats, /help) are handled wherever they arrive; the
caches of users and chats are kept true by NOTIFYs of every change (``Database.changed``). Telegram's overall
budget (30 sends a second) belongs to the bot token: each alive process keeps an equal part of it.

A web table's page (bot.web.server) may open its socket at any process: one that does not play the table
relays the socket to the process that does, at the address it registers beside its lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import secrets
import socket
from typing import Any

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import Application, ApplicationHandlerStop, ContextTypes

from bot import metrics
from bot.callbacks import decode
from bot.outbox import Outbox
from bot.service import TableService
from storage import Storage
from storage.postgres import CHANGES, PostgresDatabase

log = logging.getLogger(__name__)

CHATS_KEPT = 100_000  # tables whose group is remembered (memory stays bounded; a forgotten one is read again)
POLL = 1.0  # seconds between looks at forwarded updates when no NOTIFY came (one lost is found anyway)
_GROUPS = (ChatType.GROUP, ChatType.SUPERGROUP)


def channel(owner: str) -> str:
    """The NOTIFY channel of a process (an identifier: at most 63 bytes)."""
    return "durak_" + hashlib.sha1(owner.encode()).hexdigest()[:20]


class Cluster:
    """This process's part in a cluster; ``start`` once the service exists, ``stop`` before storage closes."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        storage: Storage,
        service: TableService,
        outbox: Outbox,
        lease: float = 15.0,
    ) -> None:
        assert isinstance(storage.db, PostgresDatabase), "a cluster shares a PostgreSQL database"
        self.lease = lease
        self.application = application
        self.storage = storage
        self.service = service
        self.outbox = outbox
        self.db: PostgresDatabase = storage.db
        self.me = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.owned: set[int] = set()
        self._chat_of: dict[int, int] = {}  # table id -> its group, as last read
        self._claiming = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self._wake = asyncio.Event()
        self.web: str | None = None  # where other processes reach this one's web table (bot.web.server)

    # ------------------------------------------------------------------ routing updates

    async def route(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Group -2, before everything: handle the update here if this process owns (or now claims) the chat
        it is about; otherwise forward it to the owner and stop."""
        chat = await self.home(update)
        for _ in range(3):
            if chat is None or chat in self.owned:
                return
            owner = await self.claim(chat)
            # A group that became a supergroup meanwhile has moved its tables and its lease to the new id.
            moved, chat = chat, await self.home(update)
            if chat == moved:
                break
        else:
            return  # moved and moved again: handled here, where at worst it is told the table is gone
        if owner == self.me or chat is None:
            return
        await self.storage.owners.forward(owner, chat, json.dumps(update.to_dict()))
        await self.db.notify(channel(owner), "")
        raise ApplicationHandlerStop

    async def home(self, update: Update) -> int | None:
        """The group whose tables the update may change, or None (a private matter: handled anywhere)."""
        if update.callback_query is not None:
            press = decode(update.callback_query.data)
            table_id = getattr(press, "table_id", None)
            if isinstance(table_id, int):
                return await self._table_chat(table_id)
        chat = update.effective_chat
        if chat is not None and chat.type in _GROUPS:
            return chat.id
        message = update.effective_message
        if message is not None and message.text and message.text.startswith("/start join_"):
            table = await self.storage.tables.by_token(message.text.split("join_", 1)[1].strip())
            return table.chat_id if table is not None else None
        return None

    async def _table_chat(self, table_id: int) -> int | None:
        """The group of a table: remembered while this process owns it, read again otherwise (before a claim
        or a forward), since a group that becomes a supergroup takes its tables to a new id."""
        chat = self._chat_of.get(table_id)
        if chat is None or chat not in self.owned:
            chat = await self.storage.tables.chat_of(table_id)
            if len(self._chat_of) > CHATS_KEPT:
                self._chat_of.clear()
            if chat is not None:
                self._chat_of[table_id] = chat
        return chat

    async def web_peer(self, table_id: int) -> str | None:
        """Where a page of the table is served from: None if here (this process plays it, or now claims
        it, or nobody knows the table), else the owner's web address ("" if it serves no web table)."""
        chat = await self._table_chat(table_id)
        if chat is None or chat in self.owned:
            return None
        owner = await self.claim(chat)
        if owner == self.me:
            return None
        return await self.storage.owners.web_of(owner) or ""

    # ------------------------------------------------------------------ owning chats

    async def claim(self, chat: int) -> str:
        """Try to own ``chat``; if it becomes ours, bring its tables into memory. Returns the owner."""
        async with self._claiming:
            if chat in self.owned:
                return self.me
            owner = await self.storage.owners.claim(chat, self.me, self.lease)
            if owner == self.me:
                # Owned (so handled here without waiting for this lock) only once its tables are back: a
                # page or an update meanwhile would be told the table is gone.
                try:
                    await self.storage.owners.adopt(chat, self.me)
                    before = len(self.service.in_memory())  # a group that moved here keeps its tables
                    broken = await self.service.restore(chat)
                finally:
                    self.owned.add(chat)
                restored = len(self.service.in_memory()) - before
                log.info("took chat %s over: %d tables restored (%d broken)", chat, restored, len(broken))
                self._wake.set()  # updates forwarded to its former owner are ours now
            return owner

    async def _renew(self) -> None:
        # Telegram's overall budget belongs to the token, not the process: each alive process takes its part.
        self.outbox.share(await self.storage.owners.alive(self.me, self.lease, web=self.web))
        async with self._claiming:  # a claim under way is either all done or not begun
            held = await self.storage.owners.renew(self.me, self.lease)
            for chat in self.owned - held:
                if not any(t.row.chat_id == chat for t in self.service.in_memory()):
                    continue  # the group moved to a new id (a supergroup) and its lease with it
                log.warning("chat %s went to another process (this one missed its lease)", chat)
                metrics.LEASES_LOST.inc()
                self.service.forget_chat(chat)
            # What the database says this process holds, including a group that moved to a new id.
            self.owned = held
        for chat in await self.storage.owners.orphaned():
            await self.claim(chat)

    # ------------------------------------------------------------------ forwarded updates

    async def _take_forwarded(self) -> None:
        for payload in await self.storage.owners.forwarded(self.me):
            update = Update.de_json(json.loads(payload), self.application.bot)
            await self.application.update_queue.put(update)

    async def _listen(self) -> None:
        """NOTIFYs: forwarded updates for this process, and records changed elsewhere (caches drop them)."""
        mine = channel(self.me)
        while True:
            try:
                async for name, payload in self.db.listen([mine, CHANGES]):
                    if name == mine:
                        self._wake.set()
                    else:
                        kind, _, key = payload.partition(":")
                        self.storage.forget(kind, int(key))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the server restarted, the network blinked: listen again
                log.warning("listening for other processes failed (%s); again in a second", exc)
                await asyncio.sleep(1.0)

    async def _loop(self) -> None:
        """Forwarded updates as they are announced (or every POLL seconds), and the leases every fifth of one."""
        loop = asyncio.get_running_loop()
        renew_at = 0.0
        while True:
            try:
                if loop.time() >= renew_at:
                    renew_at = loop.time() + self.lease / 5
                    await self._renew()
                await self._take_forwarded()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cluster housekeeping failed (%s); trying again", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), min(POLL, self.lease / 5))
            self._wake.clear()

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        log.info("clustered as %s: claiming the chats nobody holds", self.me)
        await self._renew()
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._loop())]

    async def stop(self) -> None:
        """Stop listening and hand every chat back at once (the next process asked takes it)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(Exception):
            await self.storage.owners.release(self.me)
