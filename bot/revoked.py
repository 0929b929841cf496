"""A token Telegram stops accepting while the bot runs (revoked in @BotFather after a leak): every call then
answers 401. PTB's polling gives up at the first one ("Invalid token. Aborting retry loop.") and the process
would stay up, deaf and "healthy", its timers handing the seats of players who can no longer press to bots.
Instead the first 401 stops the bot: one line at ERROR, nothing flushed (nothing can be sent), and
``python -m bot`` exits non-zero, so that its supervisor restarts it and the failure shows."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from telegram.error import TelegramError
from telegram.ext import Application

log = logging.getLogger(__name__)

REVOKED_EXIT = 3  # python -m bot's exit status after Telegram stopped accepting the token


class Revoked:
    def __init__(self) -> None:
        self.application: Application[Any, Any, Any, Any, Any, Any] | None = None
        self.seen = False  # Telegram answered 401 while the bot was running

    def unauthorized(self) -> None:
        """A Bot API call was answered 401 (bot.metrics.MeteredRequest). At start-up PTB itself refuses the
        token (python -m bot says so); while running, the bot stops."""
        application = self.application
        if self.seen or application is None or not application.running:
            return
        self.seen = True
        log.error("Telegram no longer accepts the bot token (revoked in @BotFather?): stopping")
        application.create_task(_stop(application))


async def _stop(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """The updater first: its polling loop ends on the same 401 with InvalidToken, which PTB's own stop would
    raise on, cutting the shutdown short (the database left open, the process hanging on its thread)."""
    updater = application.updater
    if updater is not None and updater.running:
        with contextlib.suppress(TelegramError):
            await updater.stop()
    application.stop_running()
