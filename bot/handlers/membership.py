"""The bot's own membership of a group: hello when it is added, and the group's tables end when it is
removed (nothing more is sent there)."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType

from bot.handlers.common import Context, deps

_IN = (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def my_membership(update: Update, context: Context) -> None:
    change = update.my_chat_member
    if change is None or change.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return
    d = deps(context)
    d.members.forget(change.chat.id, change.new_chat_member.user.id)  # its rights may have changed
    was_in = change.old_chat_member.status in _IN
    is_in = change.new_chat_member.status in _IN
    if is_in and not was_in:
        t = await d.presenter.group_text(change.chat.id)
        await d.outbox.send(change.chat.id, t("alert.hello"))
    elif was_in and not is_in:
        d.outbox.refuse(change.chat.id)
        await d.service.close_chat(change.chat.id)
