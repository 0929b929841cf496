"""The lobby of one table, one part of it: seats taken and freed (and, once the game is on, handed to a
bot), the options, the deal, the cancel, and the rematch with its confirmations. Each command runs under
the table's lock (``table.command()``)."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.service.contracts import Refusal, Verdict
from bot.service.core import Core
from bot.service.play import Play
from engine import Game, OptionsError, cards
from engine.actions import TAKE_OVER
from engine.fairness import deck_text, new_salt
from engine.options import CHOICES, cycle
from engine.snapshot import dumps
from storage import SeatTaken
from storage.records import TableStatus, User

_PLAYER_COUNT = {"too_few_players": Refusal.TOO_FEW, "teams_need_4_or_6": Refusal.TEAM_SIZE}


class Owner(Core, Protocol):
    """The table, as its lobby sees it: with its play, which takes a seat over in a game."""

    play: Play


class Lobby:
    def __init__(self, table: Owner, loser: tuple[int | None, int] | None = None) -> None:
        self.table = table
        self.editing_options = False  # the options keyboard is shown
        self.pending: set[int] = set()  # rematch: players who have not confirmed yet
        self.rematch_open = True  # a finished game's result still offers a rematch
        self.loser = loser  # rematch: the last game's durak (user id or None, seat)

    async def _change(
        self,
        change: Callable[[], Awaitable[Refusal | None]],
        *,
        by: int | None = None,
        is_admin: bool = False,
    ) -> Verdict:
        """Run ``change`` (the lock held) on a table that is still a lobby, by its creator or an admin if
        ``by`` is given."""
        table = self.table
        async with table.command():
            if table.row.status is not TableStatus.LOBBY:
                return Verdict.refused(Refusal.NOT_LOBBY)
            if by is not None and by != table.row.creator_id and not is_admin:
                return Verdict.refused(Refusal.CREATOR_ONLY)
            refusal = await change()
            if refusal is not None:
                return Verdict.refused(refusal)
            await table.reread()
            return Verdict(True, table_id=table.id, options=table.row.options)

    async def _seat(self, user_id: int | None) -> Refusal | None:
        table = self.table
        level = None if user_id else table.row.options.bot_level.value  # set again at the deal
        try:
            await table.env.storage.tables.add_seat(table.id, user_id, level)
        except SeatTaken:
            return Refusal.FULL
        return None

    async def join(self, user: User) -> Verdict:
        async def seat_user() -> Refusal | None:
            if user.id in self.pending:
                self.pending.discard(user.id)  # confirms the rematch
                return None
            if self.table.seat_of(user.id) is not None:
                return Refusal.ALREADY_SEATED
            return await self._seat(user.id)

        return await self._change(seat_user)

    async def add_bot(self, by: int, is_admin: bool) -> Verdict:
        return await self._change(lambda: self._seat(None), by=by, is_admin=is_admin)

    async def leave(self, user_id: int) -> Verdict:
        """In a lobby the seat is freed; in a game a bot plays it from now on (docs/rules.md §9)."""
        async with self.table.command():
            seat = self.table.seat_of(user_id)  # read with the lock held: seats renumber when one is freed
            if seat is None:
                return Verdict.refused(Refusal.NOT_SEATED)
            return await self._unseat(user_id, seat)

    async def kick(self, user_id: int, by: int, is_admin: bool) -> Verdict:
        """The host or a group admin removes a player: from a lobby their seat is freed; in a game a bot plays
        it to the end and "I'm back" no longer gives it back (docs/rules.md §9)."""
        table = self.table
        async with table.command():
            if by != table.row.creator_id and not is_admin:
                return Verdict.refused(Refusal.CREATOR_ONLY)
            seat = table.seat_of(user_id)
            if seat is None:
                return Verdict.refused(Refusal.THEY_ARE_NOT_SEATED)
            if table.row.status is TableStatus.PLAYING:
                table.kicked.add(user_id)
            return await self._unseat(user_id, seat)

    async def _unseat(self, user_id: int, seat: int) -> Verdict:
        """With the lock held: the seat is freed in a lobby; in a game a bot plays it from now on."""
        table = self.table
        if table.row.status is TableStatus.PLAYING:
            return await table.play.act(seat, TAKE_OVER)
        if table.row.status is not TableStatus.LOBBY:
            return Verdict.refused(Refusal.NOT_LOBBY)
        self.pending.discard(user_id)
        await table.env.storage.tables.remove_seat(table.id, seat)
        await table.reread()
        return Verdict(True, table_id=table.id)

    async def toggle_options(self, by: int, is_admin: bool) -> Verdict:
        """Show or hide the options keyboard."""

        async def toggle() -> None:
            self.editing_options = not self.editing_options

        return await self._change(toggle, by=by, is_admin=is_admin)

    async def set_option(self, by: int, is_admin: bool, name: str) -> Verdict:
        """Move option ``name`` to its next value that makes a valid table; the verdict carries the options
        as this press left them."""
        if name not in CHOICES:
            return Verdict.refused(Refusal.STALE)
        table = self.table

        async def change() -> None:
            await table.env.storage.tables.set_options(table.id, cycle(table.row.options, name))

        return await self._change(change, by=by, is_admin=is_admin)

    async def start(self, by: int, is_admin: bool, *, deck: list[int] | None = None) -> Verdict:
        table = self.table
        async with table.command():
            row = table.row
            if row.status is not TableStatus.LOBBY:
                return Verdict.refused(Refusal.NOT_LOBBY)
            if by != row.creator_id and not is_admin:
                return Verdict.refused(Refusal.CREATOR_ONLY)
            players = len(row.seats)
            try:
                row.options.check_players(players)  # the engine says who may play; we only translate it
            except OptionsError as exc:
                return Verdict.refused(_PLAYER_COUNT.get(exc.code, Refusal.FULL))
            if self.pending:
                return Verdict.refused(Refusal.WAITING)
            order = list(deck) if deck is not None else cards.deck(row.options.deck)
            if deck is None:
                random.SystemRandom().shuffle(order)
            game = Game.deal(row.options, players, deck=order, loser=self._rematch_loser())
            table.rated = all(s.user_id is not None for s in row.seats)
            deadline = table.clock.after(game, table.move_timer(game))
            table.game_row = await table.env.storage.games.start(
                table.id,
                dumps(game),
                game.version,
                rated=table.rated,
                deadline=deadline,
                deck=deck_text(order),
                salt=new_salt(),
                bot_level=row.options.bot_level.value,
            )
            table.game, table.clock.deadline = game, deadline
            self.editing_options = False
            await table.reread()
            table.play.after_change()
            return Verdict(True, table_id=table.id)

    async def cancel(self, by: int, is_admin: bool) -> Verdict:
        table = self.table
        async with table.command():
            if by != table.row.creator_id and not is_admin:
                return Verdict.refused(Refusal.CREATOR_ONLY)
            if not table.open:
                return Verdict.refused(Refusal.NO_TABLE)
            await table.end(TableStatus.CANCELLED)
            return Verdict(True, table_id=table.id)

    # ------------------------------------------------------------------ the rematch

    async def rematch(self, user_id: int, open_next: Callable[[], Awaitable[Verdict]]) -> Verdict:
        """Take this finished game's one rematch for ``user_id``: ``open_next`` opens the new table, and only if
        it did does the Rematch button go (docs/rules.md §3 decides who leads the next game)."""
        table = self.table
        async with table.command():
            if table.result is None:
                return Verdict.refused(Refusal.NO_TABLE)
            if not self.rematch_open:
                return Verdict.refused(Refusal.REMATCH_TAKEN)
            if table.seat_of(user_id) is None:
                return Verdict.refused(Refusal.NOT_SEATED)
            verdict = await open_next()
            if verdict.ok:
                self.rematch_open = False
            return verdict

    async def seat_rematch(self, players: list[int | None], by: int) -> None:
        """Seat the last game's players at this new table in their order; all but ``by`` are to confirm."""
        async with self.table.command():
            for user_id in players:
                await self._seat(user_id)
                if user_id is not None and user_id != by:
                    self.pending.add(user_id)
            await self.table.reread()

    async def expire_rematch(self) -> None:
        """The confirmation time is over: players who did not confirm by then leave their seats (one who
        confirms in the same instant is either seated for good or gone, never both)."""
        table = self.table
        async with table.command():
            if table.row.status is not TableStatus.LOBBY or not self.pending:
                return
            for user_id in list(self.pending):
                seat = table.seat_of(user_id)
                if seat is not None:
                    await table.env.storage.tables.remove_seat(table.id, seat)
                    await table.reread()  # the seats after it move up
            self.pending.clear()

    def _rematch_loser(self) -> int | None:
        """The last durak's seat at this table, if they are still at it (None: lowest trump leads)."""
        if self.loser is None:
            return None
        user_id, old_seat = self.loser
        if user_id is None:
            seats = self.table.row.seats
            return old_seat if old_seat < len(seats) and seats[old_seat].user_id is None else None
        return self.table.seat_of(user_id)
