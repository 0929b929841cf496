"""Ephemeral messages (Bot API 10.2): a message in a group that only one member sees, with its own keyboard.

python-telegram-bot 22.8 predates them, so this module is the one place that knows their wire format: the
new methods go through ``Bot.do_api_request``, the new parameter of sendMessage through its ``api_kwargs``
(PTB still raises its usual errors: RetryAfter, BadRequest, ...), and the fields PTB does not know arrive in
``api_kwargs`` of what it parses. A PTB release with native support replaces only
this module. Telegram does not promise delivery (a user offline, or on a client too old to show them, never
sees one), nor that one is still there later: the bot never relies on one being seen.
"""

from __future__ import annotations

from typing import Any

from telegram import Bot, InlineKeyboardMarkup, MaybeInaccessibleMessage
from telegram.error import TelegramError


async def send(
    bot: Bot,
    chat_id: int,
    receiver: int,
    text: str,
    keyboard: InlineKeyboardMarkup | None,
    thread_id: int | None = None,
) -> int:
    """Send ``text`` into group ``chat_id`` for ``receiver`` only; the ephemeral message's id. (PTB's own
    sendMessage, the new parameter passed through: its other parameters and defaults keep working.)"""
    sent = await bot.send_message(
        chat_id,
        text,
        reply_markup=keyboard,
        message_thread_id=thread_id,
        disable_web_page_preview=True,
        api_kwargs={"ephemeral_message_parameters": {"receiver_user_id": receiver}},
    )
    found = message_id(sent)
    if found is None:
        raise TelegramError("Telegram sent an ordinary message where an ephemeral one was asked for")
    return found


async def edit(
    bot: Bot,
    chat_id: int,
    receiver: int,
    message_id: int,
    text: str,
    keyboard: InlineKeyboardMarkup | None,
) -> None:
    params: dict[str, Any] = {
        "chat_id": chat_id,
        "receiver_user_id": receiver,
        "ephemeral_message_id": message_id,
        "text": text,
        "parse_mode": "HTML",
        "link_preview_options": {"is_disabled": True},
    }
    if keyboard is not None:
        params["reply_markup"] = keyboard
    await bot.do_api_request("editEphemeralMessageText", api_kwargs=params)


async def delete(bot: Bot, chat_id: int, receiver: int, message_id: int) -> None:
    params = {"chat_id": chat_id, "receiver_user_id": receiver, "ephemeral_message_id": message_id}
    await bot.do_api_request("deleteEphemeralMessage", api_kwargs=params)


def message_id(message: MaybeInaccessibleMessage | None) -> int | None:
    """The ephemeral id of the message a button was pressed under; None for an ordinary message."""
    found = message.api_kwargs.get("ephemeral_message_id") if message is not None else None
    return int(found) if isinstance(found, int) else None
