"""The table service: the only code that changes a table.

Each live table is one ``Table`` (``table.py``) that owns its state and its lock; every command on it
reads, decides, writes and updates it inside that lock, asking the engine, committing to the database before
anybody sees a move, rescheduling its timers and marking what must be redrawn. ``TableService`` is the
map from id to table: it opens tables, brings them back after a restart, and hands a command to the table it
names. Handlers and timer jobs call it; it never talks to Telegram itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.service.contracts import (
    ABANDONED,
    CLOSED,
    CLOSED_KEPT,
    REDRAW_KEPT,
    REMATCH_WINDOW,
    Env,
    Outcome,
    Redraw,
    Refusal,
    Scheduler,
    seconds_shown,
    warning_before,
)
from bot.service.restore import restore
from bot.service.state import Screen, store_message_id
from bot.service.table import Table
from bot.thinking import Thinker
from engine import Options
from engine.moves import Move
from storage import Storage, TableExists
from storage.records import TableRow, TableStatus, User, is_former

_GONE = Outcome.refused(Refusal.NO_TABLE)


class TableService:
    """The live tables by id, and the commands that open a table or reach one by its id."""

    def __init__(
        self,
        storage: Storage,
        scheduler: Scheduler,
        redraw: Redraw,
        *,
        bot_delay: float = 1.5,
        thinker: Thinker | None = None,
        clock: Callable[[], float] = time.time,
        live: dict[int, Table] | None = None,
    ) -> None:
        self.env = Env(storage, scheduler, redraw, thinker or Thinker(workers=0), clock, bot_delay)
        self.live: dict[int, Table] = live if live is not None else {}

    @property
    def storage(self) -> Storage:
        return self.env.storage

    @property
    def thinker(self) -> Thinker:
        return self.env.thinker

    @property
    def bot_delay(self) -> float:
        return self.env.bot_delay

    @property
    def redraw(self) -> Redraw:
        return self.env.redraw

    @redraw.setter
    def redraw(self, redraw: Redraw) -> None:
        self.env.redraw = redraw

    def table(self, table_id: int) -> Table | None:
        """A live table (handlers only read it; its commands change it)."""
        return self.live.get(table_id)

    def here(self, chat_id: int, thread_id: int) -> Table | None:
        """The lobby or game in play of a chat (or forum topic)."""
        return next(
            (
                t
                for t in self.live.values()
                if t.live and (t.row.chat_id, t.row.thread_id) == (chat_id, thread_id)
            ),
            None,
        )

    # ------------------------------------------------------------------ opening and ending tables

    async def _one_table_elsewhere(self, chat_id: int, thread_id: int) -> Table | None:
        """The table in another topic of a forum whose admins keep one table in the whole group, if any."""
        chat = await self.storage.chats.get(chat_id)
        if chat is None or chat.tables_per != "group":
            return None
        return next(
            (
                t
                for t in self.live.values()
                if t.live and t.row.chat_id == chat_id and t.row.thread_id != thread_id
            ),
            None,
        )

    async def open_lobby(
        self, chat_id: int, thread_id: int, creator: User, chat_title: str, options: Options
    ) -> Outcome:
        await self._prune()
        if (elsewhere := await self._one_table_elsewhere(chat_id, thread_id)) is not None:
            return Outcome.refused(Refusal.ONE_TABLE, table_id=elsewhere.id)
        try:
            row = await self.storage.tables.create(chat_id, thread_id, creator.id, options)
        except TableExists:
            existing = await self.storage.tables.live_in(chat_id, thread_id)
            return Outcome.refused(Refusal.LOBBY_EXISTS, table_id=existing.id if existing else None)
        table = self.live[row.id] = Table(self.env, row, creator.display_name, chat_title)
        outcome = await table.join(creator)
        return Outcome(True, table_id=row.id) if outcome.ok else outcome

    async def rematch(self, old_id: int, user: User) -> Outcome:
        """The same players, seated again at once with the same options; the others confirm with Join within
        REMATCH_WINDOW or are dropped. One rematch per game."""
        old = self.live.get(old_id)
        if old is None:
            return _GONE

        async def open_next() -> Outcome:
            row = old.row
            if (elsewhere := await self._one_table_elsewhere(row.chat_id, row.thread_id)) is not None:
                return Outcome.refused(Refusal.ONE_TABLE, table_id=elsewhere.id)
            try:
                new = await self.storage.tables.create(row.chat_id, row.thread_id, user.id, row.options)
            except TableExists:
                return Outcome.refused(Refusal.LOBBY_EXISTS)
            table = self.live[new.id] = Table(self.env, new, user.display_name, old.chat_title)
            durak = old.result.durak if old.result is not None else None
            if durak is not None:
                table.loser = (row.seats[durak].user_id, durak)
            # The players of the last game, but for any who asked to be forgotten.
            players = [s.user_id for s in row.seats if not is_former(s.user_id)]
            await table.seat_rematch(players, user.id)
            self.env.scheduler.rematch_expiry(new.id, self.env.clock() + REMATCH_WINDOW)
            return Outcome(True, table_id=new.id)

        return await old.rematch(user.id, open_next)

    async def forget(self, user_id: int) -> int:
        """/forgetme: the user leaves every live table first (a lobby frees the seat, a bot plays on a game
        they sit in), then storage forgets them; the tables they sat at are read again under the anonymous
        id their seats now carry. Returns that id."""
        seated = [t for t in self.live.values() if t.live and t.seat_of(user_id) is not None]
        for table in seated:
            await table.leave(user_id)
        former = await self.storage.users.erase(user_id)
        # A copy: tables open and are pruned while each reload awaits; one pruned meanwhile is not read again.
        for table in [
            t for t in self.live.values() if t.row.creator_id == user_id or t.seat_of(user_id) is not None
        ]:
            if self.live.get(table.id) is table:
                await table.reload()
        return former

    async def restore(self, chat_id: int | None = None) -> list[tuple[TableRow, str]]:
        """Bring every table back after a restart (or, with ``chat_id``, the tables of one chat this process
        takes over from another); returns the tables whose game could not be loaded, with the reason."""
        return await restore(self.env, self.live, chat_id)

    async def _prune(self) -> None:
        """Forget tables closed a while ago (their last messages are long drawn): memory stays bounded. A
        result still offering a rematch first loses its button, and is forgotten on a later pass."""
        horizon = self.env.clock() - CLOSED_KEPT
        for table in [t for t in self.live.values() if t.closed_at and t.closed_at < horizon]:
            async with table.lock:
                if table.result is not None and table.rematch_open:
                    table.rematch_open = False
                    table.closed_at = horizon + REDRAW_KEPT  # kept until that redraw has surely gone out
                    self.env.redraw.result(table.id)
                else:
                    self.live.pop(table.id, None)

    # ------------------------------------------------------------------ chats

    async def message_sent(self, kind: str, table_id: int, seat: int, message_id: int) -> None:
        """A table, hand or result message was sent anew: remember its id (a restart edits it). Or the
        group's messages noted for an ended table were deleted: they are not tried again."""
        if kind == "tidy":
            await self.storage.tables.tidied(table_id)
            return
        table = self.live.get(table_id)
        if table is not None:
            await table.message_sent(kind, seat, message_id)
        else:  # forgotten meanwhile: the database still learns it
            await store_message_id(self.storage, kind, table_id, seat, message_id, None)

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
        for table in [t for t in self.live.values() if t.row.chat_id == old_id]:
            await table.reload()

    async def close_chat(self, chat_id: int) -> None:
        """The bot can no longer write to this chat (removed from the group): its live tables end there,
        unrated, and their players are told in private."""
        for table in [t for t in self.live.values() if t.row.chat_id == chat_id]:
            await table.close(TableStatus.CANCELLED, "the bot cannot write to the chat")

    def forget_chat(self, chat_id: int) -> None:
        """Another process owns this chat now: its tables leave memory and their timers stop here."""
        for table in [t for t in self.live.values() if t.row.chat_id == chat_id]:
            del self.live[table.id]
            table._stop_timers()

    # ------------------------------------------------------------------ commands, by table id

    async def join(self, table_id: int, user: User) -> Outcome:
        table = self.live.get(table_id)
        return await table.join(user) if table else _GONE

    async def leave(self, table_id: int, user_id: int) -> Outcome:
        table = self.live.get(table_id)
        return await table.leave(user_id) if table else _GONE

    async def start(
        self, table_id: int, user_id: int, is_admin: bool, *, deck: list[int] | None = None
    ) -> Outcome:
        table = self.live.get(table_id)
        return await table.start(user_id, is_admin, deck=deck) if table else _GONE

    async def cancel(self, table_id: int, user_id: int, is_admin: bool) -> Outcome:
        table = self.live.get(table_id)
        return await table.cancel(user_id, is_admin) if table else _GONE

    async def press(self, table_id: int, user_id: int, version: int, move: Move) -> Outcome:
        table = self.live.get(table_id)
        return await table.press(user_id, version, move) if table else _GONE

    async def reclaim(self, table_id: int, user_id: int) -> Outcome:
        table = self.live.get(table_id)
        return await table.reclaim(user_id) if table else _GONE

    async def timeout(self, table_id: int, version: int) -> None:
        if (table := self.live.get(table_id)) is not None:
            await table.timeout(version)

    async def tick(self, table_id: int, version: int) -> None:
        if (table := self.live.get(table_id)) is not None:
            await table.tick(version)

    async def bot_turn(self, table_id: int, version: int) -> None:
        if (table := self.live.get(table_id)) is not None:
            await table.bot_turn(version)

    async def expire_rematch(self, table_id: int) -> None:
        if (table := self.live.get(table_id)) is not None:
            await table.expire_rematch()


__all__ = [
    "ABANDONED",
    "CLOSED",
    "REMATCH_WINDOW",
    "Outcome",
    "Redraw",
    "Refusal",
    "Scheduler",
    "Screen",
    "Table",
    "TableService",
    "seconds_shown",
    "warning_before",
]
