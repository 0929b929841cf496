"""The bot's parts, made once at start-up and kept in PTB's ``application.bot_data``. This module is the only
one that knows the keys they are kept under."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from telegram import Update
from telegram.ext import Application, ContextTypes

from bot.members import ChatMembers
from bot.outbox import Outbox
from bot.presenter import Presenter
from bot.revoked import Revoked
from bot.service import TableService
from bot.settings import Settings
from bot.web.hub import Hub
from storage import Storage

AnyApplication = Application[Any, Any, Any, Any, Any, Any]
_SETTINGS = "settings"  # read while the application is built, before the parts below exist
_DEPS = "deps"
_REVOKED = "revoked"


class Router(Protocol):
    """This process's part among several on one PostgreSQL database (bot.cluster.Cluster)."""

    owned: set[int]  # the chats it holds now
    web: str | None  # where the others reach its web table

    async def route(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None: ...

    async def web_peer(self, table_id: int) -> str | None: ...

    async def stop(self) -> None: ...


class Watch(Protocol):
    """An HTTP server of the bot's own: the metrics and health endpoint (bot.watch.Server, METRICS_PORT), the
    web table's (bot.web.server.WebServer, WEB_PORT)."""

    port: int

    async def stop(self) -> None: ...

    def held(self) -> dict[str, int]: ...


@dataclass
class Deps:
    storage: Storage
    service: TableService
    presenter: Presenter
    members: ChatMembers
    outbox: Outbox
    cluster: Router | None = None  # only on PostgreSQL
    watch: Watch | None = None  # only with METRICS_PORT
    hub: Hub | None = None  # the web table's pages (bot/web), only with WEB_PORT
    web: Watch | None = None  # its HTTP server


def keep_settings(application: AnyApplication, settings: Settings, revoked: Revoked | None = None) -> None:
    application.bot_data[_SETTINGS] = settings
    application.bot_data[_REVOKED] = revoked or Revoked()


def revoked_of(application: AnyApplication) -> Revoked:
    """Whether Telegram stopped accepting the token while the bot ran (bot.revoked)."""
    found: Revoked = application.bot_data[_REVOKED]
    return found


def settings_of(application: AnyApplication) -> Settings:
    found: Settings = application.bot_data[_SETTINGS]
    return found


def keep(application: AnyApplication, deps: Deps) -> None:
    application.bot_data[_DEPS] = deps


def deps_of(application: AnyApplication) -> Deps:
    found: Deps = application.bot_data[_DEPS]
    return found


def started(application: AnyApplication) -> Deps | None:
    """The parts, once start-up made them (a stop may come before)."""
    found: Deps | None = application.bot_data.get(_DEPS)
    return found
