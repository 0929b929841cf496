"""What a table's parts see of the table they belong to (bot.service.table.Table is the one that has it): its
record and game, the clock and the screens, and the steps they share. The parts take their table through
this, so none of them imports the table that is made of them."""

from __future__ import annotations

from collections import deque
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from bot.service.clock import Clock
from bot.service.contracts import Env
from bot.service.screens import Screens
from engine import Event, Game, Result
from engine.options import BotLevel
from storage.records import Ended, GameRow, TableRow, TableStatus


class Core(Protocol):
    env: Env
    row: TableRow
    names: list[str]
    chat_title: str
    game: Game | None
    game_row: GameRow | None
    rated: bool
    ratings: dict[int, tuple[float, float]]
    recent: deque[Event]
    handed: dict[int, Ended]
    kicked: set[int]  # players whose seat the host or an admin handed to a bot (/kick): no "I'm back"
    clock: Clock
    screens: Screens

    @property
    def id(self) -> int: ...

    @property
    def result(self) -> Result | None: ...

    @property
    def open(self) -> bool: ...

    def seat_of(self, user_id: int) -> int | None: ...

    def is_bot_seat(self, seat: int, game: Game | None = None) -> bool: ...

    def bot_level(self, seat: int) -> BotLevel: ...

    def move_timer(self, game: Game | None = None) -> int: ...

    def nobody_plays(self, game: Game) -> bool: ...

    def command(self) -> AbstractAsyncContextManager[None]: ...

    async def reread(self) -> None: ...

    async def end(self, status: TableStatus, reason: str | None = None) -> None: ...
