"""The web table's HTTP server (WEB_PORT): the page and its files, and one socket per open page.

A socket is opened only with Telegram's ``initData`` checked (bot.web.auth): missing, forged, altered or
expired gets 401 and nothing more. A seated player is sent their own hand, a member of the group the public
table, anyone else nothing (403). Moves come in through the same table commands as the chat's buttons, so
they are checked, refused and counted alike; a page may send a few a second at most."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from bot.callbacks import number
from bot.deps import Deps
from bot.handlers.common import alert
from bot.i18n import Text, texts, user_texts
from bot.members import ChatMembers
from bot.service import Refusal, TableService, Verdict, Watchers
from bot.settings import Settings
from bot.watch import listen
from bot.web.auth import Viewer, viewer
from bot.web.hub import Hub, Page, message
from bot.web.relay import Peers, Relay, peer_url
from engine.moves import parse_move

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
FILES = {"app.js": "text/javascript", "app.css": "text/css"}
# The page runs its own script and Telegram's only, talks to this server only, and may be framed by
# Telegram's web clients only (its mobile and desktop clients open it in a webview of their own).
POLICY = (
    "default-src 'none'; script-src 'self' https://telegram.org; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors https://web.telegram.org https://*.telegram.org"
)
BURST, RATE = 8, 4.0  # a page's messages: this many at once, then this many a second


class WebServer:
    def __init__(
        self,
        service: TableService,
        members: ChatMembers,
        hub: Hub,
        *,
        token: str,
        max_age: float,
        default_language: str,
        host: str,
        port: int,
        peers: Peers | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.service, self.members, self.hub = service, members, hub
        self.token, self.max_age, self.default_language = token, max_age, default_language
        self.host, self.port, self.clock = host, port, clock
        self.relay = Relay(peers) if peers is not None else None
        self._runner: web.AppRunner | None = None
        self._open: set[web.WebSocketResponse] = set()  # closed at a stop: the pages reconnect elsewhere

    async def start(self) -> None:
        app = web.Application(middlewares=[_headers])
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._file)
        app.router.add_get("/socket", self._socket)
        # No access log: initData travels in the socket's query.
        self._runner, self.port = await listen(app, self.host, self.port)
        log.info("the web table at http://%s:%s/", self.host, self.port)

    async def stop(self) -> None:
        for socket in list(self._open):  # else the server waits for every page to go by itself
            await socket.close(code=WSCloseCode.GOING_AWAY)
        if self.relay is not None:  # its pages too
            await self.relay.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.relay is not None:
            await self.relay.stop()

    def held(self) -> dict[str, int]:
        return {"web_relayed": len(self.relay.sockets) if self.relay is not None else 0}

    # ------------------------------------------------------------------ files

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(body=(STATIC / "index.html").read_bytes(), content_type="text/html")

    async def _file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in FILES:
            raise web.HTTPNotFound()
        return web.Response(body=(STATIC / name).read_bytes(), content_type=FILES[name])

    # ------------------------------------------------------------------ the socket

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        """The page's socket; asked over plain HTTP (a page whose socket closed asks why), only whether it
        may open one."""
        who = viewer(request.query.get("init", ""), self.token, self.max_age, self.clock())
        if who is None:
            t = texts(self.default_language)
            return web.json_response({"error": "unauthorized", "text": t("web.unauthorized")}, status=401)
        t = await self._text(who)
        # The table the page asks for (a rematch moves it on), else the one its link named.
        table_id = number(request.query.get("table", "")) or who.table_id
        record = self.service.table(table_id) if table_id else None
        if table_id is not None and record is None and self.relay is not None and self.relay.may(request):
            peer = await self.relay.peers(table_id)  # another process plays it, or this one just claimed it
            if peer is not None:
                return await self.relay.pipe(request, peer, table_id)
            record = self.service.table(table_id)
        if table_id is None or record is None:
            return web.json_response({"error": "no such table", "text": t("web.gone")}, status=404)
        seated = record.seat_of(who.user_id) is not None
        if not seated and not await self.members.is_member(record.row.chat_id, who.user_id):
            return web.json_response({"error": "not your table", "text": t("web.not_yours")}, status=403)
        socket = web.WebSocketResponse(heartbeat=25.0, max_msg_size=4096)
        if not socket.can_prepare(request).ok:
            return web.json_response({"ok": True})
        await socket.prepare(request)
        self._open.add(socket)
        page = Page(socket, table_id, t, who.user)
        self.hub.open(page)
        tokens, last = float(BURST), self.clock()
        try:
            async for frame in socket:
                if frame.type is not WSMsgType.TEXT:
                    break
                now = self.clock()
                tokens, last = min(float(BURST), tokens + (now - last) * RATE), now
                if tokens < 1:
                    await socket.send_str(message("refused", text=page.t("web.too_fast")))
                    continue
                tokens -= 1
                await self._command(page, frame.data)
        finally:
            self.hub.close(page)
            self._open.discard(socket)
        return socket

    async def _text(self, who: Viewer) -> Text:
        """The viewer's language: as they chose it with the bot, else their Telegram client's."""
        known = await self.service.storage.users.get(who.user_id)
        return user_texts(known or who.user, self.default_language)

    async def _command(self, page: Page, data: str) -> None:
        """One thing the page asks: a move, a concession, "I'm back", or whether it is on screen."""
        try:
            asked: dict[str, Any] = json.loads(data)
            if not isinstance(asked, dict):
                raise ValueError(data)
        except ValueError:
            return
        service, table, user = self.service, page.table_id, page.user_id
        verdict: Verdict | None = None
        if "visible" in asked:
            self.hub.shown(page, bool(asked["visible"]))
        elif "move" in asked:
            version = asked.get("version")
            try:
                move = parse_move(str(asked["move"]))
            except ValueError:
                move = None
            if move is None or not isinstance(version, int) or isinstance(version, bool):
                stale = Verdict.refused(Refusal.STALE)
                await page.socket.send_str(message("refused", text=alert(page.t, stale)))
                return
            verdict = await service.press(table, user, version, move)
        elif asked.get("concede") == "yes":
            verdict = await service.concede(table, user, "yes")
        elif asked.get("back") is True:
            verdict = await service.reclaim(table, user)
        elif asked.get("lobby") in ("join", "start", "rematch"):
            verdict = await self._lobby(page, str(asked["lobby"]))
        if verdict is not None and not verdict.ok:
            await page.socket.send_str(message("refused", text=alert(page.t, verdict)))

    async def _lobby(self, page: Page, action: str) -> Verdict:
        """Join (or confirm a rematch), Start (the host), Rematch: as the lobby's and the result's buttons
        do; a rematch moves the page on to the new table."""
        service, table = self.service, page.table_id
        if action == "start":
            return await service.start(table, page.user_id, False)
        user = await service.storage.users.seen(page.profile)
        if action == "join":
            return await service.join(table, user)
        verdict = await service.rematch(table, user)
        if verdict.ok and verdict.table_id is not None:
            await page.socket.send_str(message("moved", table=verdict.table_id))
        return verdict


def watch_tables(settings: Settings, deps: Deps) -> Hub | None:
    """The web tables' watcher beside the chat's presenter, where the operator set WEB_PORT."""
    if settings.web_port is None:
        return None
    hub = Hub(deps.service.table, away=deps.presenter.catch_up, clock=deps.service.env.clock)
    deps.presenter.watching = hub.watching  # a hand on a page on screen costs no message
    deps.service.watcher = Watchers(deps.presenter, hub)
    return hub


async def serve(settings: Settings, deps: Deps) -> WebServer | None:
    """The web table's server, started where the operator set WEB_PORT (its pages watch ``deps.hub``)."""
    if deps.hub is None or settings.web_port is None:
        return None
    server = WebServer(
        deps.service,
        deps.members,
        deps.hub,
        token=settings.bot_token,
        max_age=settings.web_login_age,
        default_language=settings.default_language,
        host=settings.web_listen,
        port=settings.web_port,
        peers=deps.cluster.web_peer if deps.cluster is not None else None,
    )
    await server.start()
    if deps.cluster is not None:
        deps.cluster.web = settings.web_peer_url or peer_url(settings.web_listen, server.port)
    return server


@web.middleware
async def _headers(request: web.Request, handler: Any) -> web.StreamResponse:
    response: web.StreamResponse = await handler(request)
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response
