"""A live table and every command on it. Each command reads, decides, writes and updates the table in memory
inside ``async with self.command()``, so presses that arrive together are applied one after the other, each
to the table as the one before left it (two players leaving at once leave, and nobody else), and each change
leaves the table one way: published as one record (bot.service.published)."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

from bot.service.contracts import REDRAW_KEPT, Outcome, Refusal
from bot.service.play import Playing
from engine import Game, OptionsError, cards
from engine.actions import TAKE_OVER
from engine.fairness import deck_text, new_salt
from engine.options import CHOICES, cycle
from engine.snapshot import dumps
from storage import SeatTaken
from storage.records import TableStatus, User

_PLAYER_COUNT = {"too_few_players": Refusal.TOO_FEW, "teams_need_4_or_6": Refusal.TEAM_SIZE}


class Table(Playing):
    # ------------------------------------------------------------------ the lobby

    async def _lobby(
        self,
        change: Callable[[], Awaitable[Refusal | None]],
        *,
        by: int | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        """Run ``change`` (the lock held) on a table that is still a lobby, by its creator or an admin if
        ``by`` is given."""
        async with self.command():
            if self.row.status is not TableStatus.LOBBY:
                return Outcome.refused(Refusal.NOT_LOBBY)
            if by is not None and by != self.row.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            refusal = await change()
            if refusal is not None:
                return Outcome.refused(refusal)
            await self._reload()
            return Outcome(True, table_id=self.id, options=self.row.options)

    async def _seat(self, user_id: int | None) -> Refusal | None:
        level = None if user_id else self.row.options.bot_level.value  # set again at the deal
        try:
            await self.env.storage.tables.add_seat(self.id, user_id, level)
        except SeatTaken:
            return Refusal.FULL
        return None

    async def join(self, user: User) -> Outcome:
        async def seat_user() -> Refusal | None:
            if user.id in self.pending:
                self.pending.discard(user.id)  # confirms the rematch
                return None
            if self.seat_of(user.id) is not None:
                return Refusal.ALREADY_SEATED
            return await self._seat(user.id)

        return await self._lobby(seat_user)

    async def add_bot(self, by: int, is_admin: bool) -> Outcome:
        return await self._lobby(lambda: self._seat(None), by=by, is_admin=is_admin)

    async def leave(self, user_id: int) -> Outcome:
        """In a lobby the seat is freed; in a game a bot plays it from now on (docs/rules.md §9)."""
        async with self.command():
            seat = self.seat_of(user_id)  # read with the lock held: seats renumber when one is freed
            if seat is None:
                return Outcome.refused(Refusal.NOT_SEATED)
            return await self._unseat(user_id, seat)

    async def kick(self, user_id: int, by: int, is_admin: bool) -> Outcome:
        """The host or a group admin removes a player: from a lobby their seat is freed; in a game a bot plays
        it to the end and "I'm back" no longer gives it back (docs/rules.md §9)."""
        async with self.command():
            if by != self.row.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            seat = self.seat_of(user_id)
            if seat is None:
                return Outcome.refused(Refusal.THEY_ARE_NOT_SEATED)
            if self.row.status is TableStatus.PLAYING:
                self.kicked.add(user_id)
            return await self._unseat(user_id, seat)

    async def _unseat(self, user_id: int, seat: int) -> Outcome:
        """With the lock held: the seat is freed in a lobby; in a game a bot plays it from now on."""
        if self.row.status is TableStatus.PLAYING:
            return await self._act(seat, TAKE_OVER)
        if self.row.status is not TableStatus.LOBBY:
            return Outcome.refused(Refusal.NOT_LOBBY)
        self.pending.discard(user_id)
        await self.env.storage.tables.remove_seat(self.id, seat)
        await self._reload()
        return Outcome(True, table_id=self.id)

    async def toggle_options(self, by: int, is_admin: bool) -> Outcome:
        """Show or hide the options keyboard."""

        async def toggle() -> None:
            self.editing_options = not self.editing_options

        return await self._lobby(toggle, by=by, is_admin=is_admin)

    async def set_option(self, by: int, is_admin: bool, name: str) -> Outcome:
        """Move option ``name`` to its next value that makes a valid table; the outcome carries the options
        as this press left them."""
        if name not in CHOICES:
            return Outcome.refused(Refusal.STALE)

        async def change() -> None:
            await self.env.storage.tables.set_options(self.id, cycle(self.row.options, name))

        return await self._lobby(change, by=by, is_admin=is_admin)

    async def start(self, by: int, is_admin: bool, *, deck: list[int] | None = None) -> Outcome:
        async with self.command():
            row = self.row
            if row.status is not TableStatus.LOBBY:
                return Outcome.refused(Refusal.NOT_LOBBY)
            if by != row.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            players = len(row.seats)
            try:
                row.options.check_players(players)  # the engine says who may play; we only translate it
            except OptionsError as exc:
                return Outcome.refused(_PLAYER_COUNT.get(exc.code, Refusal.FULL))
            if self.pending:
                return Outcome.refused(Refusal.WAITING)
            order = list(deck) if deck is not None else cards.deck(row.options.deck)
            if deck is None:
                random.SystemRandom().shuffle(order)
            game = Game.deal(row.options, players, deck=order, loser=self._rematch_loser())
            self.rated = all(s.user_id is not None for s in row.seats)
            deadline = self._deadline(game)
            self.game_row = await self.env.storage.games.start(
                self.id,
                dumps(game),
                game.version,
                rated=self.rated,
                deadline=deadline,
                deck=deck_text(order),
                salt=new_salt(),
                bot_level=row.options.bot_level.value,
            )
            self.game, self.deadline = game, deadline
            self.editing_options = False
            await self._reload()
            self._after_change()
            return Outcome(True, table_id=self.id)

    async def cancel(self, by: int, is_admin: bool) -> Outcome:
        async with self.command():
            if by != self.row.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            if not self.open:
                return Outcome.refused(Refusal.NO_TABLE)
            await self._close(TableStatus.CANCELLED)
            return Outcome(True, table_id=self.id)

    async def reload(self) -> None:
        """The stored record changed under the table (its group moved to a new chat id, a player was
        forgotten): read it again."""
        async with self.command():
            await self._reload()
            creator = await self.env.storage.users.get(self.row.creator_id)
            self.creator_name = creator.display_name if creator else ""

    async def resume(self) -> None:
        """Brought back after a restart: its record read again, and its game, if any (in play, or over with
        its result still to send), goes on from where it was stored."""
        async with self.command():
            await self._reload()
            if self.game is not None:
                self._after_change()

    async def prune(self, horizon: float) -> bool:
        """Whether the table, closed before ``horizon``, may be forgotten (its last messages are long drawn).
        A result still offering a rematch first loses its button: forgotten on a later pass."""
        async with self.command():
            if self.result is not None and self.rematch_open:
                self.rematch_open = False
                self.closed_at = horizon + REDRAW_KEPT  # kept until that redraw has surely gone out
                return False
            return True

    async def close(self, status: TableStatus, reason: str | None = None) -> None:
        """End a live table without a result (the bot left its group, say)."""
        async with self.command():
            if self.open:
                await self._close(status, reason)

    # ------------------------------------------------------------------ the rematch

    async def rematch(self, user_id: int, open_next: Callable[[], Awaitable[Outcome]]) -> Outcome:
        """Take this finished game's one rematch for ``user_id``: ``open_next`` opens the new table, and only if
        it did does the Rematch button go (docs/rules.md §3 decides who leads the next game)."""
        async with self.command():
            if self.result is None:
                return Outcome.refused(Refusal.NO_TABLE)
            if not self.rematch_open:
                return Outcome.refused(Refusal.REMATCH_TAKEN)
            if self.seat_of(user_id) is None:
                return Outcome.refused(Refusal.NOT_SEATED)
            outcome = await open_next()
            if outcome.ok:
                self.rematch_open = False
            return outcome

    async def seat_rematch(self, players: list[int | None], by: int) -> None:
        """Seat the last game's players at this new table in their order; all but ``by`` are to confirm."""
        async with self.command():
            for user_id in players:
                await self._seat(user_id)
                if user_id is not None and user_id != by:
                    self.pending.add(user_id)
            await self._reload()

    async def expire_rematch(self) -> None:
        """The confirmation time is over: players who did not confirm by then leave their seats (one who
        confirms in the same instant is either seated for good or gone, never both)."""
        async with self.command():
            if self.row.status is not TableStatus.LOBBY or not self.pending:
                return
            for user_id in list(self.pending):
                seat = self.seat_of(user_id)
                if seat is not None:
                    await self.env.storage.tables.remove_seat(self.id, seat)
                    await self._reload()  # the seats after it move up
            self.pending.clear()

    def _rematch_loser(self) -> int | None:
        """The last durak's seat at this table, if they are still at it (None: lowest trump leads)."""
        if self.loser is None:
            return None
        user_id, old_seat = self.loser
        if user_id is None:
            seats = self.row.seats
            return old_seat if old_seat < len(seats) and seats[old_seat].user_id is None else None
        return self.seat_of(user_id)
