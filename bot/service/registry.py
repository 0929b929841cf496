"""The registry of live tables that every part of the table service works on: memory, names, closing."""

from __future__ import annotations

import abc
import time
from collections.abc import Callable

from bot.service.live import CLOSED_KEPT, REDRAW_KEPT, Live, Outcome, Redraw, Scheduler
from bot.thinking import Thinker
from engine import Game
from engine.log import Action
from storage import Storage
from storage.records import TableStatus


class Registry(abc.ABC):
    """The live tables by id, and what the lobby, play and restart parts share."""

    def __init__(
        self,
        storage: Storage,
        scheduler: Scheduler,
        redraw: Redraw,
        *,
        bot_delay: float = 1.5,
        thinker: Thinker | None = None,
        clock: Callable[[], float] = time.time,
        live: dict[int, Live] | None = None,
    ) -> None:
        self.storage = storage
        self.scheduler = scheduler
        self.redraw = redraw
        self.bot_delay = bot_delay
        self.clock = clock
        self.live: dict[int, Live] = live if live is not None else {}
        self.thinker = thinker or Thinker(workers=0)

    def table(self, table_id: int) -> Live | None:
        """A table in memory (read only outside the service)."""
        return self.live.get(table_id)

    def here(self, chat_id: int, thread_id: int) -> Live | None:
        """The lobby or game in play of a chat (or forum topic)."""
        return next(
            (
                live
                for live in self.live.values()
                if live.table.chat_id == chat_id
                and live.table.thread_id == thread_id
                and live.table.status in (TableStatus.LOBBY, TableStatus.PLAYING)
            ),
            None,
        )

    # ------------------------------------------------------------------ what play provides

    @abc.abstractmethod
    async def _act(self, live: Live, seat: int, action: Action, *, version: int | None = None) -> Outcome: ...

    @abc.abstractmethod
    def _deadline(self, live: Live, game: Game) -> float | None: ...

    @abc.abstractmethod
    def _after_change(self, live: Live) -> None: ...

    # ------------------------------------------------------------------ messages and chats

    async def message_sent(self, kind: str, table_id: int, seat: int, message_id: int) -> None:
        """A table, hand or result message was sent anew: remember its id (a restart edits it)."""
        live = self.live.get(table_id)
        if kind == "table":
            await self.storage.tables.set_message(table_id, message_id)
            if live is not None:
                live.table = live.table.model_copy(update={"message_id": message_id})
        elif kind == "hand":
            await self.storage.tables.set_hand_message(table_id, seat, message_id)
            if live is not None:
                seats = tuple(
                    s.model_copy(update={"hand_message_id": message_id}) if s.seat == seat else s
                    for s in live.table.seats
                )
                live.table = live.table.model_copy(update={"seats": seats})
        elif kind == "result" and live is not None and live.game_row is not None:
            await self.storage.games.set_result_message(live.game_row.id, message_id)
            live.game_row = live.game_row.model_copy(update={"result_message_id": message_id})
            self.redraw.hands(table_id)  # each player's own end screen links to it

    async def chat_refused(self, chat_id: int) -> None:
        """Telegram refuses our messages to this chat: a user blocked the bot (recorded; nothing more goes to
        them until they write again), or the bot left a group (its live tables end)."""
        if chat_id > 0:
            await self.storage.users.set_blocked(chat_id)
        else:
            await self.close_chat(chat_id)

    async def chat_migrated(self, old_id: int, new_id: int) -> None:
        """The group became a supergroup: its tables, results and settings follow it."""
        await self.storage.chats.migrate(old_id, new_id)
        for live in list(self.live.values()):
            if live.table.chat_id == old_id:
                await self._reload(live)
                self.redraw.table(live.table.id)

    async def close_chat(self, chat_id: int) -> None:
        """The bot can no longer write to this chat (removed from the group): its live tables end there,
        unrated, and their players are told in private."""
        for live in [v for v in self.live.values() if v.table.chat_id == chat_id]:
            async with live.lock:
                if live.table.status in (TableStatus.LOBBY, TableStatus.PLAYING):
                    await self._close(live, TableStatus.CANCELLED, "the bot cannot write to the chat")

    def forget_chat(self, chat_id: int) -> None:
        """Another process owns this chat now: its tables leave memory and their timers stop here."""
        for table_id in [t for t, live in self.live.items() if live.table.chat_id == chat_id]:
            del self.live[table_id]
            self.scheduler.deadline(table_id, -1, None)
            self.scheduler.tick(table_id, -1, None)

    async def _close(self, live: Live, status: TableStatus, reason: str | None = None) -> None:
        """End a table without a result (its lock held): no move is taken from now on, its timers stop, and
        every message that shows it says so."""
        await self.storage.tables.set_status(live.table.id, status, reason)
        await self._reload(live)
        self.scheduler.deadline(live.table.id, -1, None)
        self.scheduler.tick(live.table.id, -1, None)
        self.redraw.table(live.table.id)
        self.redraw.hands(live.table.id)

    async def _reload(self, live: Live) -> None:
        table = await self.storage.tables.get(live.table.id)
        assert table is not None
        live.table = table
        live.names = [await self.seat_name(s.user_id, i) for i, s in enumerate(table.seats)]
        if table.status not in (TableStatus.LOBBY, TableStatus.PLAYING) and live.closed_at is None:
            live.closed_at = self.clock()

    def _prune(self) -> None:
        """Forget tables closed a while ago (their last messages are long drawn): memory stays bounded. A
        result still offering a rematch first loses its button, and is forgotten on a later pass."""
        horizon = self.clock() - CLOSED_KEPT
        for table_id in [t for t, live in self.live.items() if live.closed_at and live.closed_at < horizon]:
            live = self.live[table_id]
            if live.result is not None and live.rematch_open:
                live.rematch_open = False
                live.closed_at = horizon + REDRAW_KEPT  # kept until that redraw has surely gone out
                self.redraw.result(table_id)
            else:
                del self.live[table_id]

    async def seat_name(self, user_id: int | None, seat: int) -> str:
        """How a seat is called on the table: its player's name, or a numbered bot."""
        if user_id is None:
            return f"🤖 {seat + 1}"
        user = await self.storage.users.get(user_id)
        return user.display_name if user else str(user_id)
