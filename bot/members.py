"""Who belongs to a group and who runs it, and whether the bot may delete messages there, as Telegram says
(getChatMember), remembered for a minute so a busy lobby does not ask again on every press."""

from __future__ import annotations

import time
from collections.abc import Callable

from telegram import Bot, ChatMemberAdministrator, ChatMemberOwner, ChatMemberRestricted
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

TTL = 60.0  # seconds an answer is kept: a new admin or member waits at most this long
_ADMINS = (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


PRUNE_FIRST = 256  # members known before the expired ones are looked for and dropped


class ChatMembers:
    def __init__(self, bot: Bot, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.bot = bot
        self.clock = clock
        # -> (until, member, admin, may delete others' messages)
        self._known: dict[tuple[int, int], tuple[float, bool, bool, bool]] = {}
        self._prune_at = PRUNE_FIRST

    def held(self) -> int:
        return len(self._known)

    async def _ask(self, chat_id: int, user_id: int) -> tuple[bool, bool, bool]:
        now = self.clock()
        known = self._known.get((chat_id, user_id))
        if known is not None and known[0] > now:
            return known[1], known[2], known[3]
        if len(self._known) > self._prune_at:  # memory follows the last minute's members: drop what expired
            self._known = {k: v for k, v in self._known.items() if v[0] > now}
            self._prune_at = max(PRUNE_FIRST, 2 * len(self._known))
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError:  # not a user of that chat, or the bot is not in it: neither member nor admin
            answer = (False, False, False)
        else:
            admin = member.status in _ADMINS
            inside = admin or member.status == ChatMemberStatus.MEMBER
            if isinstance(member, ChatMemberRestricted):
                inside = member.is_member
            deletes = isinstance(member, ChatMemberOwner) or (
                isinstance(member, ChatMemberAdministrator) and member.can_delete_messages
            )
            answer = (inside, admin, deletes)
        self._known[(chat_id, user_id)] = (now + TTL, *answer)
        return answer

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        return (await self._ask(chat_id, user_id))[0]

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return (await self._ask(chat_id, user_id))[1]

    def forget(self, chat_id: int, user_id: int) -> None:
        """Telegram told us this member changed (the bot was made an admin, say): ask again next time."""
        self._known.pop((chat_id, user_id), None)

    async def bot_admin(self, chat_id: int) -> bool:
        """The bot is an administrator of this group: it may send ephemeral messages there at any time, not
        only as the answer to a press (bot.ephemeral)."""
        return (await self._ask(chat_id, self.bot.id))[1]

    def known_admin(self, chat_id: int) -> bool | None:
        """Whether the bot is an administrator of this group, as last asked (None: not known now); never
        asks Telegram."""
        known = self._known.get((chat_id, self.bot.id))
        return known[2] if known is not None and known[0] > self.clock() else None

    async def bot_deletes(self, chat_id: int) -> bool:
        """The bot may delete everybody's messages in this group (an admin given that right)."""
        return (await self._ask(chat_id, self.bot.id))[2]
