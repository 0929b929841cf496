"""Ephemeral messages (Bot API 10.3): a message in a group that only one member sees, with its own keyboard.

python-telegram-bot 22.8 predates them, so this module is the one place that knows their wire format: the
new methods go through ``Bot.do_api_request``, the new parameter of sendMessage through its ``api_kwargs``
(PTB still raises its usual errors: RetryAfter, BadRequest, ...), and the fields PTB does not know arrive in
``api_kwargs`` of what it parses. A PTB release with native support replaces only this module.

Telegram's rules ("Ephemeral Messages and Commands"): an administrator bot may send one to any member at any
time; any other bot only within 15 seconds of that member's own action (a ``Grant``): a press, quoting its
``callback_query_id``, or an ephemeral command (Bot API 10.2: a command the menu marks ``is_ephemeral``,
which the group does not see), answered as a reply to it. Edits and deletions of a message already sent need
neither. Telegram does not promise delivery (a user offline,
or on a client too old to show them, never sees one), nor that one is still there later (they expire, and
vanish when the app restarts): the bot never relies on one being seen.

A server older than 10.3 does not know the parameter and, as with any unknown parameter, ignores it: the
message would go to the whole group. So nothing is sent before ``Support`` has found that the server knows
the methods (a probe that sends nothing), and an answer that is not an ephemeral message is deleted at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, MaybeInaccessibleMessage
from telegram.error import BadRequest, EndPointNotFound, TelegramError

log = logging.getLogger("bot.outbox")

GRANT_SECONDS = 13.0  # a press allows a send for 15 s: a send later than this may reach Telegram too late


@dataclass(frozen=True, slots=True)
class Grant:
    """A member's action that lets a bot that is not an administrator send them one ephemeral message for 15
    seconds: a press of a button (its callback query id) or an ephemeral command (its ephemeral id)."""

    press: str | None = None
    command: int | None = None


class NotEphemeral(TelegramError):
    """The server posted an ordinary message where an ephemeral one was asked for (it predates them). The
    message has been deleted; nothing of the kind is to be sent to this server again."""


async def send(
    bot: Bot,
    chat_id: int,
    receiver: int,
    text: str,
    keyboard: InlineKeyboardMarkup | None,
    thread_id: int | None = None,
    *,
    grant: Grant | None = None,
) -> int:
    """Send ``text`` into group ``chat_id`` for ``receiver`` only; the ephemeral message's id. ``grant``: the
    receiver's action that allows it (a bot that is not an administrator needs one). (PTB's own sendMessage,
    the new parameters passed through: its other parameters and defaults keep working.)"""
    params: dict[str, Any] = {"receiver_user_id": receiver}
    extra: dict[str, Any] = {"ephemeral_message_parameters": params}
    if grant is not None and grant.press is not None:
        params["callback_query_id"] = grant.press
    if grant is not None and grant.command is not None:
        extra["reply_parameters"] = {"ephemeral_message_id": grant.command}
    sent = await bot.send_message(
        chat_id,
        text,
        reply_markup=keyboard,
        message_thread_id=thread_id,
        disable_web_page_preview=True,
        api_kwargs=extra,
    )
    found = message_id(sent)
    if found is None:
        with contextlib.suppress(TelegramError):  # everybody can see it: gone before anyone reads it
            await bot.delete_message(chat_id, sent.message_id)
        raise NotEphemeral("the server sent an ordinary message where an ephemeral one was asked for")
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


class Support:
    """Whether the Bot API server knows ephemeral messages: asked once, by calling one of their methods with
    nothing (a server that knows it refuses the empty call, one that does not answers 404), which sends and
    shows nothing. Until the answer is known, no in-group hand is sent."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.known: bool | None = None
        self._lock = asyncio.Lock()

    async def check(self) -> bool:
        if self.known is None:
            async with self._lock:
                if self.known is None:
                    self.known = await _probe(self.bot)
                    if self.known is False:
                        self._say()
        return bool(self.known)

    def lost(self) -> None:
        """The server sent a hand to the whole group: it does not know ephemeral messages after all."""
        if self.known is not False:
            self.known = False
            self._say()

    @staticmethod
    def _say() -> None:
        log.error(
            "the Bot API server does not support ephemeral messages (Bot API 10.3): cards are not shown in "
            "groups; players get them in private (BOT_API_URL: update the local server, or use Telegram's)"
        )


async def _probe(bot: Bot) -> bool | None:
    """True: the server knows ephemeral messages; False: it does not; None: it did not answer (asked again
    next time)."""
    try:
        await bot.do_api_request("deleteEphemeralMessage", api_kwargs={})
    except EndPointNotFound:
        return False
    except BadRequest:
        return True  # the empty call refused: the method is there
    except TelegramError as exc:
        log.warning("could not ask the Bot API server about ephemeral messages (%s); asking again later", exc)
        return None
    return True


class Grants:
    """Members' actions in groups (``Grant``), each allowing a bot that is not an administrator there to send
    them one ephemeral message within 15 seconds: the newest per member of each group, until it is spent or
    too old."""

    KEPT = 10_000  # actions remembered at most (memory stays bounded: old ones are dropped first)

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._by: dict[tuple[int, int], tuple[Grant, float]] = {}

    def held(self) -> int:
        return len(self._by)

    def note(self, chat_id: int, user_id: int, grant: Grant) -> None:
        if len(self._by) >= self.KEPT:
            too_old = self.clock() - GRANT_SECONDS
            self._by = {k: v for k, v in self._by.items() if v[1] > too_old}
        self._by[(chat_id, user_id)] = (grant, self.clock())

    def fresh(self, chat_id: int, user_id: int) -> Grant | None:
        """The action that allows a send to this member now, if there is one."""
        found = self._by.get((chat_id, user_id))
        if found is None or found[1] <= self.clock() - GRANT_SECONDS:
            return None
        return found[0]

    def spend(self, chat_id: int, user_id: int, grant: Grant) -> None:
        """One message was sent as the answer to this action: it allows no other."""
        if self._by.get((chat_id, user_id), (None, 0.0))[0] == grant:
            del self._by[(chat_id, user_id)]
