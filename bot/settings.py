"""Settings from the environment and ``.env`` (pydantic-settings). Only BOT_TOKEN is required."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import SettingsConfigDict

from bot.i18n import LANGUAGES
from bot.pacing import Limits
from storage.settings import DatabaseSettings

_TOKEN = re.compile(r"^\d{5,}:[A-Za-z0-9_-]{30,}$")
_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


class SettingsError(Exception):
    """A setting is missing or malformed; the message is one line for the operator."""


def available_cores() -> int:
    """The cores this process may run on (a container's CPU set, not the host's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class Settings(DatabaseSettings):
    """Everything the bot reads from the environment or ``.env``; where the data lives is
    ``storage.settings.DatabaseSettings``' (which the backup tool reads too)."""

    # systemd's LoadCredential=bot_token:... (docs/deploy.md): the token read from a file named bot_token
    # there, never in the environment or .env.
    model_config = SettingsConfigDict(
        **{**DatabaseSettings.model_config, "secrets_dir": os.environ.get("CREDENTIALS_DIRECTORY") or None}
    )

    bot_token: str = Field(description="The token from @BotFather.")
    # A file that holds the token (a secrets manager's, or root's own with mode 600): read when BOT_TOKEN is
    # not set, so that the token is in no environment a process listing or a crash report shows.
    bot_token_file: Path | None = None
    bot_api_url: str = Field(
        "https://api.telegram.org/bot",
        description="Bot API base URL (a local Bot API server, or a test server).",
    )
    # The HTTP client of PTB's calls: aiohttp (bot/http.py) or httpx (PTB's own). aiohttp is the default
    # because it spends less CPU a call under load (bench/load.py compares them; figures in docs/operations.md).
    telegram_http: Literal["httpx", "aiohttp"] = "aiohttp"
    # Requests to Telegram open at once (either client; getUpdates has a connection of its own). The outbox
    # keeps sends near 30 a second, so this hardly matters (bench/load.py measures it).
    telegram_connections: int = Field(256, ge=4, le=1024)
    # With PostgreSQL: seconds a chat stays with a process that stopped renewing its lease (it renews every
    # fifth of that). A killed process's games wait about this long before another process carries them on.
    cluster_lease: float = Field(15.0, ge=1, le=300)
    # FULL: every move survives a power loss; NORMAL: faster, and still safe if only the process dies.
    database_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    default_language: Literal["ru", "uk", "en"] = "en"
    # The bot's own log lines; libraries (PTB, httpx, aiosqlite) log at LOG_LEVEL_LIBS, since at DEBUG they
    # print what players must not see in a log (hands, the fair-play salt).
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_level_libs: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "WARNING"
    # Every event is one line: "text" for people, "json" (one object a line) for log shippers.
    log_format: Literal["text", "json"] = "text"
    # Where players read the whole rule book (your copy of docs/rules.md); /rules links it when set.
    rules_url: str | None = None
    # Production: a public HTTPS URL makes the bot use a webhook instead of long polling.
    webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    webhook_secret: str | None = None
    # Days the move logs of finished games are kept (for /replay); results, ratings and statistics are kept
    # for ever. Unset: the logs too are kept for ever.
    move_log_days: int | None = Field(None, ge=1)
    # Prometheus metrics (/metrics) and a health check (/healthz) over HTTP on this port (and address); off
    # unless set. Each process of a cluster needs a port of its own (docs/operations.md, "Watching it").
    metrics_port: int | None = Field(None, ge=0, le=65535)
    metrics_listen: str = "127.0.0.1"
    # Seconds between redraws of one group's table message, and of one player's hand message. Replies and
    # results go first whatever these say; a group never gets more than 20 messages a minute.
    group_redraw_interval: float = Field(3.0, gt=0)
    private_redraw_interval: float = Field(1.0, gt=0)
    # How Telegram counts the in-group hands (ephemeral messages) against its limits, which it does not
    # document: inside the group's 20 a minute (the hand of whoever must act first), or each receiver paced
    # as a private chat of its own (a group whose hands draw a 429 then counts them in its budget). Replies
    # go first either way (docs/operations.md, "In-group hands").
    ephemeral_limits: Literal["receiver", "group"] = "group"
    # The web table, a Telegram Mini App (docs/webapp.md): its HTTP server's port (unset: off) and address
    # (behind an HTTPS reverse proxy), and the app's short name as registered with @BotFather's /newapp
    # (with it, the table message and the private hand show a button that opens the app).
    web_port: int | None = Field(None, ge=0, le=65535)
    web_listen: str = "127.0.0.1"
    web_app: str | None = Field(None, pattern=r"^[A-Za-z0-9_]{3,30}$")
    # With several processes (PostgreSQL): where the others reach this process's web table, on the private
    # network (unset: http://WEB_LISTEN:WEB_PORT, or this host's name when WEB_LISTEN is every address).
    web_peer_url: str | None = Field(None, pattern=r"^https?://[^/?#]+$")
    # Seconds a page's Telegram login (initData) is accepted after it was opened.
    web_login_age: int = Field(86400, ge=60)
    # Paid broadcasts (enabled in @BotFather, paid in Stars from the bot's balance): new messages a second the
    # bot may send past Telegram's free 30 when those are spent, at 0.1 Star each (0: off; Telegram allows up
    # to 1000). Edits cannot be paid for: they always wait for the free budget (docs/operations.md).
    paid_broadcast: int = Field(0, ge=0, le=970)
    # Telegram's limits scaled in time: 1 is Telegram; tests against a fake Bot API run faster (e.g. 0.01).
    rate_scale: float = Field(1.0, gt=0, le=1)
    # Seconds in one of an arena's minutes: 60 is a real minute; tests and demos run a whole arena faster.
    arena_minute: float = Field(60.0, gt=0, le=60)
    # Seconds from the move before to a bot's move, its thinking included, so play can be followed.
    bot_move_delay: float = 1.5
    # Worker processes that run computer players' searches (one core each); 0: a thread in this process.
    # By default one per core this process may use: searches of several tables run side by side.
    ai_workers: int = Field(default_factory=available_cores, ge=0, le=64)
    # Scales every bot's thinking time (normal 0.5 s, hard 1.5 s a move): below 1 for slow hosts or tests.
    ai_budget_scale: float = Field(1.0, gt=0, le=10)

    @model_validator(mode="before")
    @classmethod
    def _token_from_file(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("bot_token") and data.get("bot_token_file"):
            try:
                data["bot_token"] = Path(data["bot_token_file"]).read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ValueError(
                    f"BOT_TOKEN_FILE {data['bot_token_file']} cannot be read ({exc.strerror})"
                ) from None
        return data

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: str) -> str:
        value = value.strip()
        if not _TOKEN.match(value):
            raise ValueError("BOT_TOKEN does not look like a token from @BotFather (digits:letters)")
        return value

    def limits(self) -> Limits:
        """The outbox's budgets: Telegram's, scaled by RATE_SCALE, and the redraw intervals."""
        scale = self.rate_scale
        return Limits(
            window=60.0 * scale,
            chat_spacing=1.0 * scale,
            global_window=1.0 * scale,
            paid_budget=self.paid_broadcast,
            group_redraw=self.group_redraw_interval,
            private_redraw=self.private_redraw_interval,
            ephemeral=self.ephemeral_limits,
        )

    @model_validator(mode="after")
    def _webhook_needs_a_secret(self) -> Settings:
        # Without the secret anybody who finds the URL could post forged updates (presses for any seat).
        if self.webhook_url and not (self.webhook_secret and _SECRET.match(self.webhook_secret)):
            raise ValueError(
                "WEBHOOK_SECRET is required with WEBHOOK_URL: 1 to 256 letters, digits, _ or - "
                "(for example: openssl rand -hex 32)"
            )
        return self

    @model_validator(mode="after")
    def _web_app_needs_a_server(self) -> Settings:
        if self.web_app and self.web_port is None:
            raise ValueError("WEB_APP needs WEB_PORT: the app's page is served by the bot (docs/webapp.md)")
        return self

    @field_validator("default_language")
    @classmethod
    def _language(cls, value: str) -> str:
        assert value in LANGUAGES
        return value


def load_settings(**overrides: object) -> Settings:
    """Settings, or SettingsError with a one-line explanation instead of a traceback."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            name = str(error["loc"][0]).upper() if error["loc"] else "settings"
            if error["type"] == "missing":
                problems.append(f"{name} is missing (set it in the environment or in .env)")
                continue
            message = str(error.get("ctx", {}).get("error", error["msg"]))
            problems.append(message if message.startswith(name) else f"{name}: {message}")
        raise SettingsError("; ".join(problems)) from None
