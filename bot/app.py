"""Wiring: build the Application, open storage, connect the service, the sender and the timers, and
register the handlers. ``python -m bot`` runs it (bot.run)."""

from __future__ import annotations

import gc
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from telegram import Update
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationBuilder, ContextTypes, Defaults, TypeHandler
from telegram.request import BaseRequest, HTTPXRequest

import engine
from bot import handlers, logs, metrics, profile, retention, seasons, watch
from bot.cluster import Cluster
from bot.deps import Deps, keep, keep_settings, revoked_of, settings_of, started
from bot.http import AiohttpRequest
from bot.members import ChatMembers
from bot.outbox import Outbox
from bot.presenter import Presenter
from bot.revoked import Revoked
from bot.service import TableService
from bot.settings import Settings
from bot.thinking import Thinker
from bot.timers import JobScheduler
from bot.web.server import serve, watch_tables
from storage import Storage

log = logging.getLogger("bot")

FLUSH_SECONDS = 5.0  # on a clean stop, how long waiting messages may still go out
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]  # what the handlers handle


def build_application(
    settings: Settings, *, request: BaseRequest | None = None, updates_request: BaseRequest | None = None
) -> Application[Any, Any, Any, Any, Any, Any]:
    builder = (
        ApplicationBuilder()
        .token(settings.bot_token)
        .base_url(settings.bot_api_url)
        .concurrent_updates(True)  # tables are serialised by their own locks, not by PTB
        .defaults(Defaults(parse_mode=ParseMode.HTML))  # every text the bot writes is HTML, names escaped
        .post_init(_started)
        .post_stop(_stopping)
        .post_shutdown(_stopped)
    )
    if request is None and settings.telegram_http == "aiohttp":
        request = AiohttpRequest(settings.telegram_connections)
        updates_request = AiohttpRequest(1, read_timeout=None)
    elif request is None:
        request = HTTPXRequest(connection_pool_size=settings.telegram_connections)
        updates_request = HTTPXRequest(connection_pool_size=1)
    # Every Bot API call is counted by method and result (bot.metrics); a 401 stops the bot (bot.revoked).
    revoked = Revoked()
    builder = builder.request(metrics.MeteredRequest(request, revoked.unauthorized)).get_updates_request(
        metrics.MeteredRequest(updates_request or request, revoked.unauthorized)
    )
    application = builder.build()
    revoked.application = application
    keep_settings(application, settings, revoked)

    handlers.register(application)
    if settings.database_url:  # PostgreSQL: this process may be one of several (bot/cluster.py)
        application.add_handler(TypeHandler(Update, _route), group=-2)
    return application


async def _route(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = started(context.application)
    if deps is not None and deps.cluster is not None:
        await deps.cluster.route(update, context)


async def _started(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    settings = settings_of(application)
    metrics.HEARD.reset()
    metrics.BUILD.labels(logs.VERSION, "compiled" if engine.BUILD.compiled else "pure").set(1)
    if settings.webhook_url:
        metrics.count_refused_webhooks(logging.getLogger().level)
    storage = await Storage.open(settings.database, synchronous=settings.database_synchronous)
    storage.db.on_write = metrics.db_write
    assert application.job_queue is not None
    # The outbox asks the presenter for each message's draft and reports to the service what Telegram said
    # (a new message's id, a chat that refuses the bot, a group that moved): both are made just below, before
    # anything is sent.
    outbox = Outbox(
        application.bot,
        lambda key: presenter.draft(key),
        on_sent=lambda key, message_id: service.message_sent(*key, message_id),
        on_refused=lambda chat_id: service.chat_refused(chat_id),
        on_migrated=lambda old, new: service.chat_migrated(old, new),
        limits=settings.limits(),
        paces=storage.paces,
        pushes=lambda chat_id: members.bot_admin(chat_id),
    )
    members = ChatMembers(application.bot)
    await outbox.support.check()  # an operator learns at start whether the server can show cards in groups
    presenter = Presenter(
        storage,
        outbox,
        bot_username=application.bot.username,
        default_language=settings.default_language,
        members=members,
        web_app=settings.web_app,
    )
    thinker = Thinker(settings.ai_workers, settings.ai_budget_scale)
    thinker.warm_up()
    # A pure engine nobody asked for is a third of the players' strength: worth an operator's attention.
    expected = engine.BUILD.compiled or engine.BUILD.asked
    log.log(logging.INFO if expected else logging.WARNING, "computer players run on the %s", engine.BUILD)
    service = TableService(
        storage,
        JobScheduler(application.job_queue),
        presenter,
        bot_delay=settings.bot_move_delay,
        thinker=thinker,
    )
    service.arenas.watcher = presenter  # an arena's one message in the group (docs/groups.md)
    service.arenas.minute = settings.arena_minute
    deps = Deps(storage, service, presenter, members, outbox)
    deps.hub = watch_tables(settings, deps)  # the web table watches the records the chat does
    keep(application, deps)
    await profile.publish(application.bot)
    if storage.db.dialect == "postgresql":  # tables come back chat by chat, as this process claims them
        cluster = Cluster(application, storage, service, outbox, settings.cluster_lease)
        deps.cluster = cluster
        await cluster.start()
    else:
        broken = await service.restore()
        for table, reason in broken:
            log.error("table %s could not be restored (its group is told): %s", table.id, reason)
    log.info("restored %d live tables", len(service.in_memory()))
    mode = f"webhook at {settings.webhook_url}" if settings.webhook_url else "long polling"
    log.info(
        "started: @%s, %s, version %s, the %s", application.bot.username, mode, logs.VERSION, engine.BUILD
    )
    if settings.move_log_days is not None:
        days = settings.move_log_days

        async def prune(_: ContextTypes.DEFAULT_TYPE) -> None:
            await retention.prune(storage, days)

        application.job_queue.run_repeating(prune, interval=retention.EVERY, first=60, name="retention")

    async def season_ends(_: ContextTypes.DEFAULT_TYPE) -> None:
        await seasons.announce(deps, service.env.clock())

    application.job_queue.run_repeating(season_ends, interval=seasons.EVERY, first=30, name="seasons")
    deps.web = await serve(settings, deps)
    if settings.metrics_port is not None:
        server = watch.Server(
            deps,
            application.bot,
            settings.metrics_listen,
            settings.metrics_port,
            polling=not settings.webhook_url,
        )
        await server.start()
        deps.watch = server
    # What is loaded by now (PTB, pydantic's models, the locales, the restored tables) lives as long as the
    # process. Out of the collector's sight, a full collection, which stops every table while it runs, takes
    # a few ms instead of about 100 (bench/load.py at 300 tables: press→answer p99).
    gc.collect()
    gc.freeze()


async def _stopping(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Before the bot's HTTP client closes: send what is waiting, for a few seconds at most, then stop (the
    database has everything; a restart redraws the rest)."""
    metrics.HEARD.stopping = time.monotonic()  # (bot.watch: a stop that hangs fails liveness)
    found = started(application)
    if found is not None:
        await found.service.thinker.stop()
        await found.outbox.close(flush=0 if revoked_of(application).seen else FLUSH_SECONDS)


async def _stopped(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    found = started(application)
    if found is None:
        return
    for part in (found.watch, found.web, found.cluster):  # the bot's own servers, this process's chats
        if part is not None:
            await part.stop()
    found.service.thinker.close()
    await found.storage.close()
    log.info("stopped: @%s, after %.0f s", application.bot.username, time.monotonic() - metrics.HEARD.since)


def webhook_options(settings: Settings) -> dict[str, Any]:
    """How the bot serves Telegram's webhook: on WEBHOOK_LISTEN:WEBHOOK_PORT, at the path of WEBHOOK_URL (so a
    reverse proxy may pass the path through unchanged), checking WEBHOOK_SECRET on every call."""
    assert settings.webhook_url is not None
    return {
        "listen": settings.webhook_listen,
        "port": settings.webhook_port,
        "url_path": urlsplit(settings.webhook_url).path.lstrip("/"),
        "webhook_url": settings.webhook_url,
        "secret_token": settings.webhook_secret,
        "allowed_updates": ALLOWED_UPDATES,
    }
