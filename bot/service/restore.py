"""After a restart: every table comes back from the database, and whatever its players must still be told
is told (a result not yet sent, a game that can no longer be loaded)."""

from __future__ import annotations

from bot.service.live import Live
from bot.service.registry import Registry
from storage import BrokenSnapshot
from storage.records import LiveTable, Table, TableStatus


class RestoreService(Registry):
    async def restore(self, chat_id: int | None = None) -> list[tuple[Table, str]]:
        """Bring every table back after a restart (or, with ``chat_id``, the tables of one chat this process
        takes over from another): lobbies, games in play, and finished games whose result was not delivered
        before the process stopped. A game that cannot be loaded is marked broken and its group and players
        are told; returns those tables with the reason."""
        broken: list[tuple[Table, str]] = []
        for item in await self.storage.live_tables(chat_id):
            live = await self._restored(item)
            self.live[item.table.id] = live
            if item.game is not None and live.game is None:
                broken.append((live.table, live.table.broken_reason or ""))
                self.redraw.broken(live.table.id)
                self.redraw.table(live.table.id)
                self.redraw.hands(live.table.id)
            elif live.game is not None:  # in play, or over with its result still to send
                self._after_change(live)
            else:
                self.redraw.table(live.table.id)
        return broken

    async def _restored(self, item: LiveTable) -> Live:
        table, row = item.table, item.game
        creator = await self.storage.users.get(table.creator_id)
        chat = await self.storage.chats.get(table.chat_id)
        live = Live(
            table=table,
            names=[],
            creator_name=creator.display_name if creator else "?",
            chat_title=(chat.title if chat and chat.title else "") or "",
        )
        if row is not None:
            try:
                live.game = self.storage.games.load(row)
            except BrokenSnapshot as exc:
                await self.storage.tables.set_status(table.id, TableStatus.BROKEN, exc.reason)
                await self._reload(live)
                return live
            live.game_row, live.seq, live.rated = row, row.seq, row.rated
            if table.status is TableStatus.FINISHED:
                live.result = live.game.result
                live.ratings = {
                    p.seat: (p.rating_before, p.rating_after)
                    for p in await self.storage.results.players(row.id)
                    if p.rating_before is not None and p.rating_after is not None
                }
            else:
                # Players are not punished for our downtime: a passed deadline gets a fresh period.
                now = self.clock()
                deadline = table.deadline
                if deadline is None or deadline < now + 5:
                    deadline = now + table.options.move_timer
                live.deadline = deadline
        await self._reload(live)
        return live
