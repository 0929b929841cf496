"""One live table in memory: what it holds, what it says of itself, and the steps every command shares.

Nothing here takes the table's lock: the commands (``bot.service.play``, ``bot.service.table``) hold it
around every read that decides a write, and call these steps inside it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

from bot import metrics
from bot.kinds import MESSAGES, MessageKind
from bot.service.contracts import ABANDONED, RECENT, RETRY_FIRST, RETRY_MAX, STALL_BOUTS, Env, seconds_shown
from bot.service.published import Facts, Published, Screen, SeatScreen
from engine import Event, Game
from engine.options import BotLevel
from storage import Storage
from storage.records import Ended, GameRow, TableRow, TableStatus

log = logging.getLogger(__name__)


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


class TableState(Facts):
    """A table's stored record, and while it is played its game; the lobby's and the rematch's bookkeeping;
    what each player's screen shows. ``lock`` serialises every command on it."""

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
        self.deadline = deadline
        self.rated = game_row.rated if game_row is not None else True
        self.ratings = ratings or {}  # seat -> (before, after) once the game is rated
        self.recent: deque[Event] = deque(maxlen=RECENT)
        self.editing_options = False
        self.closed_at: float | None = None  # when it finished or was cancelled
        self.pending: set[int] = set()  # rematch: players who have not confirmed yet
        self.kicked: set[int] = set()  # players whose seat the host or an admin handed to a bot (/kick)
        self.handed: dict[int, Ended] = {}  # the seats a bot plays in the game, and why (not kept on restart)
        self.rematch_open = True  # a finished game's result still offers a rematch
        self.loser = loser  # rematch: the last game's durak (user id or None, seat)
        self.failures = 0  # database writes that failed in a row (the retry backs off)
        self.screens: dict[int, Screen] = {}  # seat -> its player's screen, while the game is played
        self.noted = 0  # messages of the group noted for the table, as a count (a change to publish)
        self.published: Published | None = None  # the last record of the table (bot.service.published)
        # A game nobody plays: the discard and the seats out as last seen, and the bout they were seen at.
        self._progress: tuple[int, int, int] = (-1, -1, 0)
        self.lock = asyncio.Lock()

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

    def _stalled(self, game: Game) -> bool:
        """A game nobody plays has gone STALL_BOUTS bouts with no card discarded and nobody out: bots can pass
        the same cards round a table for ever, and nobody is there to see it."""
        discard, out, since = self._progress
        now_out = sum(1 for bout in game.out if bout >= 0)
        if (game.discard, now_out) != (discard, out):
            self._progress = (game.discard, now_out, game.bout)
            return False
        return game.bout - since >= STALL_BOUTS

    def screen(self, seat: int) -> Screen:
        return self.screens.setdefault(seat, Screen())

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
        game = self.game
        seconds = None
        if self.deadline is not None and game is not None and not game.over:
            seconds = seconds_shown(self.deadline - self.env.clock(), self.row.options.move_timer)
        record = Published(
            version=last.version if last is not None else 1,
            at=self.env.clock(),
            row=self.row,
            names=tuple(self.names),
            creator_name=self.creator_name,
            chat_title=self.chat_title,
            game=game,
            game_row=self.game_row,
            seconds=seconds,
            rated=self.rated,
            ratings=dict(self.ratings),
            recent=tuple(self.recent),
            editing_options=self.editing_options,
            pending=frozenset(self.pending),
            rematch_open=self.rematch_open,
            screens={seat: SeatScreen(s.selected, s.conceding, s.asked) for seat, s in self.screens.items()},
            noted=self.noted,
        )
        if record != last:
            self.published = record if last is None else replace(record, version=last.version + 1)
            self.env.watcher.published(self.published)

    # ------------------------------------------------------------------ steps the commands share

    async def _reload(self) -> None:
        """Read the stored record again after a write, and the seated players' names."""
        row = await self.env.storage.tables.get(self.row.id)
        assert row is not None
        self.row = row
        self.names = await self.env.storage.users.seat_names(row.seats)
        if not self.open and self.closed_at is None:
            self.closed_at = self.env.clock()

    async def _close(self, status: TableStatus, reason: str | None = None) -> None:
        """End the table without a result: no move is taken from now on, its timers stop, and every message
        that shows it says so."""
        await self.env.storage.tables.set_status(self.row.id, status, reason)
        if self.game is not None and not self.game.over:  # a game ended without a result
            metrics.GAMES.labels(reason if reason == ABANDONED else status.value).inc()
        await self._reload()
        self._stop_timers()
        self.screens.clear()  # no hand asks anything of its player again

    def _stop_timers(self) -> None:
        self.env.scheduler.deadline(self.row.id, -1, None)
        self.env.scheduler.tick(self.row.id, -1, None)

    def _retry_later(self, action: str, exc: BaseException) -> None:
        """A write failed: the table's timer (if it has run out) and a bot's turn come again after a pause
        that grows with every failure in a row, so a table never stalls until a restart."""
        assert self.game is not None
        self.failures += 1
        delay = min(RETRY_MAX, RETRY_FIRST * 2 ** (self.failures - 1))
        log.warning("table %s: saving %r failed (%s); trying again in %.0f s", self.id, action, exc, delay)
        now, version = self.env.clock(), self.game.version
        if self.deadline is not None and self.deadline < now + delay:
            self.env.scheduler.deadline(self.id, version, now + delay)
        if any(self.is_bot_seat(s) for s in self.game.to_act()):
            self.env.scheduler.bot_turn(self.id, version, delay)

    def _deadline(self, game: Game) -> float | None:
        return None if game.over else self.env.clock() + self.row.options.move_timer

    # ------------------------------------------------------------------ messages

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
