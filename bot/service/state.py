"""One live table in memory: what it holds, what it says of itself, and the steps every command shares.

Nothing here takes the table's lock: the commands (``bot.service.play``, ``bot.service.table``) hold it
around every read that decides a write, and call these steps inside it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass, field

from bot import metrics
from bot.service.contracts import ABANDONED, RECENT, RETRY_FIRST, RETRY_MAX, STALL_BOUTS, Env
from engine import Event, Game, Result
from engine.options import BotLevel
from storage import Storage
from storage.records import Ended, GameRow, TableRow, TableStatus

log = logging.getLogger(__name__)


async def store_message_id(
    storage: Storage, kind: str, table_id: int, seat: int, message_id: int, game_id: int | None
) -> bool:
    """Write the id of a table, hand (private or in-group) or result message sent anew (a restart edits it);
    False: nothing to write (a result of no game)."""
    if kind == "table":
        await storage.tables.set_message(table_id, message_id)
    elif kind == "hand":
        await storage.tables.set_hand_message(table_id, seat, message_id)
    elif kind == "cards":
        await storage.tables.set_group_hand(table_id, seat, message_id or None)  # 0: gone, none to edit
    elif kind == "result" and game_id is not None:
        await storage.games.set_result_message(game_id, message_id)
    else:
        return False
    return True


@dataclass
class Ring:
    """What one hand message showed last, and whether it is to be sent anew (which sounds)."""

    # "clock" (the table waits for them), "auto" (a bot plays it) or "idle".
    shown: str | None = None
    ringing: int | None = None  # the message to replace with a new one
    asked: bool = False  # its player asked for it afresh ("🃏 My cards"): sent anew whatever it shows


@dataclass
class Screen:
    """One player's hand as the table last drew it, in private (``private``) and in the group (``group``):
    state of the screen, not of the game, and gone with the table."""

    selected: int | None = None  # a card picked to cover with, while the keyboard asks which attack card
    conceding: bool = False  # "🏳 Concede" was pressed: the keyboard asks to confirm
    private: Ring = field(default_factory=Ring)
    group: Ring = field(default_factory=Ring)


class TableState:
    """A table's stored record, and while it is played its game; the lobby's and the rematch's bookkeeping;
    what each player's screen shows. ``lock`` serialises every command on it."""

    def __init__(self, env: Env, row: TableRow, creator_name: str, chat_title: str) -> None:
        self.env = env
        self.row = row
        # Each seat's player; "" for an added bot (the renderer names it in each reader's language).
        self.names: list[str] = []
        self.creator_name = creator_name
        self.chat_title = chat_title
        self.game: Game | None = None
        self.game_row: GameRow | None = None
        self.deadline: float | None = None
        self.rated = True
        self.ratings: dict[int, tuple[float, float]] = {}  # seat -> (before, after) once the game is rated
        self.recent: deque[Event] = deque(maxlen=RECENT)
        self.editing_options = False
        self.closed_at: float | None = None  # when it finished or was cancelled
        self.pending: set[int] = set()  # rematch: players who have not confirmed yet
        self.kicked: set[int] = set()  # players whose seat the host or an admin handed to a bot (/kick)
        self.handed: dict[int, Ended] = {}  # the seats a bot plays in the game, and why (not kept on restart)
        self.rematch_open = True  # a finished game's result still offers a rematch
        self.loser: tuple[int | None, int] | None = None  # rematch: the last durak (user id or None, seat)
        self.failures = 0  # database writes that failed in a row (the retry backs off)
        self.screens: dict[int, Screen] = {}  # seat -> its player's hand message
        self.called: frozenset[int] = frozenset()  # players the table message calls by name (bot.drafts)
        # A game nobody plays: the discard and the seats out as last seen, and the bout they were seen at.
        self._progress: tuple[int, int, int] = (-1, -1, 0)
        self.lock = asyncio.Lock()

    # ------------------------------------------------------------------ what the table says of itself

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def result(self) -> Result | None:
        return self.game.result if self.game is not None else None

    @property
    def live(self) -> bool:
        """Still a lobby or a game in play."""
        return self.row.status in (TableStatus.LOBBY, TableStatus.PLAYING)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.row.seats if s.user_id == user_id), None)

    def is_bot_seat(self, seat: int, game: Game | None = None) -> bool:
        """A bot plays this seat (of ``game``, by default the table's): an added bot, or one holding a
        player's seat."""
        game = game or self.game
        return self.row.seats[seat].user_id is None or (game is not None and game.is_auto(seat))

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

    # ------------------------------------------------------------------ steps the commands share

    async def _reload(self) -> None:
        """Read the stored record again after a write, and the seated players' names."""
        row = await self.env.storage.tables.get(self.row.id)
        assert row is not None
        self.row = row
        self.names = await self.env.storage.users.seat_names(row.seats)
        if not self.live and self.closed_at is None:
            self.closed_at = self.env.clock()

    async def _close(self, status: TableStatus, reason: str | None = None) -> None:
        """End the table without a result: no move is taken from now on, its timers stop, and every message
        that shows it says so."""
        await self.env.storage.tables.set_status(self.row.id, status, reason)
        if self.game is not None and not self.game.over:  # a game ended without a result
            metrics.GAMES.labels(reason if reason == ABANDONED else status.value).inc()
        await self._reload()
        self._stop_timers()
        self.env.redraw.table_message(self.row.id)
        self.env.redraw.hands(self.row.id)
        self.env.redraw.tidy(self.row.chat_id, self.row.id)

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

    async def message_sent(self, kind: str, seat: int, message_id: int) -> None:
        """A table, hand or result message was sent anew: remember its id (a restart edits it; 0: an in-group
        hand is gone, and there is none to edit). The id is
        written first and taken into the table after, with the lock held only for that: a press never waits
        behind this write, and a command that read the record before it is corrected by it."""
        game_id = self.game_row.id if self.game_row is not None else None
        if not await store_message_id(self.env.storage, kind, self.id, seat, message_id, game_id):
            return
        async with self.lock:
            if kind == "table":
                self.row = self.row.model_copy(update={"message_id": message_id})
            elif kind in ("hand", "cards"):
                field = "hand_message_id" if kind == "hand" else "group_hand_id"
                seats = tuple(
                    s.model_copy(update={field: message_id or None}) if s.seat == seat else s
                    for s in self.row.seats
                )
                self.row = self.row.model_copy(update={"seats": seats})
            elif self.game_row is not None:
                self.game_row = self.game_row.model_copy(update={"result_message_id": message_id})
                self.env.redraw.hands(self.id)  # each player's own end screen links to it

    async def note(self, *message_ids: int) -> None:
        """Messages of the group that led to this table (a command for it, the bot's answer): deleted when it
        ends, where the group keeps its chat tidy; at once if it has ended already."""
        await self.env.storage.tables.note_messages(self.id, self.row.chat_id, message_ids)
        if not self.live:
            self.env.redraw.tidy(self.row.chat_id, self.id)

    def forget_screens(self) -> None:
        """The game is over or the table closed: no hand will sound again."""
        self.screens.clear()

    def ring(
        self, seat: int, message_id: int | None, state: str, *, group: bool = False, sounds: bool = True
    ) -> int | None:
        """A hand is drawn showing ``state`` (in the group if ``group``): the hand message to replace with a new
        one (which sounds), or None to edit it in place. A hand sounds when the table starts waiting for its
        player, when a bot takes the seat, and at the warning before a missed move; one that does not
        ``sounds`` (the in-group hand of a player whose private hand sounds) is only ever edited, unless its
        player asked for it afresh (``Ring.asked``)."""
        ring = self._ring(seat, group)
        before, ring.shown = ring.shown, state
        asked, ring.asked = ring.asked, False
        if message_id is None:
            return None  # the first hand is a new message anyway
        if asked:
            ring.ringing = None
            return message_id
        if sounds and state != before and state in ("clock", "auto"):
            ring.ringing = message_id
        if ring.ringing is None:
            return None
        if ring.ringing != message_id or (state == "idle" and sounds):  # replaced already, or nothing asked
            ring.ringing = None
            return None
        return ring.ringing

    def call(self, users: frozenset[int]) -> bool:
        """The table message calls ``users`` to move now: True if it did not call one of them before, so that
        it is sent anew (a mention sounds in a new message only, never in an edit)."""
        fresh = bool(users - self.called)
        self.called = users
        return fresh

    def fresh(self, seat: int, message_id: int, *, group: bool) -> None:
        """The hand is to be sent anew at its next redraw if it still asks something of its player (the
        warning before a missed move)."""
        self._ring(seat, group).ringing = message_id

    def _ring(self, seat: int, group: bool) -> Ring:
        screen = self.screen(seat)
        return screen.group if group else screen.private
