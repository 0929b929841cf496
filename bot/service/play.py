"""Play at one table, one part of it: moves, "I'm back", a concession, a seat handed to a bot, timeouts, the
timer's checkpoints and bot turns. Each is decided and committed under the table's lock before anybody sees
it."""

from __future__ import annotations

import logging
from contextlib import nullcontext

from bot import metrics
from bot.service.contracts import ABANDONED, CLOSED, STALL_BOUTS, Refusal, Verdict
from bot.service.core import Core
from bot.service.ending import handed_after, record_result
from engine import Game
from engine.actions import CONCEDE, RECLAIM, TAKE_OVER, TIMEOUT, Action, act, action_str
from engine.events import QUIET, IllegalMove
from engine.moves import TAKE, Kind, Move, cards, kind
from engine.snapshot import dumps
from engine.views import view
from storage import DATABASE_ERRORS, StaleGame
from storage.records import TableStatus

log = logging.getLogger(__name__)


class Play:
    def __init__(self, table: Core) -> None:
        self.table = table
        # A game nobody plays: the discard and the seats out as last seen, and the bout they were seen at.
        self._progress: tuple[int, int, int] = (-1, -1, 0)

    def seat_in_game(self, user_id: int) -> int | Refusal:
        """The seat a user plays in this table's game, or why there is none."""
        table = self.table
        if table.game is None:
            return Refusal.NO_TABLE
        if table.row.status in CLOSED:
            return Refusal.CANCELLED
        seat = table.seat_of(user_id)
        return Refusal.NOT_YOURS if seat is None else seat

    async def press(self, user_id: int, version: int, move: Move) -> Verdict:
        """A player's move button, drawn at state ``version``. Two players act within a second all the time,
        so a press counts whenever its move is still legal for that seat now, whatever changed since; a move
        that no longer is gets the engine's reason, and a keyboard that was out of date is drawn anew."""
        async with self.table.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Verdict.refused(seat)
            game = self.table.game
            if game is not None and seat in game.conceded:  # a bot plays the seat to the end
                return Verdict.refused(Refusal.CONCEDED)
            return await self.act(seat, move)

    async def reclaim(self, user_id: int) -> Verdict:
        """ "I'm back": the player takes their seat back from the bot."""
        async with self.table.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Verdict.refused(seat)
            if user_id in self.table.kicked:  # the host or an admin decided: a bot plays it to the end
                return Verdict.refused(Refusal.KICKED)
            return await self.act(seat, RECLAIM)

    async def concede(self, user_id: int, step: str) -> Verdict:
        """ "🏳 Concede" asks first ("ask"; "no" goes back to the hand); "yes" concedes: the player takes the
        last place not yet taken and a bot plays their cards to the end (docs/rules.md §9)."""
        table = self.table
        async with table.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Verdict.refused(seat)
            game = table.game
            refused = game.concede_refused(seat) if game is not None and step != "no" else None
            if refused is not None:  # an old button of a player who is out, say: not even asked ("No" always
                # goes back to the hand)
                return Verdict.refused(Refusal.ILLEGAL, refused.value)
            if step == "ask" and game is not None and game.is_auto(seat):
                return Verdict.refused(Refusal.STALE)  # a bot plays the seat: its hand offers "I'm back"
            screen = table.screens[seat]
            if step != "yes":
                screen.conceding = step == "ask"
                return Verdict(True, table_id=table.id)
            screen.conceding = False
            return await self.act(seat, CONCEDE)

    async def show_cards(self, user_id: int) -> Verdict:
        """ "🃏 My cards" under the table: the player's hand comes afresh in the group, seen only by them (the
        one before it deleted), so that a hand lost while they were offline is one press away."""
        table = self.table
        async with table.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Verdict.refused(Refusal.NOT_SEATED if seat is Refusal.NOT_YOURS else seat)
            if table.game is None or table.game.over:
                return Verdict.refused(Refusal.STALE)
            table.screens[seat].asked += 1
        return Verdict(True, table_id=table.id)

    async def pick(self, user_id: int, version: int | None, card: int | None) -> Verdict:
        """The first step of a cover with a card that could beat several attack cards (the keyboard then
        asks which), or, with ``card`` None, back to the hand. Only the player's screen changes."""
        table = self.table
        async with table.command():
            seat = self.seat_in_game(user_id)
            if isinstance(seat, Refusal):
                return Verdict.refused(seat)
            game = table.game
            if card is not None and (game is None or version != game.version):
                return Verdict.refused(Refusal.STALE)
            moves = view(game, seat).moves if card is not None and game is not None else ()
            if card is not None and card not in [cards(m)[1] for m in moves if kind(m) == Kind.COVER]:
                # a disabled card, pressed on an old client: nothing changes
                return Verdict.refused(Refusal.NOT_NOW)
            table.screens[seat].selected = card
        return Verdict(True, table_id=table.id)

    async def timeout(self, version: int) -> None:
        """The deadline job fired; nothing happens if the table moved on meanwhile."""
        async with self.table.command():
            game = self.table.game
            if game is not None and game.version == version and not game.over:
                await self.act(-1, TIMEOUT, version=version)

    async def tick(self, version: int) -> None:
        """A checkpoint of the move timer: the time left the screens show changes (at the warning, a person
        whose timeout would count as a missed move is told, with sound: bot.sounds)."""
        table = self.table
        async with table.command():
            game = table.game
            if game is None or game.version != version or game.over or table.clock.deadline is None:
                return
            table.clock.next_tick(game, table.move_timer(game))

    async def bot_turn(self, version: int) -> None:
        """Bot-played seats on the clock move, one at a time, from their own view only. The bot thinks outside
        the lock; its move counts only if the table has not moved on meanwhile."""
        table = self.table
        async with table.command():
            game = table.game
            if game is None or game.version != version or game.over:
                return
            if game.decided():  # nobody is asked to press Take when it changes nothing (docs/rules.md §7)
                await self.act(game.defender, TAKE, version=version)
                return
            seat = next((s for s in game.to_act() if table.is_bot_seat(s)), None)
            if seat is None:
                return
            seen, level = view(game, seat), table.bot_level(seat)
            who = (table.id, table.game_row.id if table.game_row is not None else 0, seat)
        move = await table.env.thinker.choose(seen, level, table.id, who)
        async with table.command():
            await self.act(seat, move, version=version)

    async def act(self, seat: int, action: Action, *, version: int | None = None) -> Verdict:
        """Apply one action with the lock held: the engine decides, the database records it (with the result,
        when it ends the game), then the table in memory takes the new state."""
        table = self.table
        game = table.game
        if game is None or game.over:
            return Verdict.refused(Refusal.NO_TABLE)
        if table.row.status is not TableStatus.PLAYING:
            return Verdict.refused(Refusal.CANCELLED)
        if version is not None and version != game.version:
            return Verdict.refused(Refusal.STALE)
        candidate = game.copy()
        try:
            applied = act(candidate, seat, action)
        except IllegalMove as exc:
            return Verdict.refused(Refusal.ILLEGAL, exc.reason.value)
        if not applied.events and action in (TAKE_OVER, RECLAIM):
            return Verdict(True, table_id=table.id)
        assert table.game_row is not None
        deadline = table.clock.after(candidate, table.move_timer(candidate))
        handed = handed_after(table.handed, table.row.seats, table.kicked, applied.events, action)
        storage = table.env.storage
        rated = table.rated and not table.nobody_plays(candidate)  # docs/rules.md §10
        # A move that ends the game is written with its result in one transaction, and so is one after which
        # nobody plays any more with the game unrated; any other shares a group commit with the moves of other
        # tables (storage.db.Database.write).
        alone = candidate.result is None and rated == table.rated
        together = nullcontext() if alone else storage.db.transaction()
        try:
            async with together:
                await storage.games.record(
                    table.game_row.id,
                    candidate.version,  # one action, one version: the log's sequence number
                    seat,
                    action_str(action),
                    dumps(candidate),
                    candidate.version,
                    deadline=deadline,
                )
                if rated != table.rated:
                    await storage.games.set_unrated(table.game_row.id)
                if candidate.result is not None:
                    found = await record_result(
                        table.env, table.row, table.game_row, candidate, rated, handed
                    )
                    table.game_row, table.ratings = found
        except StaleGame:  # the database says the table left play (another process cancelled it)
            await table.reread()
            return Verdict.refused(Refusal.CANCELLED)
        except DATABASE_ERRORS as exc:
            # Nothing was written and the game in memory is as it was: say so, and keep the table going.
            bot_to_move = any(table.is_bot_seat(s) for s in game.to_act())
            table.clock.retry_later(game, action_str(action), exc, bot_to_move=bot_to_move)
            return Verdict.refused(Refusal.SAVE_FAILED)
        table.clock.failures = 0
        table.game, table.clock.deadline, table.rated, table.handed = candidate, deadline, rated, handed
        table.recent.extend(e for e in applied.events if e.kind not in QUIET)
        if candidate.result is not None:
            metrics.GAMES.labels("finished").inc()
            await table.reread()
        elif table.nobody_plays(candidate) and self._stalled(candidate):
            log.info("table %s: only bots play and the game is getting nowhere: stopped", table.id)
            await table.end(TableStatus.CANCELLED, ABANDONED)
            return Verdict(True, table_id=table.id)
        self.after_change()
        return Verdict(True, table_id=table.id)

    def after_change(self) -> None:
        """The game moved (or came back after a restart, or was dealt): screens, timers and bot turns follow
        it."""
        table = self.table
        game = table.game
        assert game is not None
        env = table.env
        table.screens.after_move(game)
        table.clock.follow(game, table.move_timer(game))
        if game.over:
            return
        thinking = [env.thinker.budget(table.bot_level(s)) for s in game.to_act() if table.is_bot_seat(s)]
        # Moves are paced for the people at the table; a game nobody plays is played out at once.
        pause = 0.0 if table.nobody_plays(game) else env.bot_delay
        if game.decided():
            env.scheduler.bot_turn(table.id, game.version, pause)  # the last card is seen first
        elif thinking:
            # The pause before a bot's move includes its thinking time, so play keeps one pace.
            env.scheduler.bot_turn(table.id, game.version, max(0.0, pause - max(thinking)))

    def _stalled(self, game: Game) -> bool:
        """A game nobody plays has gone STALL_BOUTS bouts with no card discarded and nobody out: bots can pass
        the same cards round a table for ever, and nobody is there to see it."""
        discard, out, since = self._progress
        now_out = sum(1 for bout in game.out if bout >= 0)
        if (game.discard, now_out) != (discard, out):
            self._progress = (game.discard, now_out, game.bout)
            return False
        return game.bout - since >= STALL_BOUTS
