"""What an arena's messages show when their turn to be sent comes: its one message in the group (drawn from
the arena's last record and the last record of each of its tables in play) and its podium (bot.render.arena)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping

from bot.hand_drafts import names_of
from bot.i18n import Text
from bot.kinds import MessageKind
from bot.messages import Draft
from bot.render.arena import GameLine, arena_keyboard, arena_text, podium_text
from bot.service import ArenaRecord, Published
from engine.views import view
from storage import Storage

FINISHED_KEPT = 600.0  # seconds a finished arena's record stays for its last redraw and podium


class ArenaDrafts:
    def __init__(
        self,
        storage: Storage,
        tables: Mapping[int, Published],
        group_text: Callable[[int], Awaitable[Text]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.storage = storage
        self.tables = tables  # each table's last record (the presenter's)
        self.group_text = group_text
        self.clock = clock
        self.records: dict[int, ArenaRecord] = {}  # each arena's last record

    def keep(self, record: ArenaRecord) -> bool:
        """Keep the arena's newest record; False for an older one (nothing to draw)."""
        last = self.records.get(record.row.id)
        if last is not None and last.version >= record.version:
            return False
        self.records[record.row.id] = record
        horizon = self.clock() - FINISHED_KEPT
        for arena_id in [a for a, r in self.records.items() if r.row.finished and r.now < horizon]:
            del self.records[arena_id]
        return True

    async def draft(self, kind: MessageKind, arena_id: int) -> Draft | None:
        record = self.records.get(arena_id)
        if record is None:
            return None
        row = record.row
        t = await self.group_text(row.chat_id)
        users = {p.user_id for p in row.players} | {row.creator_id}
        known = {u: await self.storage.users.get(u) for u in users}

        def name(user_id: int) -> str:
            user = known.get(user_id)
            return (user.display_name if user is not None else "") or t("forget.former")  # forgotten: no name

        thread = row.thread_id or None
        if kind == "podium":
            if row.podium_message_id is not None:  # posted (or not to be: the bot left the group)
                return None
            return Draft(row.chat_id, None, podium_text(row, name, t), None, thread)
        now = self.clock()
        text = arena_text(row, self._games(arena_id, t), name, t, now=now)
        keyboard = arena_keyboard(row, t, closing=now >= row.ends_at)
        return Draft(row.chat_id, row.message_id, text, keyboard, thread)

    def _games(self, arena_id: int, t: Text) -> list[GameLine]:
        """Each game of the arena in play, as one line shows it."""
        lines = []
        for record in self.tables.values():
            if record.row.arena_id != arena_id or not record.open or record.game is None:
                continue
            public = view(record.game)
            names = names_of(record, t)
            lines.append(
                GameLine(tuple((names[s.seat], s.cards) for s in public.seats), tuple(record.to_act()))
            )
        return lines
