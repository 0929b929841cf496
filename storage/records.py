"""Typed records in and out of storage."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

from engine import Options
from storage.seasons import SeasonKind


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


CardsPlace = Literal["private", "group", "both"]
CARDS_PLACES: tuple[CardsPlace, ...] = get_args(CardsPlace)
Opens = Literal["everyone", "admins"]  # who may open a table in a group
OPENS: tuple[Opens, ...] = get_args(Opens)
# How a player's game ended for them: played to the end, or handed to a bot (they left, missed their moves, or
# the host or an admin removed them).
Ended = Literal["played", "left", "timed_out", "kicked"]
TablesPer = Literal["topic", "group"]  # a forum's tables at once: one per topic, or one in the whole group
TABLES_PER: tuple[TablesPer, ...] = get_args(TablesPer)
Tidy = Literal["on", "off"]  # a group's commands for a table deleted when its game ends (where the bot may)
TIDY: tuple[Tidy, ...] = get_args(Tidy)


def is_former(user_id: int | None) -> bool:
    """A seat's player who asked to be forgotten (storage.users.Users.erase): nothing is sent to them, and
    they are named "former player"."""
    return user_id is not None and user_id < 0


class User(_Record):
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    telegram_language: str | None = None
    language: str | None = None
    started: bool = False
    blocked: bool = False
    cards: CardsPlace | None = None  # where they want their hand; None: see ``cards_place``

    @property
    def cards_place(self) -> CardsPlace:
        """Where their hand is shown: as they chose; by default in private if the bot may write to them there,
        else in the group (seen only by them)."""
        if self.cards is not None:
            return self.cards
        return "private" if self.started and not self.blocked else "group"

    @property
    def display_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name


class Chat(_Record):
    id: int
    type: str
    title: str | None = None
    language: str | None = None
    is_forum: bool = False
    default_options: Options | None = None
    opens: Opens = "everyone"  # who may open tables
    tables_per: TablesPer = "topic"  # in a forum: one table per topic, or one in the whole group
    seasons: SeasonKind = "monthly"
    season_told: str | None = None  # the last ended season dealt with (its podium shown if the group played)
    tidy: Tidy = "on"  # the commands that led to a table are deleted when it ends (docs/groups.md)


class TableStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    BROKEN = "broken"


OPEN = (TableStatus.LOBBY, TableStatus.PLAYING)


class Seat(_Record):
    seat: int
    user_id: int | None  # None: a bot seated from the start
    bot_level: str | None = None
    hand_message_id: int | None = None
    group_hand_id: int | None = None  # the in-group hand (an ephemeral message) sent last
    berserk: bool = False  # an arena's player who took half the move timer for a point more

    @property
    def is_bot(self) -> bool:
        return self.user_id is None


class TableRow(_Record):
    id: int
    chat_id: int
    thread_id: int
    creator_id: int
    status: TableStatus
    options: Options
    message_id: int | None
    deadline: float | None
    broken_reason: str | None
    created_at: float
    seats: tuple[Seat, ...] = ()
    join_token: str | None = None  # the deep link's payload: unguessable, shown only in the table's chat
    arena_id: int | None = None  # a table an arena paired (docs/groups.md): the group sees it in the arena
    series_id: int | None = None  # the first table of its rematch chain (None: it is the first)

    @property
    def series(self) -> int:
        """The series it plays in: its rematch chain, named by the chain's first table."""
        return self.series_id or self.id


class GameRow(_Record):
    id: int
    table_id: int
    deal: str  # engine snapshot JSON at the deal
    snapshot: str  # engine snapshot JSON after the last logged action
    version: int
    seq: int
    rated: bool
    started_at: float
    finished_at: float | None
    deck: str | None = None  # the deck order as card codes (fair play), revealed with the result
    salt: str | None = None
    result_message_id: int | None = None  # the result message, once sent (0: sent before this was kept)


class LoggedAction(_Record):
    seq: int
    seat: int
    action: str
    at: float


class Restorable(_Record):
    """Everything the bot needs to bring one table back after a restart: a lobby, a game in play, or a
    finished game whose result was not delivered yet."""

    row: TableRow
    game: GameRow | None  # None for a lobby


class PlayerResult(_Record):
    seat: int
    user_id: int | None
    place: int
    won: bool
    durak: bool
    drawn: bool
    pogony: bool
    rating_before: float | None = None
    rating_after: float | None = None
    ended: Ended = "played"


class GameResult(_Record):
    game_id: int
    chat_id: int
    game_type: str
    draw: bool
    pogony: bool
    durak_seat: int | None
    losing_team: int | None
    rated: bool
    duration: float
    finished_at: float
    players: tuple[PlayerResult, ...]


class Reliability(_Record):
    """How a player's recent games in a chat ended for them (the newest ``games``, at most RECENT_GAMES)."""

    games: int
    left: int
    timed_out: int
    kicked: int

    @property
    def finished(self) -> int:
        return self.games - self.left - self.timed_out - self.kicked

    @property
    def walked_away(self) -> bool:
        """They left or missed their moves in most of these games (two at least): the lobby marks them."""
        gone = self.left + self.timed_out
        return gone >= 2 and 2 * gone > self.games


class PlayerStats(_Record):
    user_id: int
    game_type: str
    games: int
    wins: int
    durak: int
    draws: int
    pogony: int
    average_place: float
    rating: float | None = None  # ordinal on the board asked for
    rank: int | None = None


class Leader(_Record):
    rank: int
    user_id: int
    name: str
    rating: float
    games: int


ArenaState = Literal["in", "paused", "left"]


class ArenaPlayer(_Record):
    user_id: int
    state: ArenaState  # in the arena; paused (a bot stood in for them) until "I'm back"; left for good
    berserk: bool  # goes berserk at their next deal
    free_since: float


class ArenaGame(_Record):
    """One player's game in an arena; ``base`` (2, 1 or 0: bot.arena.rules) once it ended with a result."""

    table_id: int
    user_id: int
    base: int | None
    berserk: bool
    finished_at: float | None


class ArenaRow(_Record):
    id: int
    chat_id: int
    thread_id: int
    creator_id: int
    options: Options
    size: int  # players a table
    started_at: float
    ends_at: float
    finished: bool
    message_id: int | None
    podium_message_id: int | None
    players: tuple[ArenaPlayer, ...] = ()
    games: tuple[ArenaGame, ...] = ()  # by table, then seat
