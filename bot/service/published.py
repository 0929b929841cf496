"""What a table publishes: after every command that changed it, one frozen record of the table as that command
left it, numbered in order. Every screen (the group's table message, each hand, the result, later a web
table) is drawn from the last record and nothing else; whatever watches the tables learns of a change only
from it (bot.service.contracts.Watcher), and compares it with the record before to know which screens changed
(bot.changes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine import Event, Game, Result
from storage.records import ArenaRow, GameRow, TableRow, TableStatus


@dataclass(frozen=True, slots=True)
class SeatScreen:
    """What a player's own screen shows beside the game: the state of the screen, not of the game."""

    selected: int | None = None  # a card picked to cover with, while the keyboard asks which attack card
    conceding: bool = False  # "🏳 Concede" was pressed: the keyboard asks to confirm
    asked: int = 0  # how many times its player pressed "🃏 My cards": each is answered by the hand sent anew


NO_SCREEN = SeatScreen()


@dataclass
class Screen:
    """The same, as the table's commands change it (published as a SeatScreen): gone with the game."""

    selected: int | None = None
    conceding: bool = False
    asked: int = 0


class Facts:
    """What a table says of itself, from its stored record and its game: the live table and every record it
    publishes say it alike."""

    __slots__ = ()
    row: TableRow
    game: Game | None

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def result(self) -> Result | None:
        return self.game.result if self.game is not None else None

    @property
    def open(self) -> bool:
        """Still a lobby or a game in play."""
        return self.row.status in (TableStatus.LOBBY, TableStatus.PLAYING)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.row.seats if s.user_id == user_id), None)

    def move_timer(self, game: Game | None = None) -> int:
        """Seconds a move of ``game`` (by default the table's) may take: the table's timer, halved while an
        arena's berserk player is on the clock (docs/groups.md)."""
        timer = self.row.options.move_timer
        game = game or self.game
        seats = self.row.seats
        if game is not None and any(seats[s].berserk for s in game.to_act() if s < len(seats)):
            return max(5, timer // 2)
        return timer

    def is_bot_seat(self, seat: int, game: Game | None = None) -> bool:
        """A bot plays this seat (of ``game``, by default the table's): an added bot, or one holding a
        player's seat."""
        game = game or self.game
        return self.row.seats[seat].user_id is None or (game is not None and game.is_auto(seat))


@dataclass(frozen=True, slots=True)
class Published(Facts):
    """A table as a command left it. ``game`` is the game object itself: a table never changes a game in
    place (each move is applied to a copy that replaces it), so the record shares it safely."""

    version: int  # the table's own count of records: a screen never goes back to a lower one
    at: float = field(compare=False)  # when it was published (the service's clock)
    row: TableRow
    names: tuple[str, ...]  # each seat's player; "" for an added bot
    creator_name: str
    chat_title: str
    game: Game | None
    game_row: GameRow | None
    seconds: int | None  # the time left as the screens show it (bot.service.contracts.seconds_shown)
    deadline: float | None  # when the move in play times out (the service's clock), for a page that counts
    rated: bool
    ratings: Mapping[int, tuple[float, float]]  # seat -> (before, after) once the game is rated
    recent: tuple[Event, ...]  # the last actions, for the table message
    editing_options: bool
    pending: frozenset[int]  # rematch: players who have not confirmed yet
    rematch_open: bool
    screens: Mapping[int, SeatScreen]
    noted: int  # how many times messages of the group were noted for the table (deleted when it ends)

    def screen(self, seat: int) -> SeatScreen:
        return self.screens.get(seat, NO_SCREEN)

    def to_act(self) -> tuple[int, ...]:
        """The seats the table waits for now (none once it is over or closed)."""
        game = self.game
        if game is None or game.over or self.row.status is not TableStatus.PLAYING:
            return ()
        return tuple(game.to_act())


@dataclass(frozen=True, slots=True)
class ArenaRecord:
    """An arena (bot.service.arenas) as its last command left it."""

    version: int
    row: ArenaRow
    now: float  # when it was published (the service's clock)
