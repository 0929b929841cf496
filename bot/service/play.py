"""Play at one table: moves, "I'm back", a seat handed to a bot, timeouts, the timer's checkpoints and bot
turns. Each is decided and committed under the table's lock before anybody sees it."""

from __future__ import annotations

import logging
from contextlib import nullcontext

from bot import metrics
from bot.service.contracts import (
    ABANDONED,
    CLOSED,
    Outcome,
    Refusal,
    checkpoints,
)
from bot.service.ending import handed_after, record_result
from bot.service.state import TableState
from engine.actions import CONCEDE, RECLAIM, TAKE_OVER, TIMEOUT, Action, act, action_str
from engine.events import QUIET, IllegalMove
from engine.moves import TAKE, Move
from engine.snapshot import dumps
from engine.views import view
from storage import DATABASE_ERRORS, StaleGame
from storage.records import TableStatus

log = logging.getLogger(__name__)


class Playing(TableState):
    def seat_in_game(self, user_id: int) -> int | Refusal:
        """The seat a user plays in this table's game, or why there is none."""
        if self.game is None:
            return Refusal.NO_TABLE
        if self.row.status in CLOSED:
            return Refusal.CANCELLED
        seat = self.seat_of(user_id)
        return Refusal.NOT_YOURS if seat is None else seat

    async def press(self, user_id: int, version: int, move: Move) -> Outcome:
        """A player's move button, drawn at state ``version``. Two players act within a second all the time,
        so a press counts whenever its move is still legal for that seat now, whatever changed since; a move
        that no longer is gets the engine's reason, and a keyboard that was out of date is drawn anew."""
        async with self.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Outcome.refused(seat)
            if self.game is not None and seat in self.game.conceded:  # a bot plays the seat to the end
                return Outcome.refused(Refusal.CONCEDED)
            return await self._act(seat, move)

    async def reclaim(self, user_id: int) -> Outcome:
        """ "I'm back": the player takes their seat back from the bot."""
        async with self.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Outcome.refused(seat)
            if user_id in self.kicked:  # the host or an admin decided: a bot plays it to the end
                return Outcome.refused(Refusal.KICKED)
            return await self._act(seat, RECLAIM)

    async def concede(self, user_id: int, step: str) -> Outcome:
        """ "🏳 Concede" asks first ("ask"; "no" goes back to the hand); "yes" concedes: the player takes the
        last place not yet taken and a bot plays their cards to the end (docs/rules.md §9)."""
        async with self.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Outcome.refused(seat)
            refused = self.game.concede_refused(seat) if self.game is not None and step != "no" else None
            if refused is not None:  # an old button of a player who is out, say: not even asked ("No" always
                # goes back to the hand)
                return Outcome.refused(Refusal.ILLEGAL, refused.value)
            if step == "ask" and self.game is not None and self.game.is_auto(seat):
                return Outcome.refused(Refusal.STALE)  # a bot plays the seat: its hand offers "I'm back"
            screen = self.screen(seat)
            if step != "yes":
                screen.conceding = step == "ask"
                return Outcome(True, table_id=self.id)
            screen.conceding = False
            return await self._act(seat, CONCEDE)

    async def show_cards(self, user_id: int) -> Outcome:
        """ "🃏 My cards" under the table: the player's hand comes afresh in the group, seen only by them (the
        one before it deleted), so that a hand lost while they were offline is one press away."""
        async with self.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Outcome.refused(Refusal.NOT_SEATED if seat is Refusal.NOT_YOURS else seat)
            if self.game is None or self.game.over:
                return Outcome.refused(Refusal.STALE)
            self.screen(seat).asked += 1
        return Outcome(True, table_id=self.id)

    async def pick(self, user_id: int, version: int | None, card: int | None) -> Outcome:
        """The first step of a cover with a card that could beat several attack cards (the keyboard then
        asks which), or, with ``card`` None, back to the hand. Only the player's screen changes."""
        async with self.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Outcome.refused(seat)
            if card is not None and (self.game is None or version != self.game.version):
                return Outcome.refused(Refusal.STALE)
            self.screen(seat).selected = card
        return Outcome(True, table_id=self.id)

    async def timeout(self, version: int) -> None:
        """The deadline job fired; nothing happens if the table moved on meanwhile."""
        async with self.command():
            if self.game is not None and self.game.version == version and not self.game.over:
                await self._act(-1, TIMEOUT, version=version)

    async def tick(self, version: int) -> None:
        """A checkpoint of the move timer: the time left the screens show changes (at the warning, a person
        whose timeout would count as a missed move is told, with sound: bot.sounds)."""
        async with self.command():
            game = self.game
            if game is None or game.version != version or game.over or self.deadline is None:
                return
            self._next_tick()

    async def bot_turn(self, version: int) -> None:
        """Bot-played seats on the clock move, one at a time, from their own view only. The bot thinks outside
        the lock; its move counts only if the table has not moved on meanwhile."""
        async with self.command():
            game = self.game
            if game is None or game.version != version or game.over:
                return
            if game.decided():  # nobody is asked to press Take when it changes nothing (docs/rules.md §7)
                await self._act(game.defender, TAKE, version=version)
                return
            seat = next((s for s in game.to_act() if self.is_bot_seat(s)), None)
            if seat is None:
                return
            seen, level = view(game, seat), self.bot_level(seat)
            who = (self.id, self.game_row.id if self.game_row is not None else 0, seat)
        move = await self.env.thinker.choose(seen, level, self.id, who)
        async with self.command():
            await self._act(seat, move, version=version)

    def _next_tick(self) -> None:
        """Schedule the next checkpoint of the table's move timer (none once it has passed them all)."""
        game = self.game
        assert game is not None
        at = None
        if self.deadline is not None and not game.over:
            left = self.deadline - self.env.clock()
            later = [c for c in checkpoints(self.row.options.move_timer) if c < left - 0.5]
            at = self.deadline - later[0] if later else None
        self.env.scheduler.tick(self.id, game.version, at)

    async def _act(self, seat: int, action: Action, *, version: int | None = None) -> Outcome:
        """Apply one action with the lock held: the engine decides, the database records it (with the result,
        when it ends the game), then the table in memory takes the new state."""
        game = self.game
        if game is None or game.over:
            return Outcome.refused(Refusal.NO_TABLE)
        if self.row.status is not TableStatus.PLAYING:
            return Outcome.refused(Refusal.CANCELLED)
        if version is not None and version != game.version:
            return Outcome.refused(Refusal.STALE)
        candidate = game.copy()
        try:
            applied = act(candidate, seat, action)
        except IllegalMove as exc:
            return Outcome.refused(Refusal.ILLEGAL, exc.reason.value)
        if not applied.events and action in (TAKE_OVER, RECLAIM):
            return Outcome(True, table_id=self.id)
        assert self.game_row is not None
        deadline = self._deadline(candidate)
        handed = handed_after(self.handed, self.row.seats, self.kicked, applied.events, action)
        storage = self.env.storage
        rated = self.rated and not self.nobody_plays(candidate)  # docs/rules.md §10
        # A move that ends the game is written with its result in one transaction, and so is one after which
        # nobody plays any more with the game unrated; any other shares a group commit with the moves of other
        # tables (storage.db.Database.write).
        alone = candidate.result is None and rated == self.rated
        together = nullcontext() if alone else storage.db.transaction()
        try:
            async with together:
                await storage.games.record(
                    self.game_row.id,
                    candidate.version,  # one action, one version: the log's sequence number
                    seat,
                    action_str(action),
                    dumps(candidate),
                    candidate.version,
                    deadline=deadline,
                )
                if rated != self.rated:
                    await storage.games.set_unrated(self.game_row.id)
                if candidate.result is not None:
                    found = await record_result(self.env, self.row, self.game_row, candidate, rated, handed)
                    self.game_row, self.ratings = found
        except StaleGame:  # the database says the table left play (another process cancelled it)
            await self._reload()
            return Outcome.refused(Refusal.CANCELLED)
        except DATABASE_ERRORS as exc:
            # Nothing was written and the game in memory is as it was: say so, and keep the table going.
            self._retry_later(action_str(action), exc)
            return Outcome.refused(Refusal.SAVE_FAILED)
        self.failures = 0
        self.game, self.deadline, self.rated, self.handed = candidate, deadline, rated, handed
        self.recent.extend(e for e in applied.events if e.kind not in QUIET)
        if candidate.result is not None:
            metrics.GAMES.labels("finished").inc()
            await self._reload()
        elif self.nobody_plays(candidate) and self._stalled(candidate):
            log.info("table %s: only bots play and the game is getting nowhere: stopped", self.id)
            await self._close(TableStatus.CANCELLED, ABANDONED)
            return Outcome(True, table_id=self.id)
        self._after_change()
        return Outcome(True, table_id=self.id)

    def _after_change(self) -> None:
        """The game moved (or came back after a restart): timers and bot turns follow it."""
        game = self.game
        assert game is not None
        env = self.env
        for seat, screen in self.screens.items():
            screen.selected = None  # a pick made on the state before is no longer what the hand shows
            # ... nor a concession asked about once a bot took the seat (its hand offers "I'm back")
            screen.conceding = screen.conceding and not game.is_auto(seat)
        self._next_tick()
        if game.over:
            env.scheduler.deadline(self.id, game.version, None)
            self.screens.clear()  # no hand asks anything of its player again
        else:
            env.scheduler.deadline(self.id, game.version, self.deadline)
            thinking = [env.thinker.budget(self.bot_level(s)) for s in game.to_act() if self.is_bot_seat(s)]
            # Moves are paced for the people at the table; a game nobody plays is played out at once.
            pause = 0.0 if self.nobody_plays(game) else env.bot_delay
            if game.decided():
                env.scheduler.bot_turn(self.id, game.version, pause)  # the last card is seen first
            elif thinking:
                # The pause before a bot's move includes its thinking time, so play keeps one pace.
                env.scheduler.bot_turn(self.id, game.version, max(0.0, pause - max(thinking)))
