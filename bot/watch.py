"""The metrics and health endpoint: /metrics (Prometheus' text format, bot.metrics's counters and what the
bot holds now) and /healthz, over HTTP on a port of their own (METRICS_PORT, off by default), in polling and
webhook mode alike, by every process of a cluster."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from telegram import Bot

from bot.metrics import HEARD, REGISTRY
from bot.timers import JobScheduler

if TYPE_CHECKING:
    from bot.deps import Deps

log = logging.getLogger(__name__)

HEALTH_DEADLINE = 2.0  # seconds the database has to take a write, and Telegram to answer getMe
STUCK = 120.0  # a message queued this long, with nothing sent meanwhile: the outbox is not draining
TELEGRAM_QUIET = 60.0  # seconds without an answer from Telegram before readiness asks it
POLL_STUCK = 120.0  # polling: getUpdates asked at most every 30 s (PTB's back-off) plus its long poll
STOP_STUCK = 30.0  # a stop flushes for a few seconds: one this long has hung


class State(Collector):
    """What one running bot holds now, read at each scrape."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    def collect(self) -> Iterator[GaugeMetricFamily]:
        queued = GaugeMetricFamily(
            "durak_outbox_queued", "Messages waiting in the outbox, by priority", labels=["priority"]
        )
        backlog, oldest = self.deps.outbox.lanes.backlog()
        for priority, count in backlog.items():
            queued.add_metric([priority], count)
        yield queued
        yield GaugeMetricFamily(
            "durak_outbox_oldest_seconds", "How long the oldest waiting message has waited", value=oldest
        )
        yield GaugeMetricFamily(
            "durak_last_update_seconds",
            "Seconds since the last update was received (or since the start)",
            value=HEARD.ago(HEARD.update),
        )
        yield GaugeMetricFamily(
            "durak_last_telegram_answer_seconds",
            "Seconds since Telegram last answered a call with anything but a 5xx (or since the start)",
            value=HEARD.ago(HEARD.telegram),
        )
        tables = GaugeMetricFamily("durak_live_tables", "Tables in memory, by status", labels=["status"])
        counts: dict[str, int] = {"lobby": 0, "playing": 0}
        for table in self.deps.service.in_memory():
            counts[table.row.status.value] = counts.get(table.row.status.value, 0) + 1
        for status, count in counts.items():
            tables.add_metric([status], count)
        yield tables
        held = GaugeMetricFamily(
            "durak_memory_entries",
            "Entries of the bot's in-memory maps, by map: each bounded, or freed when its chat, table or job goes",
            labels=["map"],
        )
        storage, scheduler = self.deps.storage, self.deps.service.env.scheduler
        sizes = {
            **self.deps.outbox.held(),
            **self.deps.presenter.held(),
            **(self.deps.hub.held() if self.deps.hub is not None else {}),
            **(self.deps.web.held() if self.deps.web is not None else {}),
            "users_cached": storage.users.held(),
            "chats_cached": storage.chats.held(),
            "members_known": self.deps.members.held(),
            "timer_jobs": scheduler.pending() if isinstance(scheduler, JobScheduler) else 0,
        }
        for name, count in sizes.items():
            held.add_metric([name], count)
        yield held
        cluster = self.deps.cluster
        owned = len(cluster.owned) if cluster is not None else 0
        yield GaugeMetricFamily(
            "durak_cluster_chats_owned", "Chats this process owns (PostgreSQL)", value=owned
        )


async def readiness(deps: Deps, bot: Bot) -> tuple[bool, dict[str, str]]:
    """Whether this process can serve players now: the database takes a write in time (a read is answered
    through a lock held elsewhere or a full disk, while every move fails), Telegram answers (asked, if it has
    not been heard from for a while: a quiet bot calls nobody), and the outbox as a whole drains (a message
    that cannot reach one chat, or waits its turn in a busy group, is the metrics' business, not the
    process's). A write that is late goes on after the answer (it is one write among the others)."""
    checks: dict[str, str] = {}
    try:
        await asyncio.wait_for(asyncio.shield(deps.storage.probe()), HEALTH_DEADLINE)
        checks["database"] = "ok"
    except Exception as exc:  # any failure to answer is the answer
        checks["database"] = f"failed: {type(exc).__name__}"
    checks["telegram"] = await _telegram(bot)
    _, oldest = deps.outbox.lanes.backlog()
    quiet = deps.outbox.delivered_ago()
    stalled = oldest >= STUCK and quiet >= STUCK
    checks["outbox"] = f"nothing sent for {quiet:.0f} s while messages wait" if stalled else "ok"
    return all(v == "ok" for v in checks.values()), checks


async def _telegram(bot: Bot) -> str:
    if HEARD.ago(HEARD.telegram) < TELEGRAM_QUIET:
        return "ok"
    try:
        await asyncio.wait_for(asyncio.shield(bot.get_me()), HEALTH_DEADLINE)
    except Exception as exc:  # a 5xx, a network failure, a timeout: not answering
        return f"no answer for {HEARD.ago(HEARD.telegram):.0f} s ({type(exc).__name__})"
    return "ok"


def liveness(polling: bool) -> tuple[bool, dict[str, str]]:
    """Whether this process is alive, as a supervisor should restart it if not: its event loop answers (this
    runs on it), its polling loop asks Telegram for updates (whatever the answer), and a stop that began
    has not hung."""
    checks = {"loop": "ok"}
    if polling:
        asked = HEARD.ago(HEARD.polled)
        checks["polling"] = "ok" if asked < POLL_STUCK else f"no getUpdates for {asked:.0f} s"
    if HEARD.stopping is not None and HEARD.ago(HEARD.stopping) > STOP_STUCK:
        checks["stopping"] = f"stopping for {HEARD.ago(HEARD.stopping):.0f} s"
    return all(v == "ok" for v in checks.values()), checks


class Server:
    """/metrics and /healthz over HTTP on ``host``:``port`` (0: any free port; ``port`` then says which)."""

    def __init__(self, deps: Deps, bot: Bot, host: str, port: int, *, polling: bool = True) -> None:
        self.deps, self.bot, self.host, self.port, self.polling = deps, bot, host, port, polling
        self._runner: web.AppRunner | None = None
        self._state = State(deps)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._ready)  # (its name before the split: readiness)
        app.router.add_get("/readyz", self._ready)
        app.router.add_get("/livez", self._live)
        self._runner, self.port = await listen(app, self.host, self.port)
        REGISTRY.register(self._state)
        log.info("metrics and health at http://%s:%s/metrics, /livez and /readyz", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            REGISTRY.unregister(self._state)
            await self._runner.cleanup()
            self._runner = None

    def held(self) -> dict[str, int]:
        return {}  # nothing kept per chat, table or page

    async def _metrics(self, request: web.Request) -> web.Response:
        body = generate_latest(REGISTRY)  # on the event loop: the state it reads is the loop's
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _ready(self, request: web.Request) -> web.Response:
        return _answer(*await readiness(self.deps, self.bot))

    async def _live(self, request: web.Request) -> web.Response:
        return _answer(*liveness(self.polling))


def _answer(ok: bool, checks: dict[str, str]) -> web.Response:
    body = json.dumps({"ok": ok, **checks})
    return web.Response(text=body, status=200 if ok else 503, content_type="application/json")


async def listen(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve ``app`` on ``host``:``port`` (0: any free port), without an access log; its runner, and the port
    it listens on."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    sockets = getattr(site._server, "sockets", None) or []
    return runner, int(sockets[0].getsockname()[1]) if sockets else port
