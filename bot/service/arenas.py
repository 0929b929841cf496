"""A group's arenas (docs/groups.md, "Game night"): each the one owner of its pool of players, pairing them into
tables of its own as they come free, and crediting each game as it ends. Its tables are ordinary tables
(``Table``) with ``arena_id`` set, played and rated as any; the arena only opens them and hears when they end.

Every command on an arena runs under its lock, writes first, then reads the arena back whole and publishes it
(``ArenaRecord``) to its watcher (the presenter draws the one message the group sees of it). Scores are never
kept: the stored games say them (bot.arena.rules), so nothing a restart loses can change one."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

from bot.arena.rules import Free, credits, pair
from bot.arena.standings import standings
from bot.kinds import MESSAGES, MessageKind
from bot.service.contracts import ArenaWatcher, Env, Refusal, Unwatched, Verdict
from bot.service.published import ArenaRecord
from bot.service.table import Table
from engine import Options
from storage import ArenaExists
from storage.records import OPEN, ArenaRow, ArenaState, TableStatus, User

log = logging.getLogger(__name__)


class Arenas:
    """The running arenas by id, beside the tables (``tables``: the service's map, which their tables join)."""

    def __init__(self, env: Env, tables: dict[int, Table]) -> None:
        self.env = env
        self.tables = tables
        self.watcher: ArenaWatcher = Unwatched()
        self.records: dict[int, ArenaRecord] = {}
        self.minute = 60.0  # seconds in one of an arena's minutes (tests play a whole arena in seconds)
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)

    def of(self, arena_id: int) -> ArenaRecord | None:
        return self.records.get(arena_id)

    def table_of(self, arena_id: int, user_id: int) -> int | None:
        """The arena's table the player sits at now, if any."""
        return next(
            (
                t.id
                for t in self.tables.values()
                if t.row.arena_id == arena_id and t.open and t.seat_of(user_id) is not None
            ),
            None,
        )

    # ------------------------------------------------------------------ commands

    async def open(
        self, chat_id: int, thread_id: int, creator: User, options: Options, size: int, minutes: int
    ) -> Verdict:
        """A new arena, its creator in it: the group's options, seating ``size`` (no teams)."""
        options = Options.model_validate({**options.model_dump(), "seats": size, "teams": False})
        try:
            row = await self.env.storage.arenas.create(
                chat_id, thread_id, creator.id, options, size, minutes * self.minute
            )
        except ArenaExists:
            return Verdict.refused(Refusal.ARENA_EXISTS)
        self.env.scheduler.arena_end(row.id, row.ends_at)
        return await self.set_state(row.id, creator.id, "in")

    async def set_state(self, arena_id: int, user_id: int, state: ArenaState) -> Verdict:
        """Join (or "I'm back": "in"), or leave ("left") the arena. A player who leaves during a game finishes
        it (a bot plays on if they leave the table too) and is not paired again."""
        async with self._locks[arena_id]:
            row = await self._row(arena_id)
            if row is None or self._closing(row):
                return Verdict.refused(Refusal.ARENA_OVER)
            player = next((p for p in row.players if p.user_id == user_id), None)
            if state != "in" and (player is None or player.state == "left"):
                return Verdict.refused(Refusal.NOT_IN_ARENA)
            if player is None or player.state != state:
                await self.env.storage.arenas.set_player(
                    arena_id, user_id, state, free_since=self.env.clock()
                )
            await self._pair_and_publish(arena_id)
            return Verdict(True)

    async def berserk(self, arena_id: int, user_id: int) -> Verdict:
        """Go berserk at the next deal (or take it back): half the move timer, a point more for a win."""
        async with self._locks[arena_id]:
            row = await self._row(arena_id)
            if row is None or self._closing(row):
                return Verdict.refused(Refusal.ARENA_OVER)
            player = next((p for p in row.players if p.user_id == user_id and p.state != "left"), None)
            if player is None:
                return Verdict.refused(Refusal.NOT_IN_ARENA)
            await self.env.storage.arenas.set_berserk(arena_id, user_id, not player.berserk)
            await self._publish(arena_id)
            return Verdict(True)

    async def table_done(self, table: Table) -> None:
        """A table of an arena ended (or was found ended after a restart): its game counts, and the free
        players are paired again."""
        arena_id = table.row.arena_id
        if arena_id is None or table.open:
            return
        async with self._locks[arena_id]:
            if await self._credit(table):
                await self._pair_and_publish(arena_id)

    async def _credit(self, table: Table) -> bool:
        """The game's points for each of its players (bot.arena.rules.credits). False: credited before."""
        users = [s.user_id for s in table.row.seats]
        bases, paused = credits(users, table.game)
        return await self.env.storage.arenas.credit(table.id, bases, paused, self.env.clock())

    async def expire(self, arena_id: int) -> None:
        """Its time is up (a timer, or a restart after it): pairing stops; it finishes once its last game has.
        Not here if this process no longer holds its group (bot.cluster): the one that does has its own timer."""
        if arena_id not in self.records:
            return
        async with self._locks[arena_id]:
            await self._finish_if_done(await self._publish(arena_id))

    async def restore(self, chat_id: int | None = None) -> None:
        """After a restart (or a takeover of the chat): every running arena, its ended games credited, its
        timer set again, pairing resumed (its tables came back first, with every other table)."""
        storage = self.env.storage
        for row in await storage.arenas.running(chat_id):
            if not row.finished:  # (a finished one is back for its podium only)
                self.env.scheduler.arena_end(row.id, row.ends_at)
            for table_id in sorted({g.table_id for g in row.games if g.finished_at is None}):
                table = self.tables.get(table_id)
                if table is not None and not table.open:
                    await self.table_done(table)
                elif table is None:  # ended without a result before the restart, and so not brought back
                    stored = await storage.tables.get(table_id)
                    if stored is None or stored.status not in OPEN:
                        await storage.arenas.credit(table_id, {}, [], self.env.clock())
            async with self._locks[row.id]:
                await self._pair_and_publish(row.id)

    async def close_chat(self, chat_id: int) -> None:
        """The bot can no longer write to the chat: its arenas end with their tables (a game ended there
        without a result counts for nobody)."""
        for row in await self.env.storage.arenas.running(chat_id):
            async with self._locks[row.id]:
                for table_id in {g.table_id for g in row.games if g.finished_at is None}:
                    await self.env.storage.arenas.credit(table_id, {}, [], self.env.clock())
                await self.env.storage.arenas.finish(row.id, podium=False)
                await self._publish(row.id)

    def forget_chat(self, chat_id: int) -> None:
        for arena_id in [a for a, r in self.records.items() if r.row.chat_id == chat_id]:
            del self.records[arena_id]

    async def message_sent(self, kind: MessageKind, arena_id: int, message_id: int) -> None:
        """The arena's message (or its podium) was sent anew: its id is kept where its kind says."""
        kept = MESSAGES[kind].kept
        assert kept is not None and kept[0] == "arena"
        await self.env.storage.arenas.set_message(arena_id, kept[1], message_id)
        async with self._locks[arena_id]:
            await self._publish(arena_id)

    # ------------------------------------------------------------------ steps (the arena's lock held)

    async def _row(self, arena_id: int) -> ArenaRow | None:
        row = await self.env.storage.arenas.get(arena_id)
        return row if row is not None and not row.finished else None

    def _closing(self, row: ArenaRow) -> bool:
        return self.env.clock() >= row.ends_at

    async def _pair_and_publish(self, arena_id: int) -> None:
        row = await self._row(arena_id)
        if row is not None and not self._closing(row):
            await self._pair(row)
        await self._finish_if_done(await self._publish(arena_id))

    async def _pair(self, row: ArenaRow) -> None:
        playing = {g.user_id for g in row.games if g.finished_at is None}
        last: dict[int, int] = {}  # each player's last table
        for g in row.games:
            if g.finished_at is not None:
                last[g.user_id] = g.table_id
        seated: defaultdict[int, set[int]] = defaultdict(set)
        for g in row.games:
            seated[g.table_id].add(g.user_id)
        scores = _scores(row)
        free = [
            Free(
                p.user_id,
                scores.get(p.user_id, 0),
                p.free_since,
                frozenset(seated[last[p.user_id]] - {p.user_id}),
            )
            if p.user_id in last
            else Free(p.user_id, scores.get(p.user_id, 0), p.free_since)
            for p in row.players
            if p.state == "in" and p.user_id not in playing
        ]
        berserk = {p.user_id for p in row.players if p.berserk}
        for users in pair(free, row.size):
            await self._deal(row, [(u, u in berserk) for u in users])

    async def _deal(self, row: ArenaRow, players: list[tuple[int, bool]]) -> None:
        storage = self.env.storage
        table_row = await storage.tables.create_paired(
            row.chat_id, row.thread_id, row.id, row.options, players
        )
        await storage.arenas.paired(row.id, table_row.id, [u for u, _ in players])
        first = await storage.users.get(players[0][0])
        chat = await storage.chats.get(row.chat_id)
        table = self.tables[table_row.id] = Table(
            self.env, table_row, first.display_name if first else "", (chat.title if chat else "") or ""
        )
        verdict = await table.lobby.start(players[0][0], is_admin=True)
        if not verdict.ok:  # the engine refused the deal (it should not): the table ends, nobody is stuck
            log.error("arena %s: table %s could not be dealt: %s", row.id, table_row.id, verdict.refusal)
            await table.close(TableStatus.CANCELLED, "the arena could not deal it")
            await self._credit(table)

    async def _publish(self, arena_id: int) -> ArenaRow | None:
        """The arena read back after a command's writes, published; returned for the steps after it."""
        row = await self.env.storage.arenas.get(arena_id)
        if row is None:
            return None
        last = self.records.get(arena_id)
        record = ArenaRecord(last.version + 1 if last else 1, row, self.env.clock())
        if row.finished:
            self.records.pop(arena_id, None)
            self._locks.pop(arena_id, None)  # nothing more happens to it
        else:
            self.records[arena_id] = record
        self.watcher.arena(record)
        return row

    async def _finish_if_done(self, row: ArenaRow | None) -> None:
        """Over once its time is up and its last game has ended: finished, and published so (the podium)."""
        if (
            row is None
            or row.finished
            or not self._closing(row)
            or any(g.finished_at is None for g in row.games)
        ):
            return
        await self.env.storage.arenas.finish(row.id)
        await self._publish(row.id)


def _scores(row: ArenaRow) -> dict[int, int]:
    return {s.user_id: s.points for s in standings(row)}
