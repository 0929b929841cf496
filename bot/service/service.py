"""``TableService``: the map from id to table. It opens tables, brings them back after a restart, forgets
them, hears what Telegram says of chats, and hands each command to the table it names."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from bot.kinds import MessageKind
from bot.service.arenas import Arenas
from bot.service.contracts import (
    CLOSED_KEPT,
    Env,
    Refusal,
    Scheduler,
    Verdict,
    Watcher,
)
from bot.service.opening import open_lobby, rematch
from bot.service.published import Published
from bot.service.restore import restore
from bot.service.table import Table, store_message_id
from bot.thinking import Thinker
from engine import Options
from engine.moves import Move
from engine.views import View, view
from storage import Storage
from storage.records import TableRow, TableStatus, User

_GONE = Verdict.refused(Refusal.NO_TABLE)


class TableService:
    """The live tables by id, and the commands that open a table or reach one by its id."""

    def __init__(
        self,
        storage: Storage,
        scheduler: Scheduler,
        watcher: Watcher,
        *,
        bot_delay: float = 1.5,
        thinker: Thinker | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.env = Env(storage, scheduler, watcher, thinker or Thinker(workers=0), clock, bot_delay)
        self.tables: dict[int, Table] = {}  # the tables in memory: lobbies, games, ended a while ago
        self.arenas = Arenas(self.env, self.tables)  # which open tables of their own (docs/groups.md)

    @property
    def storage(self) -> Storage:
        return self.env.storage

    @property
    def thinker(self) -> Thinker:
        return self.env.thinker

    @property
    def watcher(self) -> Watcher:
        return self.env.watcher

    @watcher.setter
    def watcher(self, watcher: Watcher) -> None:
        self.env.watcher = watcher

    def table(self, table_id: int) -> Published | None:
        """A table in memory, as its last command left it."""
        table = self.tables.get(table_id)
        return table.published if table is not None else None

    def here(self, chat_id: int, thread_id: int) -> Published | None:
        """The lobby or game in play of a chat (or forum topic), as its last command left it (an arena's
        tables are its arena's, not the chat's)."""
        where = (chat_id, thread_id)
        found = (t for t in self.tables.values() if t.open and (t.row.chat_id, t.row.thread_id) == where)
        return next((t.published for t in found if t.row.arena_id is None), None)

    def seen(self, table_id: int, user_id: int) -> View | Verdict:
        """The game as a player at the table sees it now, or why there is none to see."""
        table = self.tables.get(table_id)
        seat = table.play.seat_in_game(user_id) if table is not None else Refusal.NO_TABLE
        if isinstance(seat, Refusal):
            return Verdict.refused(seat)
        assert table is not None and table.game is not None
        return view(table.game, seat)

    def in_memory(self) -> list[Published]:
        """Every table in memory, as its last command left it."""
        return [t.published for t in self.tables.values() if t.published is not None]

    # ------------------------------------------------------------------ opening and ending tables

    async def open_lobby(
        self, chat_id: int, thread_id: int, creator: User, chat_title: str, options: Options
    ) -> Verdict:
        await self._prune()
        return await open_lobby(self.env, self.tables, chat_id, thread_id, creator, chat_title, options)

    async def rematch(self, old_id: int, user: User) -> Verdict:
        """The same players, seated again at once with the same options; the others confirm with Join within
        REMATCH_WINDOW or are dropped. One rematch per game."""
        return await self._on(old_id, lambda old: rematch(self.env, self.tables, old, user))

    async def forget(self, user_id: int) -> int:
        """/forgetme: the user leaves every open table first (a lobby frees the seat, a bot plays on a game
        they sit in), then storage forgets them; the tables they sat at are read again under the anonymous
        id their seats now carry. Returns that id."""
        seated = [t for t in self.tables.values() if t.open and t.seat_of(user_id) is not None]
        for table in seated:
            await table.lobby.leave(user_id)
        former = await self.storage.users.erase(user_id)
        # A copy: tables open and are pruned while each reload awaits; one pruned meanwhile is not read again.
        for table in [
            t for t in self.tables.values() if t.row.creator_id == user_id or t.seat_of(user_id) is not None
        ]:
            if self.tables.get(table.id) is table:
                await table.reload()
        return former

    async def restore(self, chat_id: int | None = None) -> list[tuple[TableRow, str]]:
        """Bring every table back after a restart (or, with ``chat_id``, the tables of one chat this process
        takes over from another); returns the tables whose game could not be loaded, with the reason."""
        broken = await restore(self.env, self.tables, chat_id)
        await self.arenas.restore(chat_id)
        return broken

    async def _prune(self) -> None:
        """Forget tables closed a while ago: memory stays bounded."""
        horizon = self.env.clock() - CLOSED_KEPT
        for table in [t for t in self.tables.values() if t.closed_at and t.closed_at < horizon]:
            if await table.prune(horizon):
                self._drop(table.id)

    # ------------------------------------------------------------------ chats

    async def message_sent(self, kind: MessageKind, table_id: int, seat: int, message_id: int) -> None:
        """A table, hand or result message was sent anew: remember its id (a restart edits it). Or the
        group's messages noted for an ended table were deleted: they are not tried again."""
        if kind == "tidy":
            await self.storage.tables.tidied(table_id)
            return
        if kind in ("arena", "podium"):  # an arena's (its id in the table's place)
            await self.arenas.message_sent(kind, table_id, message_id)
            return
        table = self.tables.get(table_id)
        if table is not None:
            await table.message_sent(kind, seat, message_id)
        else:  # forgotten meanwhile: the database still learns it
            await store_message_id(self.storage, kind, table_id, seat, message_id, None)

    async def chat_refused(self, chat_id: int) -> None:
        """Telegram refuses our messages to this chat: a user blocked the bot (recorded; nothing more goes to
        them until they write again), or the bot left a group (its open tables end)."""
        if chat_id > 0:
            await self.storage.users.set_blocked(chat_id)
        else:
            await self.close_chat(chat_id)

    async def chat_migrated(self, old_id: int, new_id: int) -> None:
        """The group became a supergroup: its tables, results and settings follow it."""
        await self.storage.chats.migrate(old_id, new_id)
        for table in [t for t in self.tables.values() if t.row.chat_id == old_id]:
            await table.reload()

    async def close_chat(self, chat_id: int) -> None:
        """The bot can no longer write to this chat (removed from the group): its open tables end there,
        unrated, and their players are told in private."""
        for table in [t for t in self.tables.values() if t.row.chat_id == chat_id]:
            await table.close(TableStatus.CANCELLED, "the bot cannot write to the chat")
        await self.arenas.close_chat(chat_id)

    def forget_chat(self, chat_id: int) -> None:
        """Another process owns this chat now: its tables leave memory and their timers stop here."""
        for table in [t for t in self.tables.values() if t.row.chat_id == chat_id]:
            self._drop(table.id)
            table.clock.stop()
        self.arenas.forget_chat(chat_id)

    def _drop(self, table_id: int) -> None:
        if self.tables.pop(table_id, None) is not None:
            self.env.watcher.forgotten(table_id)

    # ------------------------------------------------------------------ commands, by table id

    async def _on(self, table_id: int, command: Callable[[Table], Awaitable[Verdict | None]]) -> Verdict:
        """The one way to a table's command: by its id (a table gone meanwhile refuses it)."""
        table = self.tables.get(table_id)
        if table is None:
            return _GONE
        verdict = await command(table) or Verdict(True, table_id=table_id)
        if table.row.arena_id is not None and not table.open:
            await self.arenas.table_done(table)  # its game counts in its arena (once)
        return verdict

    async def join(self, table_id: int, user: User) -> Verdict:
        return await self._on(table_id, lambda t: t.lobby.join(user))

    async def leave(self, table_id: int, user_id: int) -> Verdict:
        return await self._on(table_id, lambda t: t.lobby.leave(user_id))

    async def kick(self, table_id: int, user_id: int, by: int, is_admin: bool) -> Verdict:
        return await self._on(table_id, lambda t: t.lobby.kick(user_id, by, is_admin))

    async def add_bot(self, table_id: int, by: int, is_admin: bool) -> Verdict:
        return await self._on(table_id, lambda t: t.lobby.add_bot(by, is_admin))

    async def toggle_options(self, table_id: int, by: int, is_admin: bool) -> Verdict:
        return await self._on(table_id, lambda t: t.lobby.toggle_options(by, is_admin))

    async def set_option(self, table_id: int, by: int, is_admin: bool, name: str) -> Verdict:
        return await self._on(table_id, lambda t: t.lobby.set_option(by, is_admin, name))

    async def start(
        self, table_id: int, user_id: int, is_admin: bool, *, deck: list[int] | None = None
    ) -> Verdict:
        return await self._on(table_id, lambda t: t.lobby.start(user_id, is_admin, deck=deck))

    async def cancel(self, table_id: int, user_id: int, is_admin: bool) -> Verdict:
        return await self._on(table_id, lambda t: t.lobby.cancel(user_id, is_admin))

    async def note(self, table_id: int, *message_ids: int) -> Verdict:
        return await self._on(table_id, lambda t: t.note(*message_ids))

    async def press(self, table_id: int, user_id: int, version: int, move: Move) -> Verdict:
        return await self._on(table_id, lambda t: t.play.press(user_id, version, move))

    async def pick(self, table_id: int, user_id: int, version: int | None, card: int | None) -> Verdict:
        return await self._on(table_id, lambda t: t.play.pick(user_id, version, card))

    async def concede(self, table_id: int, user_id: int, step: str) -> Verdict:
        return await self._on(table_id, lambda t: t.play.concede(user_id, step))

    async def show_cards(self, table_id: int, user_id: int) -> Verdict:
        return await self._on(table_id, lambda t: t.play.show_cards(user_id))

    async def reclaim(self, table_id: int, user_id: int) -> Verdict:
        return await self._on(table_id, lambda t: t.play.reclaim(user_id))

    async def timeout(self, table_id: int, version: int) -> None:
        await self._on(table_id, lambda t: t.play.timeout(version))

    async def tick(self, table_id: int, version: int) -> None:
        await self._on(table_id, lambda t: t.play.tick(version))

    async def bot_turn(self, table_id: int, version: int) -> None:
        await self._on(table_id, lambda t: t.play.bot_turn(version))

    async def expire_rematch(self, table_id: int) -> None:
        await self._on(table_id, lambda t: t.lobby.expire_rematch())
