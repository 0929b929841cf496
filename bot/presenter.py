"""Between the table service and the outbox: which messages a change touches, marked in the outbox by how soon
somebody needs them; what each shows is drawn when its turn comes (bot.drafts)."""

from __future__ import annotations

from collections.abc import Mapping

from bot import budget
from bot.drafts import Drafts, callees, in_group, in_private
from bot.members import ChatMembers
from bot.outbox import Outbox
from bot.pacing import Key
from bot.service import CLOSED, Redraw, Table
from storage import Storage
from storage.records import Seat, is_former


class Presenter(Drafts, Redraw):
    """The service's Redraw: it marks messages in the outbox, which asks it back for each message's draft
    (``Drafts.draft``) when the chat's turn to send comes."""

    def __init__(
        self,
        storage: Storage,
        tables: Mapping[int, Table],
        outbox: Outbox,
        *,
        bot_username: str,
        default_language: str,
        members: ChatMembers | None = None,
    ) -> None:
        super().__init__(
            storage, tables, bot_username=bot_username, default_language=default_language, members=members
        )
        self.outbox = outbox

    # ------------------------------------------------------------------ Redraw

    def table_message(self, table_id: int) -> None:
        live = self._live(table_id)
        if live:
            # A table that calls somebody to move is their turn's sound: as soon as a turn's hand.
            calls = self.members is not None and self.members.known_admin(live.row.chat_id) is not True
            calls = calls and bool(callees(live, self.storage.users.cached, self._answerable))
            self.outbox.mark(
                live.row.chat_id, ("table", table_id, -1), rank=budget.SOON if calls else budget.LATER
            )

    def _answerable(self, chat_id: int, user_id: int) -> bool:
        return self.outbox.answerable(chat_id, user_id)

    def hands(self, table_id: int) -> None:
        live = self._live(table_id)
        if live is None:
            return
        closed = live.row.status in CLOSED
        if live.game is None and not closed:
            return
        game = live.game
        to_act = game.to_act() if game is not None and not game.over and not closed else ()
        mover = live.recent[-1].seat if live.recent else None
        for seat in live.row.seats:
            # Whose turn it is now first, then the player who just moved (they watch their hand), then the rest.
            rank = budget.SOON if seat.seat in to_act else budget.OWN if seat.seat == mover else budget.LATER
            # A table that ended without a result only corrects the hand messages it had sent.
            self._mark_hand(live, seat.seat, rank=rank, sent_only=closed)

    def _mark_hand(
        self, live: Table, seat: int, *, rank: int = budget.LATER, sent_only: bool = False
    ) -> None:
        """Mark the seat's hand where its player holds it: in private, in the group, or both."""
        at = live.row.seats[seat]
        if at.user_id is None or is_former(at.user_id):
            return
        private, group = self._places(at)
        if private and (not sent_only or at.hand_message_id is not None):
            self.outbox.mark(at.user_id, ("hand", live.id, seat), rank=rank)
        if group and (not sent_only or at.group_hand_id is not None):
            self.outbox.mark_ephemeral(live.row.chat_id, at.user_id, ("cards", live.id, seat), rank=rank)

    def _places(self, at: Seat) -> tuple[bool, bool]:
        """Whether the seat's hand is shown in private and in the group. The user's record is read from the
        cache only (marking never waits on the database): if it is not there, both are marked, and each
        draft decides from the record itself."""
        user = self.storage.users.cached(at.user_id) if at.user_id is not None else None
        if user is None:
            return True, True
        return in_private(user), in_group(user, at)

    def result(self, table_id: int) -> None:
        live = self._live(table_id)
        if live:
            self.outbox.mark(live.row.chat_id, ("result", table_id, -1))

    def broken(self, table_id: int) -> None:
        live = self._live(table_id)
        if live:
            self.outbox.mark(live.row.chat_id, ("broken", table_id, -1))

    def tidy(self, chat_id: int, table_id: int) -> None:
        self.outbox.mark(chat_id, ("tidy", table_id, -1))  # after the table's last redraw and its result

    def clock(self, table_id: int) -> None:
        live = self._live(table_id)
        if live is None or live.game is None:
            return
        self.table_message(table_id)
        for seat in live.game.to_act():
            self._mark_hand(live, seat)

    def warn(self, table_id: int, seat: int) -> None:
        self._hand(table_id, seat, rank=budget.SOON)

    def hand(self, table_id: int, seat: int) -> None:
        self._hand(table_id, seat, rank=budget.OWN)  # its player pressed something and looks at it

    def cards(self, table_id: int, seat: int) -> None:
        live = self._live(table_id)
        user = live.row.seats[seat].user_id if live is not None else None
        if live is not None and user is not None and not is_former(user):
            # The answer to the player's own press: Telegram lets a bot that is not an administrator send it
            # for 15 seconds only, so it goes before the group's redraws.
            key: Key = ("cards", table_id, seat)
            self.outbox.mark_ephemeral(live.row.chat_id, user, key, rank=budget.URGENT)

    def _hand(self, table_id: int, seat: int, *, rank: int) -> None:
        live = self._live(table_id)
        if live is not None:
            self._mark_hand(live, seat, rank=rank)

    def table_now(self, table_id: int) -> None:
        """Redraw the table message ahead of the group's other redraws: a lobby press someone waits on. It is
        drawn when it goes, as every redraw: presses in quick succession show once, as the last left it, and a
        lobby never comes back over the game it started."""
        live = self._live(table_id)
        if live:
            self.outbox.mark(live.row.chat_id, ("table", table_id, -1), rank=budget.URGENT)
