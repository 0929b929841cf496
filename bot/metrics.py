"""What the bot counts for its operator, in Prometheus' terms (prometheus_client): counters and histograms,
counted where things happen; bot.watch serves them with what the bot holds now, and a health check.

Labels stay few and fixed (a method, a result, a kind): never a user, a chat or a table, so that a busy
bot's series do not grow with its users.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)
from telegram.request import BaseRequest, RequestData

# The bot's own registry: the process-wide default one would also carry whatever a library registers there.
# No *_created series beside each counter: half the series, and nothing an alert or a panel reads.
disable_created_metrics()  # type: ignore[no-untyped-call]
REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)  # process_cpu_seconds_total, process_resident_memory_bytes, open fds ...
_FAST = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

UPDATES = Counter("durak_updates", "Updates handled, by kind", ["kind"], registry=REGISTRY)
PRESS_SECONDS = Histogram(
    "durak_press_answer_seconds",
    "A button press, from its update to its answer",
    buckets=_FAST,
    registry=REGISTRY,
)
CALLS = Counter(
    "durak_telegram_calls",
    "Bot API calls by method and result (ok, 429, 4xx, 5xx, network)",
    ["method", "result"],
    registry=REGISTRY,
)
GAMES = Counter(
    "durak_games_ended", "Games ended: finished, cancelled, abandoned or broken", ["end"], registry=REGISTRY
)
DECISION_SECONDS = Histogram(
    "durak_bot_decision_seconds",
    "A computer player's decision, wall clock, by level",
    ["level"],
    buckets=(0.01, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0),
    registry=REGISTRY,
)
WORKER_RESTARTS = Counter(
    "durak_bot_worker_restarts",
    "Worker processes replaced after a failed or stuck decision",
    registry=REGISTRY,
)
DB_WRITE_SECONDS = Histogram(
    "durak_db_write_seconds", "A database write, committed (or failed)", buckets=_FAST, registry=REGISTRY
)
DB_WRITE_FAILURES = Counter("durak_db_write_failures", "Database writes that failed", registry=REGISTRY)
PAID_STARS = Counter(
    "durak_paid_broadcast_stars",
    "Telegram Stars spent on paid broadcasts: 0.1 for each new message sent past the free budget",
    registry=REGISTRY,
)
HANDLER_EXCEPTIONS = Counter(
    "durak_handler_exceptions",
    "Updates whose handler raised (each answered with an apology)",
    registry=REGISTRY,
)
WEBHOOK_REFUSED = Counter(
    "durak_webhook_refused",
    "Webhook requests refused for a missing or wrong secret token (not from Telegram)",
    registry=REGISTRY,
)
BUILD = Gauge(
    "durak_build_info",
    "The running release and engine build (always 1)",
    ["version", "engine"],
    registry=REGISTRY,
)
LEASES_LOST = Counter(
    "durak_cluster_leases_lost", "Chats this process lost to another (it missed its lease)", registry=REGISTRY
)


@dataclass
class Heard:
    """When this process last heard from the outside (monotonic seconds), for health and its gauges: an
    update (a press, a command), Telegram answering a call (anything but a 5xx or a network failure), and
    the polling loop asking for updates (alive, whatever the answer)."""

    since: float = field(default_factory=time.monotonic)  # the start: nothing heard yet counts from it
    update: float | None = None
    telegram: float | None = None
    polled: float | None = None
    stopping: float | None = None  # when the stop began

    def reset(self) -> None:
        """A start: nothing heard yet (a test runs several bots in one process, one after the other)."""
        self.since, self.update, self.telegram, self.polled, self.stopping = time.monotonic(), *[None] * 4

    def updated(self) -> None:
        self.update = time.monotonic()

    def ago(self, what: float | None) -> float:
        return time.monotonic() - (what if what is not None else self.since)


HEARD = Heard()


def db_write(seconds: float, failed: bool) -> None:
    """storage.db.Database.on_write: each write's time, and whether it failed."""
    DB_WRITE_SECONDS.observe(seconds)
    if failed:
        DB_WRITE_FAILURES.inc()


def _result(status: int) -> str:
    if 200 <= status < 300:
        return "ok"
    return "429" if status == 429 else "4xx" if status < 500 else "5xx"


class MeteredRequest(BaseRequest):
    """PTB's HTTP layer, counting every Bot API call by method and result; the calls go to ``inner``."""

    def __init__(self, inner: BaseRequest, on_unauthorized: Callable[[], None] | None = None) -> None:
        self.inner = inner
        self.on_unauthorized = on_unauthorized  # Telegram answered 401: the token is no longer accepted

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        name = url.rsplit("/", 1)[-1]  # the method only: the token is in the path before it
        if name == "getUpdates":
            HEARD.polled = time.monotonic()
        try:
            status, payload = await self.inner.do_request(
                url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
            )
        except Exception:
            CALLS.labels(name, "network").inc()
            raise
        CALLS.labels(name, _result(status)).inc()
        if status < 500:
            HEARD.telegram = time.monotonic()
        if status == 401 and self.on_unauthorized is not None:
            self.on_unauthorized()
        return status, payload


_SECRET_REFUSED = ("Request did not include the secret token", "Request had the wrong secret token")


def count_refused_webhooks(libraries: int) -> None:
    """PTB's webhook server refuses a request without the right secret (403) and says so only at DEBUG, on
    its updater's logger: those lines are counted here, whatever the level, and go on only if the libraries'
    level (LOG_LEVEL_LIBS) lets them (the same logger's DEBUG lines carry whole updates)."""
    logger = logging.getLogger("telegram.ext.Updater")

    def refused(record: logging.LogRecord) -> bool:
        if str(record.msg).startswith(_SECRET_REFUSED):
            WEBHOOK_REFUSED.inc()
        return record.levelno >= libraries

    for old in [f for f in logger.filters if getattr(f, "__name__", "") == "refused"]:
        logger.removeFilter(old)  # a bot started again in this process (tests)
    logger.addFilter(refused)
    logger.setLevel(logging.DEBUG)
