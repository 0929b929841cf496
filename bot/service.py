"""The table service: the only code that changes a table.

Each operation takes the table's lock, asks the engine, writes to the database (a move is committed before
anybody sees it), updates the live state in memory, reschedules the timer and marks what must be redrawn.
Handlers and timer jobs call it; it never talks to Telegram itself.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum

from bot.thinking import Thinker
from engine import Event, Game, Options, OptionsError, Result, cards
from engine.events import EventKind, IllegalMove
from engine.fairness import deck_text, new_salt
from engine.log import RECLAIM, TAKE_OVER, TIMEOUT, act
from engine.moves import Move, move_str
from engine.options import BotLevel
from engine.snapshot import dumps
from engine.views import View, view
from storage import BrokenSnapshot, SeatTaken, StaleGame, Storage, TableExists
from storage.records import GameRow, LiveTable, Table, TableStatus, User
from storage.results import result_from_engine

log = logging.getLogger(__name__)

RECENT = 4  # action lines kept for the table message
CLOSED_KEPT = 600.0  # seconds a finished or cancelled table stays in memory for its last redraws
RETRY_FIRST, RETRY_MAX = 1.0, 30.0  # seconds before a table whose write failed tries its timer again
CLOSED = (TableStatus.CANCELLED, TableStatus.BROKEN)  # ended without a result: no move, no rating


class Refusal(StrEnum):
    """Why the service did nothing; the value is the i18n key of the alert."""

    STALE = "alert.stale"
    NOT_YOURS = "alert.not_yours"
    NOT_SEATED = "alert.not_seated"
    NO_TABLE = "alert.no_table"
    ALREADY_SEATED = "alert.already_seated"
    FULL = "alert.full"
    NOT_LOBBY = "alert.not_lobby"
    CREATOR_ONLY = "alert.creator_only"
    TOO_FEW = "alert.too_few"
    TEAM_SIZE = "alert.team_size"
    LOBBY_EXISTS = "alert.lobby_exists"
    WAITING = "alert.waiting"
    CANCELLED = "alert.cancelled"
    SAVE_FAILED = "alert.save_failed"
    OTHER_CHAT = "alert.other_chat"
    ILLEGAL = "illegal"  # the engine's reason goes with it


@dataclass
class Outcome:
    ok: bool
    refusal: Refusal | None = None
    reason: str | None = None  # the engine's Reason code for an illegal move
    table_id: int | None = None

    @classmethod
    def refused(cls, refusal: Refusal, reason: str | None = None, table_id: int | None = None) -> Outcome:
        return cls(False, refusal, reason, table_id)


@dataclass
class Live:
    """A table in memory: the stored record, and the game while it is played."""

    table: Table
    names: list[str]
    creator_name: str
    chat_title: str
    game: Game | None = None
    game_row: GameRow | None = None
    seq: int = 0
    deadline: float | None = None
    result: Result | None = None
    rated: bool = True
    ratings: dict[int, tuple[float, float]] = field(default_factory=dict)
    recent: deque[Event] = field(default_factory=lambda: deque(maxlen=RECENT))
    editing_options: bool = False
    closed_at: float | None = None  # when it finished or was cancelled
    pending: set[int] = field(default_factory=set)  # rematch: players who have not confirmed yet
    loser: tuple[int | None, int] | None = (
        None  # rematch: the last durak (user id, or None and seat for a bot)
    )
    failures: int = 0  # database writes that failed in a row (the retry backs off)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.table.seats if s.user_id == user_id), None)

    def is_bot_seat(self, seat: int) -> bool:
        return self.table.seats[seat].user_id is None or (self.game is not None and self.game.is_auto(seat))

    def bot_level(self, seat: int) -> BotLevel:
        """Added bots play at the table's level; a bot holding a player's seat plays ``normal``."""
        return self.table.options.bot_level if self.table.seats[seat].user_id is None else BotLevel.NORMAL

    def public(self) -> View:
        assert self.game is not None
        return view(self.game)


class Scheduler:
    """What the service needs from the job queue (bot.timers implements it over PTB's JobQueue)."""

    def deadline(self, table_id: int, version: int, at: float | None) -> None: ...

    def bot_turn(self, table_id: int, version: int, delay: float) -> None: ...

    def rematch_expiry(self, table_id: int, at: float) -> None: ...


class Redraw:
    """What the service needs from the sender: which messages changed."""

    def table(self, table_id: int) -> None: ...

    def hands(self, table_id: int) -> None: ...

    def result(self, table_id: int) -> None: ...

    def broken(self, table_id: int) -> None: ...


class TableService:
    def __init__(
        self,
        storage: Storage,
        scheduler: Scheduler,
        redraw: Redraw,
        *,
        bot_delay: float = 1.5,
        thinker: Thinker | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.storage = storage
        self.scheduler = scheduler
        self.redraw = redraw
        self.bot_delay = bot_delay
        self.clock = clock
        self.live: dict[int, Live] = {}
        self.thinker = thinker or Thinker(workers=0)

    # ------------------------------------------------------------------ lobby

    async def open_lobby(
        self, chat_id: int, thread_id: int, creator: User, chat_title: str, options: Options
    ) -> Outcome:
        self._prune()
        try:
            table = await self.storage.tables.create(chat_id, thread_id, creator.id, options)
        except TableExists:
            existing = await self.storage.tables.live_in(chat_id, thread_id)
            return Outcome.refused(Refusal.LOBBY_EXISTS, table_id=existing.id if existing else None)
        live = Live(table=table, names=[], creator_name=creator.display_name, chat_title=chat_title)
        self.live[table.id] = live
        outcome = await self.join(table.id, creator)
        self.redraw.table(table.id)
        return Outcome(True, table_id=table.id) if outcome.ok else outcome

    async def _lobby(
        self,
        table_id: int,
        change: Callable[[Live], Awaitable[Refusal | None]],
        *,
        by: int | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        """Run ``change`` on a table that is still a lobby (by its creator or an admin, if ``by`` is given)."""
        live = self.live.get(table_id)
        if live is None:
            return Outcome.refused(Refusal.NO_TABLE)
        async with live.lock:
            if live.table.status is not TableStatus.LOBBY:
                return Outcome.refused(Refusal.NOT_LOBBY)
            if by is not None and by != live.table.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            refusal = await change(live)
            if refusal is not None:
                return Outcome.refused(refusal)
            await self._reload(live)
        self.redraw.table(table_id)
        return Outcome(True, table_id=table_id)

    async def _seat(self, table_id: int, user_id: int | None) -> Refusal | None:
        try:
            await self.storage.tables.add_seat(table_id, user_id, None if user_id else "normal")
        except SeatTaken:
            return Refusal.FULL
        return None

    async def join(self, table_id: int, user: User) -> Outcome:
        async def seat_user(live: Live) -> Refusal | None:
            if user.id in live.pending:
                live.pending.discard(user.id)  # confirms the rematch
                return None
            if live.seat_of(user.id) is not None:
                return Refusal.ALREADY_SEATED
            return await self._seat(table_id, user.id)

        return await self._lobby(table_id, seat_user)

    async def add_bot(self, table_id: int, user_id: int, is_admin: bool) -> Outcome:
        return await self._lobby(
            table_id, lambda live: self._seat(table_id, None), by=user_id, is_admin=is_admin
        )

    async def leave(self, table_id: int, user_id: int) -> Outcome:
        """In a lobby the seat is freed; in a game a bot plays it from now on (docs/rules.md §9)."""
        live = self.live.get(table_id)
        if live is None:
            return Outcome.refused(Refusal.NO_TABLE)
        seat = live.seat_of(user_id)
        if seat is None:
            return Outcome.refused(Refusal.NOT_SEATED)
        if live.table.status is TableStatus.PLAYING:
            return await self._act(live, seat, TAKE_OVER)

        async def free(live: Live) -> None:
            live.pending.discard(user_id)
            await self.storage.tables.remove_seat(table_id, seat)

        return await self._lobby(table_id, free)

    async def set_option(
        self, table_id: int, user_id: int, is_admin: bool, options: Options | None
    ) -> Outcome:
        """Change the options (None: show or hide the options keyboard)."""

        async def change(live: Live) -> None:
            if options is None:
                live.editing_options = not live.editing_options
            else:
                await self.storage.tables.set_options(table_id, options)

        return await self._lobby(table_id, change, by=user_id, is_admin=is_admin)

    async def cancel(self, table_id: int, user_id: int, is_admin: bool) -> Outcome:
        live = self.live.get(table_id)
        if live is None:
            return Outcome.refused(Refusal.NO_TABLE)
        async with live.lock:
            if user_id != live.table.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            if live.table.status not in (TableStatus.LOBBY, TableStatus.PLAYING):
                return Outcome.refused(Refusal.NO_TABLE)
            await self._close(live, TableStatus.CANCELLED)
        return Outcome(True, table_id=table_id)

    async def close_chat(self, chat_id: int) -> None:
        """The bot can no longer write to this chat (removed from the group): its live tables end there,
        unrated, and their players are told in private."""
        for live in [v for v in self.live.values() if v.table.chat_id == chat_id]:
            async with live.lock:
                if live.table.status in (TableStatus.LOBBY, TableStatus.PLAYING):
                    await self._close(live, TableStatus.CANCELLED, "the bot cannot write to the chat")

    async def _close(self, live: Live, status: TableStatus, reason: str | None = None) -> None:
        """End a table without a result (its lock held): no move is taken from now on, its timers stop, and
        every message that shows it says so."""
        await self.storage.tables.set_status(live.table.id, status, reason)
        await self._reload(live)
        self.scheduler.deadline(live.table.id, -1, None)
        self.redraw.table(live.table.id)
        self.redraw.hands(live.table.id)

    async def start(
        self, table_id: int, user_id: int, is_admin: bool, *, deck: list[int] | None = None
    ) -> Outcome:
        live = self.live.get(table_id)
        if live is None:
            return Outcome.refused(Refusal.NO_TABLE)
        async with live.lock:
            table = live.table
            if table.status is not TableStatus.LOBBY:
                return Outcome.refused(Refusal.NOT_LOBBY)
            if user_id != table.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            players = len(table.seats)
            try:
                table.options.check_players(players)  # the engine says who may play; we only translate it
            except OptionsError as exc:
                return Outcome.refused(_PLAYER_COUNT.get(exc.code, Refusal.FULL))
            if live.pending:
                return Outcome.refused(Refusal.WAITING)
            order = list(deck) if deck is not None else cards.deck(table.options.deck)
            if deck is None:
                random.SystemRandom().shuffle(order)
            game = Game.deal(table.options, players, deck=order, loser=self._rematch_loser(live))
            live.rated = all(s.user_id is not None for s in table.seats)
            deadline = self._deadline(live, game)
            row = await self.storage.games.start(
                table_id,
                dumps(game),
                game.version,
                rated=live.rated,
                deadline=deadline,
                deck=deck_text(order),
                salt=new_salt(),
            )
            live.game, live.game_row, live.seq, live.deadline = game, row, 0, deadline
            live.editing_options = False
            await self._reload(live)
        self._after_change(live)
        return Outcome(True, table_id=table_id)

    async def rematch(self, old_id: int, user: User) -> Outcome:
        """The same players, seated again at once with the same options; the others confirm with Join
        within the move timer or are dropped (docs/rules.md §3 decides who leads)."""
        old = self.live.get(old_id)
        if old is None or old.result is None:
            return Outcome.refused(Refusal.NO_TABLE)
        if old.seat_of(user.id) is None:
            return Outcome.refused(Refusal.NOT_SEATED)
        table = old.table
        try:
            new = await self.storage.tables.create(table.chat_id, table.thread_id, user.id, table.options)
        except TableExists:
            return Outcome.refused(Refusal.LOBBY_EXISTS)
        live = Live(table=new, names=[], creator_name=user.display_name, chat_title=old.chat_title)
        self.live[new.id] = live
        durak = old.result.durak
        if durak is not None:
            live.loser = (table.seats[durak].user_id, durak)
        async with live.lock:
            for seat in table.seats:
                await self._seat(new.id, seat.user_id)
                if seat.user_id is not None and seat.user_id != user.id:
                    live.pending.add(seat.user_id)
            await self._reload(live)
        self.scheduler.rematch_expiry(new.id, self.clock() + table.options.move_timer)
        self.redraw.table(new.id)
        return Outcome(True, table_id=new.id)

    async def expire_rematch(self, table_id: int) -> None:
        """The confirmation time is over: players who did not confirm leave their seats."""
        live = self.live.get(table_id)
        for user_id in list(live.pending) if live else []:
            await self.leave(table_id, user_id)

    def _rematch_loser(self, live: Live) -> int | None:
        """The last durak's seat at this table, if they are still at it (None: lowest trump leads)."""
        if live.loser is None:
            return None
        user_id, old_seat = live.loser
        if user_id is None:
            return (
                old_seat
                if old_seat < len(live.table.seats) and live.table.seats[old_seat].user_id is None
                else None
            )
        return live.seat_of(user_id)

    # ------------------------------------------------------------------ play

    def seat_in_game(self, table_id: int, user_id: int) -> tuple[Live, int] | Refusal:
        """The game a user plays at this table and their seat, or why there is none."""
        live = self.live.get(table_id)
        if live is None or live.game is None:
            return Refusal.NO_TABLE
        if live.table.status in CLOSED:
            return Refusal.CANCELLED
        seat = live.seat_of(user_id)
        return Refusal.NOT_YOURS if seat is None else (live, seat)

    async def press(self, table_id: int, user_id: int, version: int, move: Move) -> Outcome:
        found = self.seat_in_game(table_id, user_id)
        if isinstance(found, Refusal):
            return Outcome.refused(found)
        return await self._act(found[0], found[1], move_str(move), version=version)

    async def reclaim(self, table_id: int, user_id: int) -> Outcome:
        found = self.seat_in_game(table_id, user_id)
        if isinstance(found, Refusal):
            return Outcome.refused(found)
        return await self._act(found[0], found[1], RECLAIM)

    async def timeout(self, table_id: int, version: int) -> None:
        """The deadline job fired; nothing happens if the table moved on meanwhile."""
        live = self.live.get(table_id)
        if live is not None and live.game is not None and live.game.version == version and not live.game.over:
            await self._act(live, -1, TIMEOUT, version=version)

    async def bot_turn(self, table_id: int, version: int) -> None:
        """Bot-played seats on the clock move, one at a time, from their own view only."""
        live = self.live.get(table_id)
        if live is None or live.game is None or live.game.version != version or live.game.over:
            return
        for seat in live.game.to_act():
            if live.is_bot_seat(seat):
                move = await self.thinker.choose(view(live.game, seat), live.bot_level(seat))
                # _act refuses the move if the table changed while the bot was thinking.
                await self._act(live, seat, move_str(move), version=version)
                return

    async def _act(self, live: Live, seat: int, action: str, *, version: int | None = None) -> Outcome:
        async with live.lock:
            game = live.game
            if game is None or game.over:
                return Outcome.refused(Refusal.NO_TABLE)
            if live.table.status is not TableStatus.PLAYING:
                return Outcome.refused(Refusal.CANCELLED)
            if version is not None and version != game.version:
                return Outcome.refused(Refusal.STALE)
            candidate = game.copy()
            try:
                applied = act(candidate, seat, action)
            except IllegalMove as exc:
                return Outcome.refused(Refusal.ILLEGAL, exc.reason.value)
            if not applied.events and action in (TAKE_OVER, RECLAIM):
                return Outcome(True, table_id=live.table.id)
            assert live.game_row is not None
            deadline = self._deadline(live, candidate)
            try:
                async with self.storage.db.transaction():
                    await self.storage.games.record(
                        live.game_row.id,
                        live.seq + 1,
                        seat,
                        action,
                        dumps(candidate),
                        candidate.version,
                        deadline=deadline,
                    )
                    if candidate.result is not None:
                        await self._finish(live, candidate)
            except StaleGame:  # the database says the table left play (another process cancelled it)
                await self._reload(live)
                return Outcome.refused(Refusal.CANCELLED)
            except (sqlite3.Error, OSError) as exc:
                # Nothing was written and the game in memory is as it was: say so, and keep the table going.
                self._retry_later(live, action, exc)
                return Outcome.refused(Refusal.SAVE_FAILED)
            live.failures = 0
            live.game, live.seq, live.deadline = candidate, live.seq + 1, deadline
            live.recent.extend(e for e in applied.events if e.kind not in _QUIET)
            if candidate.result is not None:
                live.result = candidate.result
                await self._reload(live)
        self._after_change(live)
        return Outcome(True, table_id=live.table.id)

    async def _finish(self, live: Live, game: Game) -> None:
        assert game.result is not None and live.game_row is not None
        record = result_from_engine(
            live.game_row.id,
            live.table.chat_id,
            live.table.seats,
            game.result,
            live.table.options,
            rated=live.rated,
            started_at=live.game_row.started_at,
            finished_at=self.clock(),
        )
        stored = await self.storage.results.record(record, teams=live.table.options.teams)
        live.game_row = live.game_row.model_copy(update={"finished_at": record.finished_at})
        live.ratings = {
            p.seat: (p.rating_before, p.rating_after)
            for p in stored.players
            if p.rating_before is not None and p.rating_after is not None
        }

    def _retry_later(self, live: Live, action: str, exc: BaseException) -> None:
        """A write failed: the table's timer (if it has run out) and a bot's turn come again after a pause
        that grows with every failure in a row, so a table never stalls until a restart."""
        assert live.game is not None
        live.failures += 1
        delay = min(RETRY_MAX, RETRY_FIRST * 2 ** (live.failures - 1))
        log.warning(
            "table %s: saving %r failed (%s); trying again in %.0f s", live.table.id, action, exc, delay
        )
        table_id, version = live.table.id, live.game.version
        if live.deadline is not None and live.deadline < self.clock() + delay:
            self.scheduler.deadline(table_id, version, self.clock() + delay)
        if any(live.is_bot_seat(s) for s in live.game.to_act()):
            self.scheduler.bot_turn(table_id, version, delay)

    def _deadline(self, live: Live, game: Game) -> float | None:
        if game.over:
            return None
        return self.clock() + live.table.options.move_timer

    def _after_change(self, live: Live) -> None:
        game = live.game
        assert game is not None
        table_id = live.table.id
        if game.over:
            self.scheduler.deadline(table_id, game.version, None)
            self.redraw.result(table_id)
        else:
            self.scheduler.deadline(table_id, game.version, live.deadline)
            thinking = [self.thinker.budget(live.bot_level(s)) for s in game.to_act() if live.is_bot_seat(s)]
            if thinking:
                # The pause before a bot's move includes its thinking time, so play keeps one pace.
                self.scheduler.bot_turn(table_id, game.version, max(0.0, self.bot_delay - max(thinking)))
        self.redraw.table(table_id)
        self.redraw.hands(table_id)

    # ------------------------------------------------------------------ memory and restart

    async def _reload(self, live: Live) -> None:
        table = await self.storage.tables.get(live.table.id)
        assert table is not None
        live.table = table
        live.names = [await self.seat_name(s.user_id, i) for i, s in enumerate(table.seats)]
        if table.status not in (TableStatus.LOBBY, TableStatus.PLAYING) and live.closed_at is None:
            live.closed_at = self.clock()

    def _prune(self) -> None:
        """Forget tables closed a while ago (their last messages are long drawn): memory stays bounded."""
        horizon = self.clock() - CLOSED_KEPT
        for table_id in [t for t, live in self.live.items() if live.closed_at and live.closed_at < horizon]:
            del self.live[table_id]

    async def seat_name(self, user_id: int | None, seat: int) -> str:
        """How a seat is called on the table: its player's name, or a numbered bot."""
        if user_id is None:
            return f"🤖 {seat + 1}"
        user = await self.storage.users.get(user_id)
        return user.display_name if user else str(user_id)

    async def restore(self) -> list[tuple[Table, str]]:
        """Bring every table back after a restart: lobbies, games in play, and finished games whose result
        was not delivered before the process stopped. A game that cannot be loaded is marked broken and its
        group and players are told; returns those tables with the reason."""
        broken: list[tuple[Table, str]] = []
        for item in await self.storage.live_tables():
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

    def view_of(self, table_id: int, seat: int | None) -> View | None:
        live = self.live.get(table_id)
        if live is None or live.game is None:
            return None
        return view(live.game, seat)


_PLAYER_COUNT = {"too_few_players": Refusal.TOO_FEW, "teams_need_4_or_6": Refusal.TEAM_SIZE}

_QUIET = frozenset({EventKind.BOUT, EventKind.DREW, EventKind.GAME_OVER})
