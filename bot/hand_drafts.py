"""A player's hand as the last record of their table draws it: in their private chat, or in the table's group
seen only by them (an ephemeral message), in their language; whether it sounds is decided by bot.sounds."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.i18n import Text
from bot.messages import Draft
from bot.render.group import seat_names
from bot.render.hand import Clock, hand_closed, hand_over, hand_text
from bot.render.keyboard import hand_keyboard
from bot.service import ABANDONED, CLOSED, Published, warning_before
from bot.sounds import Sounds, Turn
from engine.views import view
from storage import Storage
from storage.records import Seat, TableStatus, User, is_former


class HandDrafts:
    def __init__(
        self,
        storage: Storage,
        sounds: Sounds,
        user_text: Callable[[int], Awaitable[Text]],
        web_link: Callable[[int], str | None] = lambda table_id: None,
    ) -> None:
        self.storage = storage
        self.sounds = sounds
        self.user_text = user_text
        self.web_link = web_link  # the web table's link (bot.drafts), shown under a private hand

    async def private(self, record: Published, seat: int) -> Draft | None:
        return await self.draft(record, seat, group=False)

    async def in_group(self, record: Published, seat: int) -> Draft | None:
        return await self.draft(record, seat, group=True)

    async def draft(self, record: Published, seat: int, *, group: bool) -> Draft | None:
        """The seat's hand: in its player's private chat, or (``group``) in the table's group."""
        at = record.row.seats[seat]
        user = await self.storage.users.get(at.user_id) if at.user_id is not None else None
        if user is None or is_former(user.id):
            return None
        asked = record.screen(seat).asked
        if group:
            wanted = in_group(user, at) or self.sounds.unanswered(record.id, seat, asked)
        else:
            wanted = in_private(user)
        if not wanted:
            return None  # not where this player holds their cards
        t = await self.user_text(user.id)
        title = record.chat_title or str(record.row.chat_id)
        message_id = at.group_hand_id if group else at.hand_message_id

        def draft(text: str, keyboard: InlineKeyboardMarkup | None, replaces: int | None = None) -> Draft:
            shown = None if replaces is not None else message_id
            if group:
                thread = record.row.thread_id or None
                return Draft(
                    record.row.chat_id, shown, text, keyboard, thread, replaces=replaces, receiver=user.id
                )
            return Draft(user.id, shown, text, keyboard, replaces=replaces)

        if record.row.status in CLOSED or (record.game is not None and record.game.over):
            self.sounds.forget(record.id)  # nothing will ring for these hands again
        if record.row.status in CLOSED:
            ended = "hand.cancelled" if record.row.status is TableStatus.CANCELLED else "hand.broken"
            if record.row.broken_reason == ABANDONED:
                ended = "hand.abandoned"
            return draft(hand_closed(t, title, t(ended)), None)
        if record.game is None:
            return None
        game = record.game
        v = view(game, seat)
        if game.over:
            text = hand_over(
                v,
                names_of(record, t),
                t,
                title,
                rating=record.ratings.get(seat),
                link=result_link(record),
                arena=record.row.arena_id is not None,
            )
            return draft(text, None)
        selected = record.screen(seat).selected
        clock = None
        # A decided game is finished for its defender in a moment (docs/rules.md §7): no timer, no sound.
        # (nor on a seat a bot plays: nobody waits for its player)
        on_clock = seat in v.to_act and not game.decided() and not v.seats[seat].auto
        if on_clock and record.seconds is not None:
            clock = Clock(record.seconds, warned(record, seat), game.misses[seat], game.rules.miss_limit)
        last = next((e for e in reversed(record.recent) if e.seat != seat), None)
        conceding = record.screen(seat).conceding
        names = names_of(record, t)
        text = hand_text(v, names, t, title, selected=selected, clock=clock, last=last, conceding=conceding)
        keyboard = hand_keyboard(v, record.row.id, t, selected=selected, conceding=conceding)
        link = None if group else self.web_link(record.id)
        if link is not None:
            opens = InlineKeyboardButton(t("web.open"), url=link)
            keyboard = InlineKeyboardMarkup([*keyboard.inline_keyboard, [opens]])
        turn: Turn = "idle"  # a bot taking the seat sounds, but not one the player handed it by conceding
        if seat not in v.conceded and v.seats[seat].auto:
            turn = "auto"
        elif seat not in v.conceded and on_clock:
            turn = "warned" if clock is not None and clock.warning else "clock"
        # In the group the hand sounds only for a player who holds it nowhere else: one sound a turn.
        sounds = not group or not in_private(user)
        ring = self.sounds.ring(
            record.id, seat, message_id, turn, group=group, sounds=sounds, asked=asked if group else 0
        )
        return draft(text, keyboard, ring)


def result_link(record: Published) -> str | None:
    """A link to the result message in the group (Telegram links messages of supergroups only)."""
    row = record.game_row
    chat = str(record.row.chat_id)
    if row is None or not row.result_message_id or not chat.startswith("-100") or len(chat) <= 4:
        return None
    return f"https://t.me/c/{chat[4:]}/{row.result_message_id}"


def names_of(record: Published, t: Text) -> list[str]:
    """The seats' names as a reader in language ``t`` reads them (an added bot's in that language)."""
    return seat_names(record.names, [s.user_id is None for s in record.row.seats], t)


def warned(record: Published, seat: int) -> bool:
    """The seat's player is about to miss a move that counts (the warning, with sound)."""
    game, seconds = record.game, record.seconds
    if game is None or seconds is None or seat not in record.to_act() or record.is_bot_seat(seat):
        return False
    return game.would_miss(seat) and seconds <= warning_before(record.move_timer())


def in_private(user: User) -> bool:
    """The bot shows this user's hand in their private chat (nothing reaches one who blocked the bot until
    they write to it again: their hand is in the group meanwhile)."""
    return user.cards_place in ("private", "both") and user.started and not user.blocked


def in_group(user: User, at: Seat) -> bool:
    """... and in the group: as they chose, or because they asked for it there ("🃏 My cards")."""
    return user.cards_place != "private" or at.group_hand_id is not None or not in_private(user)


def callees(
    record: Published, user_of: Callable[[int], User | None], answerable: Callable[[int, int], bool]
) -> list[tuple[int, User]]:
    """Who the table message is to call by name now, (seat, user), where the bot is not an administrator of
    the group: the players on the clock whose turn cannot sound otherwise, since they hold their cards only
    in the group and have not pressed anything there a moment ago (which would let the bot send them their
    hand anew, sounding, as its answer)."""
    to_act = record.to_act()  # none once the game is over or the table closed
    if not to_act or record.game is None or record.game.decided():
        return []
    found = []
    for seat in to_act:
        at = record.row.seats[seat]
        if at.user_id is None or is_former(at.user_id) or record.is_bot_seat(seat):
            continue
        user = user_of(at.user_id)
        if user is not None and not in_private(user) and not answerable(record.row.chat_id, user.id):
            found.append((seat, user))
    return found
