"""Play: moves, "I'm back", timeouts and bot turns, each committed before anybody sees it."""

from __future__ import annotations

import logging
from contextlib import nullcontext

from bot.service.live import (
    CLOSED,
    RETRY_FIRST,
    RETRY_MAX,
    Live,
    Outcome,
    Refusal,
    checkpoints,
    warning_before,
)
from bot.service.registry import Registry
from engine import Game
from engine.events import QUIET, IllegalMove
from engine.log import RECLAIM, TAKE_OVER, TIMEOUT, Action, act, action_str
from engine.moves import TAKE, Move
from engine.snapshot import dumps
from engine.views import view
from storage import DATABASE_ERRORS, StaleGame
from storage.records import TableStatus
from storage.results import result_from_engine

log = logging.getLogger(__name__)


class PlayService(Registry):
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
        """A player's move button, drawn at state ``version``. Two players act within a second all the time,
        so a press counts whenever its move is still legal for that seat now, whatever changed since; a move
        that no longer is gets the engine's reason, and a keyboard that was out of date is drawn anew."""
        found = self.seat_in_game(table_id, user_id)
        if isinstance(found, Refusal):
            return Outcome.refused(found)
        live, seat = found
        outcome = await self._act(live, seat, move)
        if outcome.refusal is Refusal.ILLEGAL and live.game is not None and live.game.version != version:
            self.redraw.hands(table_id)  # only the hands that show something else are sent again
        return outcome

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

    async def tick(self, table_id: int, version: int) -> None:
        """A checkpoint of the move timer: the time left is redrawn, and at the warning a person whose
        timeout would count as a missed move is told, with sound."""
        live = self.live.get(table_id)
        game = live.game if live is not None else None
        if live is None or game is None or game.version != version or game.over or live.deadline is None:
            return
        left = live.deadline - self.clock()
        if left <= warning_before(live.table.options.move_timer) + 0.5:
            for seat in game.to_act():
                if game.would_miss(seat) and not live.is_bot_seat(seat):
                    self.redraw.warn(table_id, seat)
        self.redraw.clock(table_id)
        self._next_tick(live)

    def _next_tick(self, live: Live) -> None:
        """Schedule the next checkpoint of the table's move timer (none once it has passed them all)."""
        game = live.game
        assert game is not None
        at = None
        if live.deadline is not None and not game.over:
            left = live.deadline - self.clock()
            later = [c for c in checkpoints(live.table.options.move_timer) if c < left - 0.5]
            at = live.deadline - later[0] if later else None
        self.scheduler.tick(live.table.id, game.version, at)

    async def bot_turn(self, table_id: int, version: int) -> None:
        """Bot-played seats on the clock move, one at a time, from their own view only."""
        live = self.live.get(table_id)
        if live is None or live.game is None or live.game.version != version or live.game.over:
            return
        if live.game.decided():  # nobody is asked to press Take when it changes nothing (docs/rules.md §7)
            await self._act(live, live.game.defender, TAKE, version=version)
            return
        for seat in live.game.to_act():
            if live.is_bot_seat(seat):
                game_id = live.game_row.id if live.game_row is not None else 0
                move = await self.thinker.choose(
                    view(live.game, seat), live.bot_level(seat), table_id, (table_id, game_id, seat)
                )
                # _act refuses the move if the table changed while the bot was thinking.
                await self._act(live, seat, move, version=version)
                return

    async def _act(self, live: Live, seat: int, action: Action, *, version: int | None = None) -> Outcome:
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
            # A move that ends the game is written with its result in one transaction; any other shares
            # a group commit with the moves of other tables (storage.db.Database.write).
            together = self.storage.db.transaction() if candidate.result is not None else nullcontext()
            try:
                async with together:
                    await self.storage.games.record(
                        live.game_row.id,
                        live.seq + 1,
                        seat,
                        action_str(action),
                        dumps(candidate),
                        candidate.version,
                        deadline=deadline,
                    )
                    if candidate.result is not None:
                        await self._finish(live, candidate)
            except StaleGame:  # the database says the table left play (another process cancelled it)
                await self._reload(live)
                return Outcome.refused(Refusal.CANCELLED)
            except DATABASE_ERRORS as exc:
                # Nothing was written and the game in memory is as it was: say so, and keep the table going.
                self._retry_later(live, action_str(action), exc)
                return Outcome.refused(Refusal.SAVE_FAILED)
            live.failures = 0
            live.game, live.seq, live.deadline = candidate, live.seq + 1, deadline
            live.recent.extend(e for e in applied.events if e.kind not in QUIET)
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
        self._next_tick(live)
        if game.over:
            self.scheduler.deadline(table_id, game.version, None)
            self.redraw.result(table_id)
        else:
            self.scheduler.deadline(table_id, game.version, live.deadline)
            thinking = [self.thinker.budget(live.bot_level(s)) for s in game.to_act() if live.is_bot_seat(s)]
            if game.decided():
                self.scheduler.bot_turn(table_id, game.version, self.bot_delay)  # the last card is seen first
            elif thinking:
                # The pause before a bot's move includes its thinking time, so play keeps one pace.
                self.scheduler.bot_turn(table_id, game.version, max(0.0, self.bot_delay - max(thinking)))
        self.redraw.table(table_id)
        self.redraw.hands(table_id)
