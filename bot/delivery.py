"""One call to Telegram for one message: send it or edit it, and what Telegram's answer means.

An edit that would not change the message is not sent (what each message shows is remembered). A message
that can no longer be edited is sent anew. A 429 blocks the chat for its ``retry_after`` and a network failure
for a moment; either way the work is tried again (``TryAgain``, which says until when Telegram wants the chat
left alone). A 403 means the chat refuses the bot, and a group that became a supergroup says where it went:
both are reported to whoever sends. An ephemeral message is sent only as Telegram allows (bot.ephemeral): to a
server known to support them, and by a bot that is not an administrator only as the answer to its receiver's
press; an in-group hand that is gone and may not be sent anew now is reported (``Gone``).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from cachetools import LRUCache
from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, EndPointNotFound, Forbidden, RetryAfter, TelegramError

from bot import ephemeral
from bot.budget import COST
from bot.ephemeral import Grants, NotEphemeral, Support
from bot.messages import Draft, Gone, Pace, TryAgain, Unpaid

log = logging.getLogger("bot.outbox")

RefusedHook = Callable[[int], Awaitable[None]]
MigratedHook = Callable[[int, int], Awaitable[None]]
# Whether the bot may send ephemeral messages into a group at any time (it is an administrator there).
PushHook = Callable[[int], Awaitable[bool]]
# What Telegram says of an edit whose message is gone (deleted, too old, or an ephemeral one it dropped).
GONE = ("not found", "can't be edited", "message_id_invalid")
BATCH = 100  # messages deleteMessages takes at once
SHOWN_KEPT = 10_000  # messages whose text is remembered: a forgotten one is at worst edited once more


class Delivery:
    def __init__(
        self,
        bot: Bot,
        *,
        on_refused: RefusedHook,
        on_migrated: MigratedHook,
        clock: Callable[[], float] = time.monotonic,
        pushes: PushHook | None = None,
    ) -> None:
        self.bot = bot
        self.on_refused = on_refused
        self.on_migrated = on_migrated
        self.clock = clock
        self.support = Support(bot)
        self.grants = Grants(clock)
        self.pushes = pushes
        self.delivered = clock()  # when Telegram last took a call (bot.watch: is the outbox draining?)
        # (chat, message, receiver or 0) -> what it shows (its fingerprint)
        self._shown: LRUCache[tuple[int, int, int], bytes] = LRUCache(SHOWN_KEPT)

    def held(self) -> dict[str, int]:
        """Entries of its in-memory maps now (each bounded)."""
        return {"shown": len(self._shown), "grants": self.grants.held()}

    async def deliver(self, chat: Pace, draft: Draft, again: bool = False, paid: bool = False) -> int | None:
        """Send or edit (a new one ``paid`` for, bot.paid); its id, or None when nothing was sent."""
        if draft.deletes:
            await self._delete_many(chat, draft.chat_id, draft.deletes)
            return None
        if draft.receiver is not None:
            allowed = await self._allowed(draft)
            if allowed is None:
                return None
            draft = allowed
        shown = _fingerprint(draft)
        if draft.message_id is not None and self._shown.get(_where(draft, draft.message_id)) == shown:
            return draft.message_id  # it shows that already: an edit would change nothing
        sending = draft.message_id is None
        method = (
            ("sendMessage" if sending else "editMessageText")
            if draft.receiver is None
            else ("sendMessage (ephemeral)" if sending else "editEphemeralMessageText")
        )
        try:
            return await self._call(chat, draft, shown, again, paid and sending and draft.receiver is None)
        finally:
            # Counted from when Telegram answered: a request that waited in a queue on the way still leaves
            # the next one in this chat its full spacing.
            self._spent(chat, method)

    async def _allowed(self, draft: Draft) -> Draft | None:
        """An in-group hand as Telegram allows it to be sent now: to a server that knows ephemeral messages;
        a new one by an administrator, or as the answer to its receiver's press or command
        (``Draft.answers``); where neither, the one it was to replace (to sound) is edited instead, and with
        none to edit, None."""
        assert draft.receiver is not None
        if not await self.support.check():
            return None
        if draft.message_id is not None or (self.pushes is not None and await self.pushes(draft.chat_id)):
            return draft
        grant = self.grants.fresh(draft.chat_id, draft.receiver)
        if grant is not None:
            return replace(draft, answers=grant)
        if draft.replaces is not None:
            return replace(draft, message_id=draft.replaces, replaces=None)
        return None

    def _spent(self, chat: Pace, method: str) -> None:
        """One call made into ``chat``, counted as budget.COST says."""
        cost = COST[method]
        chat.calls += cost
        chat.sent.extend([self.clock()] * cost)

    async def _call(self, chat: Pace, draft: Draft, shown: bytes, again: bool, paid: bool) -> int | None:
        chat_id = draft.chat_id
        try:
            if draft.receiver is not None:
                message_id = await self._ephemeral(chat, draft)
            elif draft.message_id is None:
                sent = await self.bot.send_message(
                    chat_id,
                    draft.text,
                    reply_markup=draft.keyboard,
                    message_thread_id=draft.thread_id,
                    reply_to_message_id=draft.reply_to,
                    allow_sending_without_reply=True,
                    disable_web_page_preview=True,
                    allow_paid_broadcast=paid or None,
                )
                message_id = sent.message_id
                if draft.replaces is not None:
                    await self.delete(chat_id, draft.replaces, pace=chat)
            else:
                await self.bot.edit_message_text(
                    draft.text,
                    chat_id=chat_id,
                    message_id=draft.message_id,
                    reply_markup=draft.keyboard,
                    disable_web_page_preview=True,
                )
                message_id = draft.message_id
        except RetryAfter as exc:
            raise self._wait(chat, chat_id, exc) from None  # Telegram pacing us: tried as long as it takes
        except BadRequest as exc:
            if paid:
                raise Unpaid(exc.message) from None
            text = exc.message.lower()
            if "not modified" in text and draft.message_id is not None:
                self._shown[_where(draft, draft.message_id)] = shown
                return draft.message_id
            if draft.message_id is not None and any(gone in text for gone in GONE) and not again:
                fresh = Draft(
                    chat_id, None, draft.text, draft.keyboard, draft.thread_id, receiver=draft.receiver
                )
                found = await self.deliver(chat, fresh, again=True)  # gone: sent anew
                if found is None and draft.receiver is not None:
                    raise Gone from None
                return found
            log.error("Telegram refused a message in chat %s: %s", chat_id, exc.message)
            return None
        except (NotEphemeral, EndPointNotFound):  # a server older than ephemeral messages
            self.support.lost()
            return None
        except Forbidden:
            log.info("chat %s does not accept messages from the bot: nothing more is sent there", chat_id)
            await self.on_refused(chat_id)
            return None
        except ChatMigrated as exc:
            await self.on_migrated(chat_id, exc.new_chat_id)
            return None
        except TelegramError as exc:  # a network failure or a 5xx: the same work again, later (bot.sender)
            raise TryAgain.failed(exc) from None
        self._shown[_where(draft, message_id)] = shown
        self.delivered = self.clock()
        return message_id

    def _wait(self, chat: Pace, chat_id: int, exc: RetryAfter) -> TryAgain:
        """A 429: nothing more goes into this chat (by any lane) before its ``retry_after``."""
        delay = exc.retry_after
        seconds = delay if isinstance(delay, int | float) else delay.total_seconds()
        chat.blocked_until = self.clock() + float(seconds)
        log.warning("429 in chat %s: waiting %s s, then trying again", chat_id, seconds)
        return TryAgain(failure=False, chat_id=chat_id, until=chat.blocked_until)

    async def _ephemeral(self, chat: Pace, draft: Draft) -> int:
        """Send or edit an in-group message that only ``draft.receiver`` sees (as ``_allowed`` made it)."""
        assert draft.receiver is not None
        chat_id, receiver = draft.chat_id, draft.receiver
        if draft.message_id is not None:
            await ephemeral.edit(self.bot, chat_id, receiver, draft.message_id, draft.text, draft.keyboard)
            return draft.message_id
        message_id = await ephemeral.send(
            self.bot, chat_id, receiver, draft.text, draft.keyboard, draft.thread_id, grant=draft.answers
        )
        if draft.answers is not None:
            self.grants.spend(chat_id, receiver, draft.answers)
        if draft.replaces is not None:
            await self.delete(chat_id, draft.replaces, receiver, pace=chat)
        return message_id

    async def _delete_many(self, chat: Pace, chat_id: int, message_ids: tuple[int, ...]) -> None:
        """Delete messages of a chat, a hundred a call. Each is tried once: one Telegram will not delete (too
        old, the right taken away) stays, and is not tried again. A 429 or a network failure tries the rest
        again (``TryAgain``)."""
        for start in range(0, len(message_ids), BATCH):
            batch = list(message_ids[start : start + BATCH])
            for message_id in batch:
                self._shown.pop((chat_id, message_id, 0), None)
            try:
                await self.bot.delete_messages(chat_id, batch)
            except RetryAfter as exc:
                raise self._wait(chat, chat_id, exc) from None
            except BadRequest as exc:
                log.info("could not delete %d messages in chat %s: %s", len(batch), chat_id, exc.message)
            except Forbidden:
                await self.on_refused(chat_id)  # the bot left the group: nothing more goes there
                return
            except TelegramError as exc:  # as a send that failed: tried again after bot.sender's back-off
                raise TryAgain.failed(exc, "deleting: ") from None
            finally:
                self._spent(chat, "deleteMessages")

    async def delete(
        self, chat_id: int, message_id: int, receiver: int | None = None, *, pace: Pace | None = None
    ) -> None:
        """Best effort: a message that cannot be deleted any more (gone, too old) just stays."""
        self._shown.pop((chat_id, message_id, receiver or 0), None)
        if pace is not None:
            self._spent(pace, "deleteMessage" if receiver is None else "deleteEphemeralMessage")
        try:
            if receiver is not None:
                await ephemeral.delete(self.bot, chat_id, receiver, message_id)
            else:
                await self.bot.delete_message(chat_id, message_id)
        except TelegramError as exc:
            log.info("could not delete message %s in chat %s: %s", message_id, chat_id, exc)


def _fingerprint(draft: Draft) -> bytes:
    """What a message shows, as 16 bytes: the text and the keyboard a few kilobytes each are not kept for every
    message remembered (a collision, one in 2**128, would cost one edit not made)."""
    keyboard = draft.keyboard.to_dict() if draft.keyboard else None
    return hashlib.blake2b(repr((draft.text, keyboard)).encode(), digest_size=16).digest()


def _where(draft: Draft, message_id: int) -> tuple[int, int, int]:
    """A message's key among those shown: ephemeral ids are numbered apart from the chat's own."""
    return (draft.chat_id, message_id, draft.receiver or 0)
