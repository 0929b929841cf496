"""A live table: the one owner of everything a table holds in memory, made of parts with one job each — its
lobby (bot.service.lobby: seats, options, the deal, the rematch), its play (bot.service.play: moves, "I'm
back", timeouts, bot turns), its clock (bot.service.clock) and its players' screens (bot.service.screens).

Every command of a part runs inside ``async with table.command()``: the table's lock, so presses that arrive
together apply one after the other, each to the table as the one before left it (two players leaving at once
leave, and nobody else), and on the way out the table as the command left it published as one record
(bot.service.published). Nothing outside the service reads or writes a live table.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

from bot import metrics
from bot.kinds import MESSAGES, MessageKind
from bot.service.clock import Clock
from bot.service.contracts import ABANDONED, RECENT, REDRAW_KEPT, Env
from bot.service.lobby import Lobby
from bot.service.play import Play
from bot.service.published import Facts, Published
from bot.service.screens import Screens
from engine import Event, Game
from engine.options import BotLevel
from storage import Storage
from storage.records import Ended, GameRow, TableRow, TableStatus


class Table(Facts):
    """A table's stored record and, while it is played, its game; the parts that change them."""

    def __init__(
        self,
        env: Env,
        row: TableRow,
        creator_name: str,
        chat_title: str,
        *,
        loser: tuple[int | None, int] | None = None,
        game: Game | None = None,
        game_row: GameRow | None = None,
        deadline: float | None = None,
        ratings: dict[int, tuple[float, float]] | None = None,
    ) -> None:
        """A new lobby; or (``game`` and the rest) a table brought back after a restart."""
        self.env = env
        self.row = row
        # Each seat's player; "" for an added bot (the renderer names it in each reader's language).
        self.names: list[str] = []
        self.creator_name = creator_name
        self.chat_title = chat_title
        self.game = game
        self.game_row = game_row
        self.rated = game_row.rated if game_row is not None else True
        self.ratings = ratings or {}  # seat -> (before, after) once the game is rated
        self.recent: deque[Event] = deque(maxlen=RECENT)
        self.handed: dict[int, Ended] = {}  # the seats a bot plays in the game, and why (not kept on restart)
        self.kicked: set[int] = set()  # players whose seat the host or an admin handed to a bot (/kick)
        self.closed_at: float | None = None  # when it finished or was cancelled
        self.noted = 0  # messages of the group noted for the table, as a count (a change to publish)
        self.published: Published | None = None  # the last record of the table
        self.lock = asyncio.Lock()
        self.clock = Clock(env, row.id, deadline)
        self.screens = Screens()
        self.lobby = Lobby(self, loser)
        self.play = Play(self)

    # ------------------------------------------------------------------ what the table says of itself

    def bot_level(self, seat: int) -> BotLevel:
        """An added bot plays at the level its seat records (the table's, set at the deal); a bot holding a
        player's seat plays ``normal``."""
        at = self.row.seats[seat]
        return BotLevel(at.bot_level) if at.user_id is None and at.bot_level else BotLevel.NORMAL

    def nobody_plays(self, game: Game) -> bool:
        """No seat of ``game`` is played by a person: everybody left or missed their moves, or only bots sat
        down (docs/rules.md §9)."""
        return all(self.is_bot_seat(s, game) for s in range(game.players))

    # ------------------------------------------------------------------ one way out

    @asynccontextmanager
    async def command(self) -> AsyncIterator[None]:
        """Every command runs inside this: the table's lock, and on the way out the table as the command left
        it published, if anything changed (a refused command publishes nothing)."""
        async with self.lock:
            try:
                yield
            finally:
                self._publish()

    def _publish(self) -> None:
        last = self.published
        lobby = self.lobby
        record = Published(
            version=last.version if last is not None else 1,
            at=self.env.clock(),
            row=self.row,
            names=tuple(self.names),
            creator_name=self.creator_name,
            chat_title=self.chat_title,
            game=self.game,
            game_row=self.game_row,
            seconds=self.clock.seconds(self.game, self.move_timer()),
            deadline=self.clock.deadline if self.game is not None and not self.game.over else None,
            rated=self.rated,
            ratings=dict(self.ratings),
            recent=tuple(self.recent),
            editing_options=lobby.editing_options,
            pending=frozenset(lobby.pending),
            rematch_open=lobby.rematch_open,
            screens=self.screens.published(),
            noted=self.noted,
        )
        if record != last:
            self.published = record if last is None else replace(record, version=last.version + 1)
            self.env.watcher.published(self.published)

    # ------------------------------------------------------------------ steps the parts share (lock held)

    async def reread(self) -> None:
        """Read the stored record again after a write, and the seated players' names."""
        row = await self.env.storage.tables.get(self.row.id)
        assert row is not None
        self.row = row
        self.names = await self.env.storage.users.seat_names(row.seats)
        if not self.open and self.closed_at is None:
            self.closed_at = self.env.clock()

    async def end(self, status: TableStatus, reason: str | None = None) -> None:
        """End the table without a result: no move is taken from now on, its timers stop, and every message
        that shows it says so."""
        await self.env.storage.tables.set_status(self.row.id, status, reason)
        if self.game is not None and not self.game.over:  # a game ended without a result
            metrics.GAMES.labels(reason if reason == ABANDONED else status.value).inc()
        await self.reread()
        self.clock.stop()
        self.screens.clear()  # no hand asks anything of its player again

    # ------------------------------------------------------------------ the table's own commands

    async def reload(self) -> None:
        """The stored record changed under the table (its group moved to a new chat id, a player was
        forgotten): read it again."""
        async with self.command():
            await self.reread()
            creator = await self.env.storage.users.get(self.row.creator_id)
            self.creator_name = creator.display_name if creator else ""

    async def resume(self) -> None:
        """Brought back after a restart: its record read again, and its game, if any (in play, or over with
        its result still to send), goes on from where it was stored."""
        async with self.command():
            await self.reread()
            if self.game is not None:
                self.play.after_change()

    async def prune(self, horizon: float) -> bool:
        """Whether the table, closed before ``horizon``, may be forgotten (its last messages are long drawn).
        A result still offering a rematch first loses its button: forgotten on a later pass."""
        async with self.command():
            if self.result is not None and self.lobby.rematch_open:
                self.lobby.rematch_open = False
                self.closed_at = horizon + REDRAW_KEPT  # kept until that redraw has surely gone out
                return False
            return True

    async def close(self, status: TableStatus, reason: str | None = None) -> None:
        """End an open table without a result (the bot left its group, say)."""
        async with self.command():
            if self.open:
                await self.end(status, reason)

    async def message_sent(self, kind: MessageKind, seat: int, message_id: int) -> None:
        """A message of the table was sent anew: remember its id where its kind keeps it (bot.kinds; a
        restart edits it; 0: an in-group hand is gone, and there is none to edit). The id is written first
        and taken into the table after, with the lock held only for that: a press never waits behind this
        write, and a command that read the record before it is corrected by it."""
        game_id = self.game_row.id if self.game_row is not None else None
        if not await store_message_id(self.env.storage, kind, self.id, seat, message_id, game_id):
            return
        kept = MESSAGES[kind].kept
        assert kept is not None
        keeper, column = kept
        async with self.command():
            if keeper == "table":
                self.row = self.row.model_copy(update={column: message_id})
            elif keeper == "seat":
                seats = tuple(
                    s.model_copy(update={column: message_id or None}) if s.seat == seat else s
                    for s in self.row.seats
                )
                self.row = self.row.model_copy(update={"seats": seats})
            elif self.game_row is not None:
                self.game_row = self.game_row.model_copy(update={column: message_id})

    async def note(self, *message_ids: int) -> None:
        """Messages of the group that led to this table (a command for it, the bot's answer): deleted when it
        ends, where the group keeps its chat tidy; at once if it has ended already."""
        await self.env.storage.tables.note_messages(self.id, self.row.chat_id, message_ids)
        async with self.command():
            self.noted += 1  # an ended table's are deleted at once


async def store_message_id(
    storage: Storage, kind: MessageKind, table_id: int, seat: int, message_id: int, game_id: int | None
) -> bool:
    """Write where its kind keeps it (bot.kinds) the id of a message sent anew (a restart edits it); False:
    nothing to write (a kind not kept, a result of no game)."""
    kept = MESSAGES[kind].kept
    if kept is None:
        return False
    keeper, column = kept
    if keeper == "table":
        await storage.tables.set_message(table_id, message_id)
    elif keeper == "seat":
        await storage.tables.set_seat_message(table_id, seat, column, message_id or None)  # 0: gone
    elif game_id is not None:
        await storage.games.set_result_message(game_id, message_id)
    else:
        return False
    return True
