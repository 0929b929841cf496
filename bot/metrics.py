"""What the bot counts for its operator, in Prometheus' terms (prometheus_client): counters and histograms,
counted where things happen; bot.watch serves them with what the bot holds now, and a health check.

Labels stay few and fixed (a method, a result, a kind): never a user, a chat or a table, so that a busy
bot's series do not grow with its users.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from telegram.request import BaseRequest, RequestData

# The bot's own registry: the process-wide default one would also carry whatever a library registers there.
REGISTRY = CollectorRegistry()
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
LEASES_LOST = Counter(
    "durak_cluster_leases_lost", "Chats this process lost to another (it missed its lease)", registry=REGISTRY
)


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
        try:
            status, payload = await self.inner.do_request(
                url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
            )
        except Exception:
            CALLS.labels(name, "network").inc()
            raise
        CALLS.labels(name, _result(status)).inc()
        if status == 401 and self.on_unauthorized is not None:
            self.on_unauthorized()
        return status, payload
