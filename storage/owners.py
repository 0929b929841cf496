"""Which process owns which chat, and updates forwarded to the owner: what lets several bot processes share
one PostgreSQL database without two of them playing (or redrawing) the same table.

A chat with open tables is owned by one process under a lease. The owner keeps those tables in memory, runs
their timers and bot turns, and sends every message about them, so a group's sending budget is spent by one
process and a table's moves are made by one; it renews its leases every few seconds. Another process that
receives an update for the chat forwards it to the owner. When an owner stops renewing (killed, frozen, cut
off), its leases run out and whichever process claims the chat next restores its tables from the database.
"""

from __future__ import annotations

import time

from storage.db import Database
from storage.records import OPEN


class Owners:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def claim(self, chat_id: int, me: str, lease: float, *, now: float | None = None) -> str:
        """Take (or keep) the chat for ``me`` unless another process holds an unexpired lease on it; returns
        the owner after the attempt."""
        now = time.time() if now is None else now
        kept = await self.db.insert(
            """INSERT INTO chat_owners (chat_id, owner, lease_until) VALUES (?, ?, ?)
               ON CONFLICT (chat_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
               WHERE chat_owners.owner = excluded.owner OR chat_owners.lease_until < ?
               RETURNING owner""",
            (chat_id, me, now + lease, now),
        )
        if kept is not None:
            return me
        row = await self.db.fetch_one("SELECT owner FROM chat_owners WHERE chat_id = ?", (chat_id,))
        return str(row["owner"]) if row else me

    async def renew(self, me: str, lease: float, *, now: float | None = None) -> set[int]:
        """Extend every lease ``me`` still holds; returns those chats (one lost meanwhile is not among them)."""
        now = time.time() if now is None else now
        await self.db.execute(
            "UPDATE chat_owners SET lease_until = ? WHERE owner = ? AND lease_until >= ?",
            (now + lease, me, now),
        )
        rows = await self.db.fetch_all("SELECT chat_id FROM chat_owners WHERE owner = ?", (me,))
        return {int(r["chat_id"]) for r in rows}

    async def release(self, me: str) -> None:
        """A clean stop: the chats go to whichever process is asked next, without waiting for the lease."""
        await self.db.execute("DELETE FROM chat_owners WHERE owner = ?", (me,))
        await self.db.execute("DELETE FROM processes WHERE name = ?", (me,))

    async def alive(self, me: str, lease: float, *, web: str | None = None, now: float | None = None) -> int:
        """``me`` is alive for another lease (its web table reached at ``web``, if it serves one); returns how
        many processes are (``me`` among them)."""
        now = time.time() if now is None else now
        await self.db.execute(
            """INSERT INTO processes (name, alive_until, web) VALUES (?, ?, ?)
               ON CONFLICT (name) DO UPDATE SET alive_until = excluded.alive_until, web = excluded.web""",
            (me, now + lease, web),
        )
        await self.db.execute("DELETE FROM processes WHERE alive_until < ?", (now - 10 * lease,))
        row = await self.db.fetch_one("SELECT COUNT(*) AS n FROM processes WHERE alive_until >= ?", (now,))
        return int(row["n"]) if row else 1

    async def web_of(self, owner: str) -> str | None:
        """Where another process reaches ``owner``'s web table, if it serves one."""
        row = await self.db.fetch_one("SELECT web FROM processes WHERE name = ?", (owner,))
        return str(row["web"]) if row and row["web"] else None

    async def orphaned(self, *, now: float | None = None) -> list[int]:
        """Chats with open tables (or a running arena) whose owner's lease ran out, or that nobody owns."""
        now = time.time() if now is None else now
        rows = await self.db.fetch_all(
            f"""SELECT DISTINCT t.chat_id FROM (
                    SELECT chat_id FROM tables WHERE status IN ({", ".join("?" * len(OPEN))})
                    UNION SELECT chat_id FROM arenas WHERE status = 'open') AS t
                LEFT JOIN chat_owners AS o ON o.chat_id = t.chat_id
                WHERE o.chat_id IS NULL OR o.lease_until < ?
                ORDER BY t.chat_id""",
            (*(s.value for s in OPEN), now),
        )
        return [int(r["chat_id"]) for r in rows]

    async def forward(self, owner: str, chat_id: int, payload: str) -> None:
        await self.db.execute(
            "INSERT INTO forwarded (owner, chat_id, payload, at) VALUES (?, ?, ?, ?)",
            (owner, chat_id, payload, time.time()),
        )

    async def forwarded(self, me: str) -> list[str]:
        """The updates waiting for ``me``, oldest first, taken (nobody else gets them)."""
        async with self.db.transaction():  # one statement takes them: none is handed over meanwhile, too
            rows = await self.db.fetch_all(
                "DELETE FROM forwarded WHERE owner = ? RETURNING id, payload", (me,)
            )
        return [str(r["payload"]) for r in sorted(rows, key=lambda r: int(r["id"]))]

    async def adopt(self, chat_id: int, me: str) -> None:
        """Updates of the chat forwarded to its former owner, which stopped before handling them, go to ``me``
        (its new owner)."""
        await self.db.execute("UPDATE forwarded SET owner = ? WHERE chat_id = ?", (me, chat_id))
