"""The one output point of the tables: it receives every record a table publishes (it is the service's
Watcher), keeps the last of each, and marks in the outbox the messages the change touches (bot.changes), by
how soon somebody needs them; what each shows is drawn from the last record when its turn comes
(bot.drafts), and whether it sounds is decided there (bot.sounds)."""

from __future__ import annotations

from collections.abc import Callable

from bot import budget
from bot.changes import changes
from bot.drafts import Drafts
from bot.hand_drafts import callees, in_group, in_private
from bot.members import ChatMembers
from bot.outbox import Outbox
from bot.pacing import Key
from bot.service import CLOSED, ArenaRecord, Published
from storage import Storage
from storage.records import Seat, is_former


class Presenter(Drafts):
    """Marks messages in the outbox, which asks it back for each message's draft (``Drafts.draft``) when the
    chat's turn to send comes."""

    def __init__(
        self,
        storage: Storage,
        outbox: Outbox,
        *,
        bot_username: str,
        default_language: str,
        members: ChatMembers | None = None,
        web_app: str | None = None,
    ) -> None:
        super().__init__(
            storage,
            bot_username=bot_username,
            default_language=default_language,
            members=members,
            web_app=web_app,
        )
        self.outbox = outbox
        # Whether a player has their table's web page open and on screen (bot.web.hub): their hand then costs
        # no message; when the page goes, ``catch_up`` draws it in the chat again.
        self.watching: Callable[[int, int], bool] = lambda table_id, user_id: False

    # ------------------------------------------------------------------ Watcher

    def published(self, record: Published) -> None:
        before = self.records.get(record.id)
        if before is not None and before.version >= record.version:
            return  # never back to an older record
        self.records[record.id] = record
        if record.row.status in CLOSED or (record.game is not None and record.game.over):
            self.sounds.forget(record.id)  # nothing of it sounds again
        change = changes(before, record)
        chat = record.row.chat_id
        if change.arena and record.row.arena_id is not None:  # a line of the arena's message, at its pace
            self.outbox.mark(chat, ("arena", record.row.arena_id, -1), priority=budget.LATER)
        if change.table_message is not None:
            priority = change.table_message
            if priority > budget.SOON and self._calls(record):
                priority = budget.SOON  # a table that calls somebody to move is their turn's sound
            self.outbox.mark(chat, ("table_message", record.id, -1), priority=priority)
        for seat, priority in change.hands.items():
            self._mark_hand(record, seat, priority=priority, sent_only=change.sent_only)
        for seat in change.asked:
            user = record.row.seats[seat].user_id
            if user is not None and not is_former(user):
                # The answer to the player's own press: Telegram lets a bot that is not an administrator send
                # it for 15 seconds only, so it goes before the group's redraws.
                key: Key = ("group_hand", record.id, seat)
                self.outbox.mark_ephemeral(chat, user, key, priority=budget.URGENT)
        if change.result:
            self.outbox.mark(chat, ("result", record.id, -1))
        if change.broken:
            self.outbox.mark(chat, ("broken", record.id, -1))
        if change.tidy:
            self.tidy(chat, record.id)

    def arena(self, record: ArenaRecord) -> None:
        """An arena changed (bot.service.ArenaWatcher): its message, and its podium once it is over."""
        if not self.arenas.keep(record):
            return
        self.outbox.mark(record.row.chat_id, ("arena", record.row.id, -1), priority=budget.SOON)
        if record.row.finished and record.row.podium_message_id is None:
            self.outbox.mark(record.row.chat_id, ("podium", record.row.id, -1))

    def forgotten(self, table_id: int) -> None:
        self.records.pop(table_id, None)
        self.sounds.forget(table_id)

    def tidy(self, chat_id: int, table_id: int) -> None:
        self.outbox.mark(chat_id, ("tidy", table_id, -1))  # after the table's last redraw and its result

    def held(self) -> dict[str, int]:
        return {
            "published": len(self.records),
            "sounds": self.sounds.held(),
            "arenas": len(self.arenas.records),
        }

    # ------------------------------------------------------------------ marking

    def _calls(self, record: Published) -> bool:
        """The table message calls somebody by name to move (where the bot is not an administrator)."""
        if self.members is None or self.members.known_admin(record.row.chat_id) is True:
            return False
        return bool(callees(record, self.storage.users.cached, self._answerable))

    def _answerable(self, chat_id: int, user_id: int) -> bool:
        return self.outbox.grants.fresh(chat_id, user_id) is not None  # a press lets it answer

    def catch_up(self, table_id: int, user_id: int) -> None:
        """A player's web page went away (closed, or off screen): their hand in the chat shows the table as
        it is now."""
        record = self.records.get(table_id)
        seat = record.seat_of(user_id) if record is not None else None
        if record is not None and seat is not None and record.game is not None:
            self._mark_hand(record, seat, priority=budget.LATER)

    def _mark_hand(self, record: Published, seat: int, *, priority: int, sent_only: bool = False) -> None:
        """Mark the seat's hand where its player holds it: in private, in the group, or both (a table that
        ended without a result only corrects the hand messages it had sent); nowhere while its player
        looks at the table's web page."""
        at = record.row.seats[seat]
        if at.user_id is None or is_former(at.user_id) or self.watching(record.id, at.user_id):
            return
        private, group = self._places(at)
        if private and (not sent_only or at.hand_message_id is not None):
            self.outbox.mark(at.user_id, ("hand", record.id, seat), priority=priority)
        if group and (not sent_only or at.group_hand_id is not None):
            key: Key = ("group_hand", record.id, seat)
            self.outbox.mark_ephemeral(record.row.chat_id, at.user_id, key, priority=priority)

    def _places(self, at: Seat) -> tuple[bool, bool]:
        """Whether the seat's hand is shown in private and in the group. The user's record is read from the
        cache only (marking never waits on the database): if it is not there, both are marked, and each
        draft decides from the record itself."""
        user = self.storage.users.cached(at.user_id) if at.user_id is not None else None
        if user is None:
            return True, True
        return in_private(user), in_group(user, at)
