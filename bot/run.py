"""``python -m bot``: read the settings, check the database, hold it, run the bot, and exit with a status a
supervisor can act on (0 a clean stop; 2 a start refused, the line before says why; 3 a token Telegram
stopped accepting while running). Every line goes through the bot's log formatter, failures to start too."""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path

from telegram.error import InvalidToken, NetworkError

from bot import logs
from bot.app import ALLOWED_UPDATES, build_application, webhook_options
from bot.checks import check_database, listening, report, version
from bot.deps import revoked_of
from bot.revoked import REVOKED_EXIT
from bot.settings import Settings, SettingsError, load_settings
from storage import SchemaTooNew, StorageUnusable
from storage.lock import DatabaseLock, Held

log = logging.getLogger("bot")

REFUSED = 2  # the start refused: the line before says why


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Durak for Telegram groups.")
    parser.add_argument("--check", action="store_true", help="check the settings and the database, then exit")
    parser.add_argument("--version", action="version", version=version())
    check = parser.parse_args(argv).check
    logs.configure("INFO", "WARNING", "")  # until the settings say how: a settings error is a log line too
    try:
        settings = load_settings()
    except SettingsError as exc:
        return refused(str(exc))
    logs.configure(settings.log_level, settings.log_level_libs, settings.bot_token, style=settings.log_format)
    if check:
        return report(settings)
    lock = None if settings.database_url else DatabaseLock(Path(settings.database_path))
    try:
        if lock is not None:
            lock.acquire()  # held as long as this process runs (storage.lock)
        asyncio.run(check_database(settings))
    except Held as exc:
        return refused(f"{exc}: one bot process per SQLite file (PostgreSQL for several: docs/deploy.md)")
    except (StorageUnusable, SchemaTooNew) as exc:
        return refused(str(exc))
    return run(settings)


def run(settings: Settings) -> int:
    application = build_application(settings)
    try:
        if settings.webhook_url:
            application.run_webhook(**webhook_options(settings))
        else:
            application.run_polling(allowed_updates=ALLOWED_UPDATES)
    except InvalidToken:
        return refused("Telegram does not accept this BOT_TOKEN (check it with @BotFather)")
    except NetworkError as exc:
        return refused(f"cannot reach the Bot API at {settings.bot_api_url} ({exc})")
    except SchemaTooNew as exc:
        return refused(str(exc))
    except OSError as exc:  # a port of the bot's own servers taken (METRICS_PORT, WEB_PORT, WEBHOOK_PORT)
        return refused(f"{exc.strerror or exc} ({_ports(settings)})")
    return REVOKED_EXIT if revoked_of(application).seen else 0


def refused(why: str) -> int:
    log.critical("Cannot start: %s", why)
    return REFUSED


def _ports(settings: Settings) -> str:
    return ", ".join(f"{name} {host}:{port}" for name, host, port in listening(settings))
