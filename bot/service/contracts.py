"""What the table service answers, and what it needs from the rest of the bot."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.service.published import ArenaRecord, Published
from bot.thinking import Thinker
from engine import Options
from storage import Storage
from storage.records import TableStatus

RECENT = 4  # action lines kept for the table message
CLOSED_KEPT = 600.0  # seconds a finished or cancelled table stays in memory for its last redraws
REDRAW_KEPT = 120.0  # ... and a result whose Rematch button was just taken away, for that edit
RETRY_FIRST, RETRY_MAX = 1.0, 30.0  # seconds before a table whose write failed tries its timer again
CLOSED = (TableStatus.CANCELLED, TableStatus.BROKEN)  # ended without a result: no move, no rating
REMATCH_WINDOW = 60.0  # seconds the other players have to confirm a rematch with Join
TICK = 10  # seconds between two redraws of the time left while the table waits
STALL_BOUTS = 40  # bouts a game nobody plays may go with no card discarded and nobody out (docs/rules.md §9)
ABANDONED = "abandoned"  # the reason a game that only bots played was stopped


def warning_before(move_timer: int) -> int:
    """Seconds before a timeout that would count as a missed move when the player is warned (with sound)."""
    return 10 if move_timer >= 30 else 5


def checkpoints(move_timer: int) -> list[int]:
    """The seconds left at which the table waiting for somebody is redrawn (the time left shown stays near
    the truth at a few group edits a slow move), largest first; the warning is one of them."""
    marks = {warning_before(move_timer), *range(TICK, move_timer, TICK)}
    return sorted(marks, reverse=True)


def seconds_shown(left: float, move_timer: int) -> int:
    """The time left as a message shows it: the checkpoint it has reached (the whole timer before the first).
    A message cannot count down, and one drawn anew for another reason must not be edited for the seconds
    alone: every such edit is one of a group's 20 a minute, which the turns need (bot.outbox)."""
    return min((c for c in (move_timer, *checkpoints(move_timer)) if c >= left - 0.5), default=0)


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
    ONE_TABLE = "alert.one_table"  # a forum that keeps one table in the whole group has one in another topic
    WAITING = "alert.waiting"
    CANCELLED = "alert.cancelled"
    SAVE_FAILED = "alert.save_failed"
    OTHER_CHAT = "alert.other_chat"
    REMATCH_TAKEN = "alert.rematch_taken"
    THEY_ARE_NOT_SEATED = "alert.they_are_not_seated"
    KICKED = "alert.kicked"
    CONCEDED = "alert.conceded"  # a move pressed by a player who conceded: a bot plays their seat
    NO_GROUP_CARDS = "alert.no_group_cards"  # the Bot API server cannot show a hand in the group
    NOT_NOW = (
        "alert.not_now"  # a card of the hand with no move now (a disabled button, pressed by an old client)
    )
    ARENA_EXISTS = "alert.arena_exists"
    ARENA_OVER = "alert.arena_over"
    NOT_IN_ARENA = "alert.not_in_arena"
    ILLEGAL = "illegal"  # the engine's reason goes with it


@dataclass(frozen=True)
class Verdict:
    """What a command did: done, or refused and why. ``options`` is what the table's options became (an option
    press is answered with the value it set, not with whatever a later press set)."""

    ok: bool
    refusal: Refusal | None = None
    reason: str | None = None  # the engine's Reason code for an illegal move
    table_id: int | None = None
    options: Options | None = None

    @classmethod
    def refused(cls, refusal: Refusal, reason: str | None = None, table_id: int | None = None) -> Verdict:
        return cls(False, refusal, reason, table_id)


class Scheduler(Protocol):
    """What the service needs from the job queue (bot.timers implements it over PTB's JobQueue)."""

    def deadline(self, table_id: int, version: int, at: float | None) -> None: ...

    def bot_turn(self, table_id: int, version: int, delay: float) -> None: ...

    def rematch_expiry(self, table_id: int, at: float) -> None: ...

    def tick(self, table_id: int, version: int, at: float | None) -> None: ...

    def arena_end(self, arena_id: int, at: float) -> None: ...


class Watcher(Protocol):
    """What watches the tables (bot.presenter, bot.web.hub): it learns of a change only from what a table publishes."""

    def published(self, record: Published) -> None:
        """A command changed the table: ``record`` is the table as it left it."""
        ...

    def forgotten(self, table_id: int) -> None:
        """The table left memory: none of its screens changes again."""
        ...

    def tidy(self, chat_id: int, table_id: int) -> None:
        """An ended table (one not in memory, after a restart) still has group messages to delete, where the
        group keeps its chat tidy."""
        ...


class ArenaWatcher(Protocol):
    """What watches the arenas (bot.presenter): each change, as the arena's new record."""

    def arena(self, record: ArenaRecord) -> None: ...


class Unwatched:
    """No watcher yet (until the bot's parts are wired): a change goes unseen."""

    def arena(self, record: ArenaRecord) -> None:
        pass


class Watchers:
    """Several watchers of the same records, each told every change in turn (the chat's presenter, the web
    tables): a new kind of screen is one more watcher, and the tables do not change."""

    def __init__(self, *watchers: Watcher) -> None:
        self.watchers = watchers

    def published(self, record: Published) -> None:
        for watcher in self.watchers:
            watcher.published(record)

    def forgotten(self, table_id: int) -> None:
        for watcher in self.watchers:
            watcher.forgotten(table_id)

    def tidy(self, chat_id: int, table_id: int) -> None:
        for watcher in self.watchers:
            watcher.tidy(chat_id, table_id)


@dataclass
class Env:
    """What every table shares: the database, the timers, what watches the tables, the computer players'
    workers and the clock."""

    storage: Storage
    scheduler: Scheduler
    watcher: Watcher
    thinker: Thinker
    clock: Callable[[], float]
    bot_delay: float  # seconds a bot's move takes on the table, its thinking included
