"""A table's move timer, one part of a table: the deadline of the state it waits on, the checkpoints at which
the screens' time left changes (and the warning), and the pause before a failed write is tried again. The
timers themselves are the scheduler's (bot.timers); this part decides when they fire."""

from __future__ import annotations

import logging

from bot.service.contracts import RETRY_FIRST, RETRY_MAX, Env, checkpoints, seconds_shown
from engine import Game

log = logging.getLogger(__name__)


class Clock:
    def __init__(self, env: Env, table_id: int, deadline: float | None = None) -> None:
        self.env = env
        self.table_id = table_id
        self.deadline = deadline  # when the state in play times out (None: nothing runs)
        self.failures = 0  # database writes that failed in a row (the retry backs off)

    def after(self, game: Game, timer: int) -> float | None:
        """The deadline of ``game``'s state, reached now: ``timer`` seconds a move, none once it is over."""
        return None if game.over else self.env.clock() + timer

    def seconds(self, game: Game | None, timer: int) -> int | None:
        """The time left as the screens show it, while a game is on the clock."""
        if self.deadline is None or game is None or game.over:
            return None
        return seconds_shown(self.deadline - self.env.clock(), timer)

    def follow(self, game: Game, timer: int) -> None:
        """The game moved (or came back after a restart): the deadline and the next checkpoint follow it."""
        self.next_tick(game, timer)
        self.env.scheduler.deadline(self.table_id, game.version, None if game.over else self.deadline)

    def next_tick(self, game: Game, timer: int) -> None:
        """Schedule the next checkpoint of the move timer (none once it has passed them all)."""
        at = None
        if self.deadline is not None and not game.over:
            left = self.deadline - self.env.clock()
            later = [c for c in checkpoints(timer) if c < left - 0.5]
            at = self.deadline - later[0] if later else None
        self.env.scheduler.tick(self.table_id, game.version, at)

    def stop(self) -> None:
        self.env.scheduler.deadline(self.table_id, -1, None)
        self.env.scheduler.tick(self.table_id, -1, None)

    def retry_later(self, game: Game, action: str, exc: BaseException, *, bot_to_move: bool) -> None:
        """A write failed: the timer (if it has run out) and a bot's turn come again after a pause that grows
        with every failure in a row, so a table never stalls until a restart."""
        self.failures += 1
        delay = min(RETRY_MAX, RETRY_FIRST * 2 ** (self.failures - 1))
        log.warning(
            "table %s: saving %r failed (%s); trying again in %.0f s", self.table_id, action, exc, delay
        )
        now, version = self.env.clock(), game.version
        if self.deadline is not None and self.deadline < now + delay:
            self.env.scheduler.deadline(self.table_id, version, now + delay)
        if bot_to_move:
            self.env.scheduler.bot_turn(self.table_id, version, delay)
