"""When something goes wrong: a press nobody else handles (stale, forged or cut data, or of a kind its
message never carries), and a handler that raised."""

from __future__ import annotations

import contextlib
import logging
import traceback
from typing import Any

from telegram import Message, Update
from telegram.error import TelegramError
from telegram.ext import CallbackQueryHandler

from bot import metrics
from bot.buttons import drawn_under
from bot.handlers.common import Context, answer, deps, reply
from bot.i18n import language_for, texts
from bot.messages import short
from bot.service import Refusal, Verdict

log = logging.getLogger(__name__)


class Misplaced(CallbackQueryHandler[Any, None]):
    """Takes a press of a kind the message it came from never carries (bot.buttons.drawn_under): a forged
    one, or one from a keyboard that changed since. Where Telegram does not give the message with its buttons
    (older than 48 hours; an ephemeral one, as a server may give it), the handlers check the press as always."""

    def check_update(self, update: object) -> bool | object | None:
        if (
            not isinstance(update, Update)
            or update.callback_query is None
            or not super().check_update(update)
        ):
            return None
        query = update.callback_query
        message = query.message
        if not isinstance(message, Message) or query.data is None:
            return None
        markup = message.reply_markup
        if markup is None and (message.message_id == 0 or "ephemeral_message_id" in message.api_kwargs):
            return None
        rows = markup.inline_keyboard if markup else ()
        shown = [b.callback_data for row in rows for b in row if isinstance(b.callback_data, str)]
        return None if drawn_under(query.data, shown) else True


async def unknown_press(update: Update, context: Context) -> None:
    """The last press handler: data no other handler took (out of date, forged, or not ours)."""
    query = update.callback_query
    if query is not None:
        tg = update.effective_user
        t = await deps(context).presenter.user_text(tg.id) if tg else texts(language_for(None))
        await answer(query, t, Verdict.refused(Refusal.STALE))


async def on_error(update: object, context: Context) -> None:
    """A handler raised: log one line (where and what), and still answer the person who is waiting."""
    error = context.error
    if update is None and isinstance(error, TelegramError):
        # Polling for updates failed (a network failure, Telegram's 5xx): PTB asks again after its own
        # back-off (1 s, growing to 30 s). Nothing a person must do unless it lasts: readiness and the
        # "no updates" alert say so (docs/operations.md).
        log.warning(
            "asking Telegram for updates failed (%s: %s); asking again", type(error).__name__, short(error)
        )
        return
    metrics.HANDLER_EXCEPTIONS.inc()
    where = ""
    if error is not None and error.__traceback__ is not None:
        frame = traceback.extract_tb(error.__traceback__)[-1]
        where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
    kind = "update"
    if isinstance(update, Update):
        kind = "press" if update.callback_query else "message" if update.effective_message else "update"
    log.error("handling a %s failed%s: %s: %s", kind, where, type(error).__name__, error)
    log.debug("the failure in full", exc_info=error)
    if not isinstance(update, Update):
        return
    tg = update.effective_user
    t = texts(language_for(tg.language_code if tg else None))
    with contextlib.suppress(TelegramError):  # already answered, or Telegram is the problem: nothing more
        if update.callback_query is not None:
            await update.callback_query.answer(t("alert.error"), show_alert=True)
        elif update.effective_message is not None:
            await reply(deps(context), update.effective_message, t("alert.error"))
