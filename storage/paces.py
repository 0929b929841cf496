"""What a group's sends have been, kept where a restarted process (or the process that takes the group over)
reads it: the times of its last sends and a 429's wait, so that Telegram's limits hold across a restart."""

from __future__ import annotations

import json

from storage.db import Database


class Paces:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, chat_id: int) -> tuple[list[float], float] | None:
        """The unix times of the chat's last sends (oldest first) and until when a 429 blocks it."""
        row = await self.db.fetch_one(
            "SELECT sent, blocked_until FROM chat_pace WHERE chat_id = ?", (chat_id,)
        )
        return (list(json.loads(row["sent"])), float(row["blocked_until"])) if row else None

    async def put(self, chat_id: int, sent: list[float], blocked_until: float) -> None:
        await self.db.execute(
            """INSERT INTO chat_pace (chat_id, sent, blocked_until) VALUES (?, ?, ?)
               ON CONFLICT (chat_id) DO UPDATE SET sent = excluded.sent, blocked_until = excluded.blocked_until""",
            (chat_id, json.dumps([round(t, 3) for t in sent]), blocked_until),
        )
