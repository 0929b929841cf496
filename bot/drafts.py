"""What each message the bot keeps up to date shows now: the outbox asks for a message's draft when its turn to
be sent comes, and gets it drawn from the live table by the pure functions of bot.render, in the chat's or the
user's language (a hand, the group's table, a result; or the messages a tidy chat deletes)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import CardsPress, LobbyPress, encode
from bot.delivery import Draft
from bot.i18n import Text, language_for, texts
from bot.members import ChatMembers
from bot.pacing import Key
from bot.render.group import call_line, cut, event_line, result_text, seat_names, summary_text, table_text
from bot.render.hand import Clock, hand_closed, hand_over, hand_text
from bot.render.keyboard import hand_keyboard
from bot.render.lobby import lobby_keyboard, lobby_text
from bot.service import ABANDONED, CLOSED, REMATCH_WINDOW, Table, seconds_shown, warning_before
from engine.fairness import commitment
from engine.views import view
from storage import Storage
from storage.records import Seat, TableStatus, User, is_former


class Drafts:
    """Reads the live tables (and of their state changes only each hand's screen: what it showed last and
    whether it is to sound) and the database; sends nothing."""

    def __init__(
        self,
        storage: Storage,
        tables: Mapping[int, Table],
        *,
        bot_username: str,
        default_language: str,
        members: ChatMembers | None = None,
    ) -> None:
        self.storage = storage
        self.tables = tables
        self.members = members  # whether the bot may delete messages in a group (None: it may not)
        self.bot_username = bot_username
        self.default_language = default_language

    def _live(self, table_id: int) -> Table | None:
        return self.tables.get(table_id)

    # ------------------------------------------------------------------ languages

    async def group_text(self, chat_id: int) -> Text:
        chat = await self.storage.chats.get(chat_id)
        return texts(chat.language if chat and chat.language else self.default_language)

    async def user_text(self, user_id: int) -> Text:
        user = await self.storage.users.get(user_id)
        if user is None:
            return texts(self.default_language)
        return texts(user.language or language_for(user.telegram_language, self.default_language))

    @staticmethod
    def _names(live: Table, t: Text) -> list[str]:
        return seat_names(live.names, [s.user_id is None for s in live.row.seats], t)

    # ------------------------------------------------------------------ drafts

    async def draft(self, key: Key) -> Draft | None:
        kind, table_id, seat = key
        if kind == "tidy":
            return await self._tidy_draft(table_id)
        live = self._live(table_id)
        if live is None:
            return None
        if kind in ("hand", "cards"):
            return await self._hand_draft(live, seat, group=kind == "cards")
        t = await self.group_text(live.row.chat_id)
        thread = live.row.thread_id or None
        if kind == "broken":
            return Draft(live.row.chat_id, None, t("table.broken"), None, thread)
        if kind == "result":
            return self._result_draft(live, t, thread)
        if live.game is not None and live.game.over and await self._tidy(live.row.chat_id):
            game_id = live.game_row.id if live.game_row else None
            names = self._names(live, t)
            summary = summary_text(view(live.game), names, t, minutes=_minutes(live) or 1, game_id=game_id)
            return Draft(live.row.chat_id, live.row.message_id, summary, None, thread)
        text, keyboard = self._table(live, t, await self._walked(live))
        called = await self._called(live, t)
        if called:
            text += "\n\n" + call_line(called, t)
        message_id, replaces = live.row.message_id, None
        if live.call(frozenset(user for user, _ in called)) and message_id is not None:
            message_id, replaces = None, message_id  # sent anew at the bottom of the chat: the mention sounds
        return Draft(live.row.chat_id, message_id, text, keyboard, thread, replaces=replaces)

    async def _called(self, live: Table, t: Text) -> list[tuple[int, str]]:
        """The players the table message calls by name to move now, (user id, name) (``callees``), where the
        bot is not an administrator of the group."""
        game = live.game
        on_clock = [s.user_id for s in live.row.seats if game is not None and s.seat in game.to_act()]
        users = {u: await self.storage.users.get(u) for u in on_clock if u is not None and not is_former(u)}
        called = callees(live, users.get, self._answerable)
        if not called or self.members is None or await self.members.bot_admin(live.row.chat_id):
            return []
        names = self._names(live, t)
        return [(user.id, names[seat]) for seat, user in called]

    def _answerable(self, chat_id: int, user_id: int) -> bool:
        """The bot may send this member an in-group message now as the answer to their press (bot.presenter
        knows the presses)."""
        return False

    def _result_draft(self, live: Table, t: Text, thread: int | None) -> Draft | None:
        """The result message, with its Rematch button while the rematch is open."""
        row = live.game_row
        if live.result is None or (row is not None and row.result_message_id == 0):
            return None  # no result yet, or one sent before its id was kept: it cannot be edited
        reveal = (row.salt, row.deck) if row and row.salt and row.deck else None
        text = result_text(
            live.result,
            self._names(live, t),
            t,
            rated=live.rated,
            ratings=live.ratings,
            minutes=_minutes(live),
            reveal=reveal,
            game_id=row.id if row else None,
        )
        keyboard = None
        if live.rematch_open:  # one rematch per game, while the table is remembered
            rematch = InlineKeyboardButton(
                t("lobby.rematch"), callback_data=encode(LobbyPress(live.id, "rematch"))
            )
            keyboard = InlineKeyboardMarkup([[rematch]])
        message_id = row.result_message_id if row is not None else None
        return Draft(live.row.chat_id, message_id, text, keyboard, thread)

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

    async def _walked(self, live: Table) -> set[int]:
        """The players seated in a lobby who left or ran out of time in most of their recent games here."""
        if live.row.status is not TableStatus.LOBBY:
            return set()
        users = [s.user_id for s in live.row.seats if s.user_id is not None and not is_former(s.user_id)]
        found = await self.storage.results.reliability(live.row.chat_id, users)
        return {user for user, recent in found.items() if recent.walked_away}

    def _table(self, live: Table, t: Text, walked: set[int]) -> tuple[str, InlineKeyboardMarkup | None]:
        table = live.row
        if table.status is TableStatus.CANCELLED:
            return t("table.abandoned" if table.broken_reason == ABANDONED else "lobby.cancelled"), None
        if table.status is TableStatus.BROKEN:
            return t("table.broken"), None
        if table.status is TableStatus.LOBBY or live.game is None:
            players = [
                cut(name) + (" ⏳" if seat.user_id in live.pending else "")
                for name, seat in zip(self._names(live, t), table.seats, strict=True)
            ]
            keyboard = lobby_keyboard(table.id, t, editing=live.editing_options, options=table.options)
            bots = live.editing_options or any(seat.user_id is None for seat in table.seats)
            creator = live.creator_name or t("forget.former")
            marked = [seat.seat for seat in table.seats if seat.user_id in walked]
            text = lobby_text(table.options, creator, players, t, bots=bots, walked=marked)
            if live.pending:
                text += "\n" + t("lobby.pending", seconds=round(REMATCH_WINDOW))
            return text, keyboard
        seconds = None
        if live.deadline is not None and not live.game.over:
            seconds = seconds_shown(live.deadline - live.env.clock(), live.row.options.move_timer)
        names = self._names(live, t)
        recent = [line for e in live.recent if (line := event_line(e, names, t))]
        row = live.game_row
        sealed = commitment(row.salt, row.deck) if row and row.salt and row.deck else None
        text = table_text(view(live.game), names, t, seconds_left=seconds, recent=recent, commitment=sealed)
        cards = InlineKeyboardButton(t("table.my_cards"), callback_data=encode(CardsPress(live.id)))
        return text, None if live.game.over else InlineKeyboardMarkup([[cards]])

    async def _hand_draft(self, live: Table, seat: int, *, group: bool) -> Draft | None:
        """A player's hand: in their private chat, or (``group``) in the table's group, seen only by them."""
        at = live.row.seats[seat]
        user = await self.storage.users.get(at.user_id) if at.user_id is not None else None
        if user is None or is_former(user.id):
            return None
        wanted = (in_group(user, at) or live.screen(seat).group.asked) if group else in_private(user)
        if not wanted:
            return None  # not where this player holds their cards
        t = await self.user_text(user.id)
        title = live.chat_title or str(live.row.chat_id)
        message_id = at.group_hand_id if group else at.hand_message_id

        def draft(text: str, keyboard: InlineKeyboardMarkup | None, replaces: int | None = None) -> Draft:
            shown = None if replaces is not None else message_id
            if group:
                thread = live.row.thread_id or None
                return Draft(
                    live.row.chat_id, shown, text, keyboard, thread, replaces=replaces, receiver=user.id
                )
            return Draft(user.id, shown, text, keyboard, replaces=replaces)

        if live.row.status in CLOSED or (live.game is not None and live.game.over):
            live.forget_screens()  # nothing will ring for these hands again
        if live.row.status in CLOSED:
            ended = "hand.cancelled" if live.row.status is TableStatus.CANCELLED else "hand.broken"
            if live.row.broken_reason == ABANDONED:
                ended = "hand.abandoned"
            return draft(hand_closed(t, title, t(ended)), None)
        if live.game is None:
            return None
        game = live.game
        v = view(game, seat)
        if game.over:
            text = hand_over(
                v, self._names(live, t), t, title, rating=live.ratings.get(seat), link=self.result_link(live)
            )
            return draft(text, None)
        selected = live.screen(seat).selected
        clock = None
        # A decided game is finished for its defender in a moment (docs/rules.md §7): no timer, no sound.
        on_clock = seat in v.to_act and not game.decided()
        if on_clock and live.deadline is not None:
            seconds = seconds_shown(live.deadline - live.env.clock(), live.row.options.move_timer)
            warning = game.would_miss(seat) and seconds <= warning_before(live.row.options.move_timer)
            clock = Clock(seconds, warning, game.misses[seat], game.rules.miss_limit)
        last = next((e for e in reversed(live.recent) if e.seat != seat), None)
        conceding = live.screen(seat).conceding
        names = self._names(live, t)
        text = hand_text(v, names, t, title, selected=selected, clock=clock, last=last, conceding=conceding)
        keyboard = hand_keyboard(v, live.row.id, t, selected=selected, conceding=conceding)
        if seat in v.conceded:
            state = "idle"  # a bot taking the seat sounds, but not one the player handed it by conceding
        else:
            state = "auto" if v.seats[seat].auto else "clock" if on_clock else "idle"
        # In the group the hand sounds only for a player who holds it nowhere else: one sound a turn.
        sounds = not group or not in_private(user)
        return draft(text, keyboard, live.ring(seat, message_id, state, group=group, sounds=sounds))

    def result_link(self, live: Table) -> str | None:
        """A link to the result message in the group (Telegram links messages of supergroups only)."""
        row = live.game_row
        chat = str(live.row.chat_id)
        if row is None or not row.result_message_id or not chat.startswith("-100") or len(chat) <= 4:
            return None
        return f"https://t.me/c/{chat[4:]}/{row.result_message_id}"


def _minutes(live: Table) -> int | None:
    """How long the table's game took, in whole minutes (one at least)."""
    row = live.game_row
    return max(1, round(((row.finished_at or live.env.clock()) - row.started_at) / 60)) if row else None


def callees(
    live: Table, user_of: Callable[[int], User | None], answerable: Callable[[int, int], bool]
) -> list[tuple[int, User]]:
    """Who the table message is to call by name now, (seat, user), where the bot is not an administrator of
    the group: the players on the clock whose turn cannot sound otherwise, since they hold their cards only
    in the group and have not pressed anything there a moment ago (which would let the bot send them their
    hand anew, sounding, as its answer)."""
    game = live.game
    if game is None or game.over or live.row.status is not TableStatus.PLAYING or game.decided():
        return []
    found = []
    for seat in game.to_act():
        at = live.row.seats[seat]
        if at.user_id is None or is_former(at.user_id) or live.is_bot_seat(seat):
            continue
        user = user_of(at.user_id)
        if user is not None and not in_private(user) and not answerable(live.row.chat_id, user.id):
            found.append((seat, user))
    return found


def in_private(user: User) -> bool:
    """The bot shows this user's hand in their private chat (nothing reaches one who blocked the bot until
    they write to it again: their hand is in the group meanwhile)."""
    return user.cards_place in ("private", "both") and user.started and not user.blocked


def in_group(user: User, at: Seat) -> bool:
    """... and in the group: as they chose, or because they asked for it there ("🃏 My cards")."""
    return user.cards_place != "private" or at.group_hand_id is not None or not in_private(user)
