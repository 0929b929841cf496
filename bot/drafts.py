"""What each message the bot keeps up to date shows now: the outbox asks for a message's draft when its turn to
be sent comes, and gets it drawn from the last record its table published (bot.service.published) by the pure
functions of bot.render, in the chat's or the user's language (a hand, the group's table, a result; or the
messages a tidy chat deletes)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.arena_drafts import ArenaDrafts
from bot.callbacks import CardsPress, LobbyPress, encode
from bot.hand_drafts import HandDrafts, callees, names_of, warned
from bot.i18n import Text, texts, user_texts
from bot.kinds import MessageKind
from bot.members import ChatMembers
from bot.messages import Draft
from bot.pacing import Key
from bot.render.group import call_line, cut, event_line, table_text
from bot.render.lobby import lobby_keyboard, lobby_text
from bot.render.result import result_text, summary_text
from bot.series import series_line
from bot.service import ABANDONED, REMATCH_WINDOW, Published
from bot.sounds import Sounds
from engine.fairness import commitment
from engine.views import view
from storage import Storage
from storage.records import TableStatus, is_former


class Drafts:
    """Reads the records the tables published (the last of each table) and the database, and decides what
    sounds (bot.sounds); sends nothing."""

    def __init__(
        self,
        storage: Storage,
        *,
        bot_username: str,
        default_language: str,
        members: ChatMembers | None = None,
        web_app: str | None = None,
    ) -> None:
        self.storage = storage
        self.records: dict[int, Published] = {}  # each table's last record, while it is in memory
        self.sounds = Sounds()
        self.web_app = web_app  # the web table's short name with @BotFather (None: no web table)
        self.hands = HandDrafts(storage, self.sounds, self.user_text, self.web_link)
        self.arenas = ArenaDrafts(storage, self.records, self.group_text)
        self.members = members  # whether the bot may delete messages in a group (None: it may not)
        self.bot_username = bot_username
        self.default_language = default_language
        # Every kind of message a table has (bot.kinds) but "tidy", which deletes and draws nothing.
        self.by_kind: dict[MessageKind, Callable[[Published, int], Awaitable[Draft | None]]] = {
            "table_message": self._table_message,
            "hand": self.hands.private,
            "group_hand": self.hands.in_group,
            "result": self._result_draft,
            "broken": self._broken_draft,
        }

    def web_link(self, table_id: int) -> str | None:
        """The direct link that opens a table in the web table (a Mini App), where the operator set one up:
        inline ``web_app`` buttons work in private chats only, a link to the app works everywhere."""
        if not self.web_app:
            return None
        return f"https://t.me/{self.bot_username}/{self.web_app}?startapp=t{table_id}"

    def _record(self, table_id: int) -> Published | None:
        return self.records.get(table_id)

    # ------------------------------------------------------------------ languages

    async def group_text(self, chat_id: int) -> Text:
        chat = await self.storage.chats.get(chat_id)
        return texts(chat.language if chat and chat.language else self.default_language)

    async def user_text(self, user_id: int) -> Text:
        return user_texts(await self.storage.users.get(user_id), self.default_language)

    # ------------------------------------------------------------------ drafts

    async def draft(self, key: Key) -> Draft | None:
        """The message a key names as it is to show now (None: nothing to send), by its kind (bot.kinds)."""
        kind, table_id, seat = key
        if kind == "tidy":  # no record needed: the table may have been forgotten since it ended
            return await self._tidy_draft(table_id)
        if kind in ("arena", "podium"):  # an arena's: its id in the table's place
            return await self.arenas.draft(kind, table_id)
        record = self._record(table_id)
        if record is None:
            return None
        return await self.by_kind[kind](record, seat)

    async def _broken_draft(self, record: Published, seat: int) -> Draft:
        t = await self.group_text(record.row.chat_id)
        return Draft(record.row.chat_id, None, t("table.broken"), None, record.row.thread_id or None)

    async def _table_message(self, record: Published, seat: int) -> Draft | None:
        t = await self.group_text(record.row.chat_id)
        thread = record.row.thread_id or None
        if record.game is not None and record.game.over and await self._tidy(record.row.chat_id):
            game_id = record.game_row.id if record.game_row else None
            names = names_of(record, t)
            summary = summary_text(
                view(record.game), names, t, minutes=_minutes(record) or 1, game_id=game_id
            )
            return Draft(record.row.chat_id, record.row.message_id, summary, None, thread)
        # A rematch's lobby says the series' score so far.
        lobby = record.row.status is TableStatus.LOBBY and record.row.series_id is not None
        series = await series_line(self.storage, record, names_of(record, t), t, 1) if lobby else ""
        text, keyboard = self._table(record, t, await self._walked(record), series)
        called = await self._called(record, t)
        if called:
            text += "\n\n" + call_line([(user, name) for user, name, _ in called], t)
        message_id, replaces = record.row.message_id, None
        calls = frozenset((user, warned) for user, _, warned in called)
        if self.sounds.call(record.id, calls) and message_id is not None:
            message_id, replaces = None, message_id  # sent anew at the bottom of the chat: the mention sounds
        return Draft(record.row.chat_id, message_id, text, keyboard, thread, replaces=replaces)

    async def _called(self, record: Published, t: Text) -> list[tuple[int, str, bool]]:
        """The players the table message calls by name to move now, (user id, name, warned: their move is
        about to be missed) (``callees``), where the bot is not an administrator of the group."""
        on_clock = [record.row.seats[seat].user_id for seat in record.to_act()]
        users = {u: await self.storage.users.get(u) for u in on_clock if u is not None and not is_former(u)}
        called = callees(record, users.get, self._answerable)
        if not called or self.members is None or await self.members.bot_admin(record.row.chat_id):
            return []
        names = names_of(record, t)
        return [(user.id, names[seat], warned(record, seat)) for seat, user in called]

    def _answerable(self, chat_id: int, user_id: int) -> bool:
        """The bot may send this member an in-group message now as the answer to their press (bot.presenter
        knows the presses)."""
        return False

    async def _result_draft(self, record: Published, seat: int) -> Draft | None:
        """The result message, with its Rematch button while the rematch is open."""
        row = record.game_row
        if record.result is None or (row is not None and row.result_message_id == 0):
            return None  # no result yet, or one sent before its id was kept: it cannot be edited
        t = await self.group_text(record.row.chat_id)
        reveal = (row.salt, row.deck) if row and row.salt and row.deck else None
        names = names_of(record, t)
        text = result_text(
            record.result,
            names,
            t,
            rated=record.rated,
            ratings=record.ratings,
            minutes=_minutes(record),
            reveal=reveal,
            game_id=row.id if row else None,
        )
        series = await series_line(self.storage, record, names, t, 2)  # from the second game on
        text += f"\n\n{series}" if series else ""
        keyboard = None
        if record.rematch_open:  # one rematch per game, while the table is remembered
            rematch = InlineKeyboardButton(
                t("lobby.rematch"), callback_data=encode(LobbyPress(record.id, "rematch"))
            )
            keyboard = InlineKeyboardMarkup([[rematch]])
        message_id = row.result_message_id if row is not None else None
        return Draft(record.row.chat_id, message_id, text, keyboard, record.row.thread_id or None)

    async def _tidy(self, chat_id: int) -> bool:
        """The group keeps its chat tidy: its setting (on by default), where the bot may delete messages."""
        chat = await self.storage.chats.get(chat_id)
        if chat is None or chat.tidy != "on" or self.members is None:
            return False
        return await self.members.bot_deletes(chat_id)

    async def _tidy_draft(self, table_id: int) -> Draft | None:
        """The messages that led to an ended table, to delete: where the group keeps its chat tidy and the bot
        may delete messages there. Elsewhere they stay, and are forgotten."""
        chat_id, noted = await self.storage.tables.noted(table_id)
        if chat_id is None or not noted:
            return None
        if not await self._tidy(chat_id):
            await self.storage.tables.tidied(table_id)
            return None
        return Draft(chat_id, None, "", None, deletes=tuple(noted))

    async def _walked(self, record: Published) -> set[int]:
        """The players seated in a lobby who left or ran out of time in most of their recent games here."""
        if record.row.status is not TableStatus.LOBBY:
            return set()
        users = [s.user_id for s in record.row.seats if s.user_id is not None and not is_former(s.user_id)]
        found = await self.storage.results.reliability(record.row.chat_id, users)
        return {user for user, recent in found.items() if recent.walked_away}

    def _table(
        self, record: Published, t: Text, walked: set[int], series: str
    ) -> tuple[str, InlineKeyboardMarkup | None]:
        table = record.row
        if table.status is TableStatus.CANCELLED:
            return t("table.abandoned" if table.broken_reason == ABANDONED else "lobby.cancelled"), None
        if table.status is TableStatus.BROKEN:
            return t("table.broken"), None
        if table.status is TableStatus.LOBBY or record.game is None:
            players = [
                cut(name) + (" ⏳" if seat.user_id in record.pending else "")
                for name, seat in zip(names_of(record, t), table.seats, strict=True)
            ]
            keyboard = lobby_keyboard(table.id, t, editing=record.editing_options, options=table.options)
            bots = record.editing_options or any(seat.user_id is None for seat in table.seats)
            creator = record.creator_name or t("forget.former")
            marked = [seat.seat for seat in table.seats if seat.user_id in walked]
            text = lobby_text(table.options, creator, players, t, bots=bots, walked=marked)
            text += f"\n\n{series}" if series else ""
            if record.pending:
                text += "\n" + t("lobby.pending", seconds=round(REMATCH_WINDOW))
            return text, keyboard
        seconds = record.seconds
        names = names_of(record, t)
        recent = [line for e in record.recent if (line := event_line(e, names, t))]
        row = record.game_row
        sealed = commitment(row.salt, row.deck) if row and row.salt and row.deck else None
        text = table_text(view(record.game), names, t, seconds_left=seconds, recent=recent, commitment=sealed)
        if record.game.over:
            return text, None
        rows = [[InlineKeyboardButton(t("table.my_cards"), callback_data=encode(CardsPress(record.id)))]]
        link = self.web_link(record.id)
        if link is not None:
            rows.append([InlineKeyboardButton(t("web.open"), url=link)])
        return text, InlineKeyboardMarkup(rows)


def _minutes(record: Published) -> int | None:
    """How long the table's game took, in whole minutes (one at least)."""
    row = record.game_row
    return max(1, round(((row.finished_at or record.at) - row.started_at) / 60)) if row else None
