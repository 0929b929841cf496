"""The lobby: opening a table, seats, options, cancelling, dealing, and the rematch."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

from bot.service.live import REMATCH_WINDOW, Live, Outcome, Refusal
from bot.service.registry import Registry
from engine import Game, Options, OptionsError, cards
from engine.fairness import deck_text, new_salt
from engine.log import TAKE_OVER
from engine.snapshot import dumps
from storage import SeatTaken, TableExists
from storage.records import TableStatus, User

_PLAYER_COUNT = {"too_few_players": Refusal.TOO_FEW, "teams_need_4_or_6": Refusal.TEAM_SIZE}


class LobbyService(Registry):
    async def open_lobby(
        self, chat_id: int, thread_id: int, creator: User, chat_title: str, options: Options
    ) -> Outcome:
        self._prune()
        try:
            table = await self.storage.tables.create(chat_id, thread_id, creator.id, options)
        except TableExists:
            existing = await self.storage.tables.live_in(chat_id, thread_id)
            return Outcome.refused(Refusal.LOBBY_EXISTS, table_id=existing.id if existing else None)
        live = Live(table=table, names=[], creator_name=creator.display_name, chat_title=chat_title)
        self.live[table.id] = live
        outcome = await self.join(table.id, creator)
        self.redraw.table(table.id)
        return Outcome(True, table_id=table.id) if outcome.ok else outcome

    async def _lobby(
        self,
        table_id: int,
        change: Callable[[Live], Awaitable[Refusal | None]],
        *,
        by: int | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        """Run ``change`` on a table that is still a lobby (by its creator or an admin, if ``by`` is given)."""
        live = self.live.get(table_id)
        if live is None:
            return Outcome.refused(Refusal.NO_TABLE)
        async with live.lock:
            if live.table.status is not TableStatus.LOBBY:
                return Outcome.refused(Refusal.NOT_LOBBY)
            if by is not None and by != live.table.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            refusal = await change(live)
            if refusal is not None:
                return Outcome.refused(refusal)
            await self._reload(live)
        self.redraw.table(table_id)
        return Outcome(True, table_id=table_id)

    async def _seat(self, table_id: int, user_id: int | None) -> Refusal | None:
        try:
            live = self.live[table_id]
            level = None if user_id else live.table.options.bot_level.value  # set again at the deal
            await self.storage.tables.add_seat(table_id, user_id, level)
        except SeatTaken:
            return Refusal.FULL
        return None

    async def join(self, table_id: int, user: User) -> Outcome:
        async def seat_user(live: Live) -> Refusal | None:
            if user.id in live.pending:
                live.pending.discard(user.id)  # confirms the rematch
                return None
            if live.seat_of(user.id) is not None:
                return Refusal.ALREADY_SEATED
            return await self._seat(table_id, user.id)

        return await self._lobby(table_id, seat_user)

    async def add_bot(self, table_id: int, user_id: int, is_admin: bool) -> Outcome:
        return await self._lobby(
            table_id, lambda live: self._seat(table_id, None), by=user_id, is_admin=is_admin
        )

    async def leave(self, table_id: int, user_id: int) -> Outcome:
        """In a lobby the seat is freed; in a game a bot plays it from now on (docs/rules.md §9)."""
        live = self.live.get(table_id)
        if live is None:
            return Outcome.refused(Refusal.NO_TABLE)
        seat = live.seat_of(user_id)
        if seat is None:
            return Outcome.refused(Refusal.NOT_SEATED)
        if live.table.status is TableStatus.PLAYING:
            return await self._act(live, seat, TAKE_OVER)

        async def free(live: Live) -> None:
            live.pending.discard(user_id)
            await self.storage.tables.remove_seat(table_id, seat)

        return await self._lobby(table_id, free)

    async def set_option(
        self, table_id: int, user_id: int, is_admin: bool, options: Options | None
    ) -> Outcome:
        """Change the options (None: show or hide the options keyboard)."""

        async def change(live: Live) -> None:
            if options is None:
                live.editing_options = not live.editing_options
            else:
                await self.storage.tables.set_options(table_id, options)

        return await self._lobby(table_id, change, by=user_id, is_admin=is_admin)

    async def cancel(self, table_id: int, user_id: int, is_admin: bool) -> Outcome:
        live = self.live.get(table_id)
        if live is None:
            return Outcome.refused(Refusal.NO_TABLE)
        async with live.lock:
            if user_id != live.table.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            if live.table.status not in (TableStatus.LOBBY, TableStatus.PLAYING):
                return Outcome.refused(Refusal.NO_TABLE)
            await self._close(live, TableStatus.CANCELLED)
        return Outcome(True, table_id=table_id)

    async def start(
        self, table_id: int, user_id: int, is_admin: bool, *, deck: list[int] | None = None
    ) -> Outcome:
        live = self.live.get(table_id)
        if live is None:
            return Outcome.refused(Refusal.NO_TABLE)
        async with live.lock:
            table = live.table
            if table.status is not TableStatus.LOBBY:
                return Outcome.refused(Refusal.NOT_LOBBY)
            if user_id != table.creator_id and not is_admin:
                return Outcome.refused(Refusal.CREATOR_ONLY)
            players = len(table.seats)
            try:
                table.options.check_players(players)  # the engine says who may play; we only translate it
            except OptionsError as exc:
                return Outcome.refused(_PLAYER_COUNT.get(exc.code, Refusal.FULL))
            if live.pending:
                return Outcome.refused(Refusal.WAITING)
            order = list(deck) if deck is not None else cards.deck(table.options.deck)
            if deck is None:
                random.SystemRandom().shuffle(order)
            game = Game.deal(table.options, players, deck=order, loser=self._rematch_loser(live))
            live.rated = all(s.user_id is not None for s in table.seats)
            deadline = self._deadline(live, game)
            row = await self.storage.games.start(
                table_id,
                dumps(game),
                game.version,
                rated=live.rated,
                deadline=deadline,
                deck=deck_text(order),
                salt=new_salt(),
                bot_level=table.options.bot_level.value,
            )
            live.game, live.game_row, live.seq, live.deadline = game, row, 0, deadline
            live.editing_options = False
            await self._reload(live)
        self._after_change(live)
        return Outcome(True, table_id=table_id)

    async def rematch(self, old_id: int, user: User) -> Outcome:
        """The same players, seated again at once with the same options; the others confirm with Join
        within REMATCH_WINDOW or are dropped (docs/rules.md §3 decides who leads). The old result's button goes:
        one rematch per game."""
        old = self.live.get(old_id)
        if old is None or old.result is None:
            return Outcome.refused(Refusal.NO_TABLE)
        if not old.rematch_open:
            return Outcome.refused(Refusal.REMATCH_TAKEN)
        if old.seat_of(user.id) is None:
            return Outcome.refused(Refusal.NOT_SEATED)
        table = old.table
        try:
            new = await self.storage.tables.create(table.chat_id, table.thread_id, user.id, table.options)
        except TableExists:
            return Outcome.refused(Refusal.LOBBY_EXISTS)
        live = Live(table=new, names=[], creator_name=user.display_name, chat_title=old.chat_title)
        self.live[new.id] = live
        durak = old.result.durak
        if durak is not None:
            live.loser = (table.seats[durak].user_id, durak)
        async with live.lock:
            for seat in table.seats:
                await self._seat(new.id, seat.user_id)
                if seat.user_id is not None and seat.user_id != user.id:
                    live.pending.add(seat.user_id)
            await self._reload(live)
        self.scheduler.rematch_expiry(new.id, self.clock() + REMATCH_WINDOW)
        old.rematch_open = False
        self.redraw.result(old_id)
        self.redraw.table(new.id)
        return Outcome(True, table_id=new.id)

    async def expire_rematch(self, table_id: int) -> None:
        """The confirmation time is over: players who did not confirm leave their seats."""
        live = self.live.get(table_id)
        for user_id in list(live.pending) if live else []:
            await self.leave(table_id, user_id)

    def _rematch_loser(self, live: Live) -> int | None:
        """The last durak's seat at this table, if they are still at it (None: lowest trump leads)."""
        if live.loser is None:
            return None
        user_id, old_seat = live.loser
        if user_id is None:
            return (
                old_seat
                if old_seat < len(live.table.seats) and live.table.seats[old_seat].user_id is None
                else None
            )
        return live.seat_of(user_id)
