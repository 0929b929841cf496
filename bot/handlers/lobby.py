"""The lobby in a group: /newgame, /join, /leave, /startgame, /cancel, and the lobby's buttons."""

from __future__ import annotations

import html

from telegram import CallbackQuery, Message, Update

from bot.callbacks import LobbyPress
from bot.deps import Deps
from bot.handlers.common import (
    Context,
    alert,
    answer,
    asked,
    deps,
    is_admin,
    opening,
    pressed,
    reply,
    thread_of,
)
from bot.render.group import short
from bot.render.lobby import option_label
from bot.service import Published, Refusal, Verdict
from engine.options import CHOICES
from storage.records import TableStatus, User

REASON = 100  # characters of a /kick's reason shown to the group


async def new_game(update: Update, context: Context) -> None:
    found = await asked(update, context)
    if found is None:
        return
    d, message, user = found
    options = await opening(context, d, message, user)
    if options is None:
        return
    verdict = await d.service.open_lobby(
        message.chat_id, thread_of(message), user, message.chat.title or "", options
    )
    answer = None
    if not verdict.ok:
        answer = await reply(d, message, alert(await d.presenter.group_text(message.chat_id), verdict))
    # The table opened (or the one that is in the way) takes the command, and the refusal, with it when it ends.
    await _note(d, verdict.table_id, message, answer)


async def table_command(update: Update, context: Context) -> None:
    """/join, /leave, /startgame and /cancel act on the open table of this chat (or forum topic)."""
    found = await asked(update, context)
    if found is None or not found[1].text:
        return
    d, message, user = found
    t = await d.presenter.group_text(message.chat_id)
    table = d.service.here(message.chat_id, thread_of(message))
    if table is None:
        await reply(d, message, t("alert.no_table"))
        return
    command = message.text.split()[0].split("@")[0].lstrip("/") if message.text else ""
    verdict = await _lobby_action(context, user, table, command)
    answer = None
    if not verdict.ok:
        answer = await reply(d, message, alert(t, verdict))
    await _note(d, table.id, message, answer)


async def _note(d: Deps, table_id: int | None, message: Message, answer: int | None) -> None:
    """A command for a table, and the bot's answer to it, are deleted when the table ends (a tidy chat)."""
    if table_id is not None:
        await d.service.note(table_id, message.message_id, *([answer] if answer is not None else []))


async def kick_command(update: Update, context: Context) -> None:
    """/kick in reply to a player's message (a reason may follow): the host or an admin frees their seat in
    the lobby, or hands it to a bot for the rest of the game; the group is told who did it, and why."""
    found = await asked(update, context)
    if found is None:
        return
    d, message, user = found
    t = await d.presenter.group_text(message.chat_id)
    target = message.reply_to_message.from_user if message.reply_to_message else None
    table = d.service.here(message.chat_id, thread_of(message))
    if target is None or target.is_bot:
        await reply(d, message, t("kick.how"))
        return
    if table is None:
        await reply(d, message, t("alert.no_table"))
        return
    playing = table.row.status is TableStatus.PLAYING
    verdict = await d.service.kick(table.id, target.id, user.id, await _admin(context, table, user))
    if not verdict.ok:
        await reply(d, message, alert(t, verdict))
        return
    name = short(target.full_name)
    lines = [t("kick.game" if playing else "kick.lobby", by=short(user.display_name), name=name)]
    reason = " ".join((message.text or "").split()[1:])[:REASON]
    if reason:
        lines.append(t("kick.reason", reason=html.escape(reason)))
    await reply(d, message, "\n".join(lines))


async def lobby_press(update: Update, context: Context) -> None:
    """A lobby button (``L:``): it counts only in the table's own chat."""
    found = await pressed(update, context, LobbyPress)
    if found is None:
        return
    d, query, user, t, press = found
    table = d.service.table(press.table_id)
    if table is None:
        await answer(query, t, Verdict.refused(Refusal.NO_TABLE))
        return
    if not await _in_its_chat(d, query, table, user):
        await answer(query, t, Verdict.refused(Refusal.OTHER_CHAT))
        return
    if press.action == "rematch":
        verdict = await d.service.rematch(press.table_id, user)
    elif press.action in ("options", "done"):
        verdict = await d.service.toggle_options(table.id, user.id, await _admin(context, table, user))
    elif press.action == "set":
        admin = await _admin(context, table, user)
        verdict = await d.service.set_option(table.id, user.id, admin, press.option)
    else:
        verdict = await _lobby_action(context, user, table, press.action)
    if verdict.ok and verdict.options is not None and press.option in CHOICES:
        await query.answer(option_label(verdict.options, press.option, t))  # the value this press set
    elif verdict.ok and press.action == "join" and user.cards_place == "group":
        await query.answer(t("alert.cards_in_group"))  # no private chat needed: where the cards will be
    else:
        await answer(query, t, verdict)


async def _in_its_chat(d: Deps, query: CallbackQuery, table: Published, user: User) -> bool:
    """Whether a lobby press came from the table's own chat: its message says so; a press that came without
    it (bot.handlers.common) counts from a member of that chat."""
    if query.message is not None:
        return query.message.chat.id == table.row.chat_id
    return query.inline_message_id is not None and await d.members.is_member(table.row.chat_id, user.id)


async def _admin(context: Context, table: Published, user: User) -> bool:
    """A group admin other than the creator may run the table too (the creator never needs to be asked)."""
    return user.id != table.row.creator_id and await is_admin(context, table.row.chat_id, user.id)


async def _lobby_action(context: Context, user: User, table: Published, action: str) -> Verdict:
    """Join, leave, deal, cancel or add a bot. Anyone may join: who has not started the bot privately
    holds their cards in the group (bot.ephemeral)."""
    service = deps(context).service
    if action == "join":
        return await service.join(table.id, user)
    if action == "leave":
        return await service.leave(table.id, user.id)
    if action not in ("startgame", "start", "cancel", "bot"):
        return Verdict.refused(Refusal.STALE)
    admin = await _admin(context, table, user)
    if action == "cancel":
        return await service.cancel(table.id, user.id, admin)
    if action == "bot":
        return await service.add_bot(table.id, user.id, admin)
    return await service.start(table.id, user.id, admin)
