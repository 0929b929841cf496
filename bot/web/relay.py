"""The web table with several processes (bot.cluster): a page may open its socket at any process, and one
that does not play the page's table pipes the socket to the process that does, at the address that process
registered beside its lease (WEB_PEER_URL). That process checks initData again and applies its own rate
limit; when it goes away, the pipe closes and the page opens its socket again, wherever the table is played
by then."""

from __future__ import annotations

import asyncio
import logging
import socket as sockets
from collections.abc import Awaitable, Callable

import aiohttp
from aiohttp import WSCloseCode, WSMsgType, web

log = logging.getLogger(__name__)

RELAYED = "X-Durak-Relayed"  # a socket piped from another process: never piped on again
# Where a table's pages are served from, given its id (bot.cluster.Cluster.web_peer): None here, else the
# address of the process that plays it ("" if it serves none).
Peers = Callable[[int], Awaitable[str | None]]


class Relay:
    def __init__(self, peers: Peers) -> None:
        self.peers = peers
        self.sockets: set[web.WebSocketResponse] = set()  # pages whose socket is piped on now
        self._session: aiohttp.ClientSession | None = None

    def may(self, request: web.Request) -> bool:
        """Whether this request may be piped on: not one another process piped here."""
        return RELAYED not in request.headers

    async def pipe(self, request: web.Request, peer: str, table_id: int) -> web.StreamResponse:
        """The page's socket (or, over plain HTTP, whether it may open one), piped to ``peer``."""
        url, headers = f"{peer}/socket", {RELAYED: "1"}
        query = {"init": request.query.get("init", ""), "table": str(table_id)}
        if not peer:
            log.warning("web table %s: its process serves no web table (WEB_PORT) to relay to", table_id)
            return _unavailable()
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=5))
        try:  # its answer to "may I open a socket" first: a refusal is passed on as it is
            async with self._session.get(url, params=query, headers=headers) as asked:
                if asked.status != 200:
                    body = await asked.read()
                    return web.Response(status=asked.status, body=body, content_type="application/json")
            socket = web.WebSocketResponse(heartbeat=25.0, max_msg_size=4096)
            if not socket.can_prepare(request).ok:
                return web.json_response({"ok": True})
            upstream = await self._session.ws_connect(url, params=query, headers=headers, heartbeat=25.0)
        except (aiohttp.ClientError, TimeoutError) as exc:  # it stopped; its lease runs out soon
            log.info("web table %s: its process at %s cannot be reached (%s)", table_id, peer, exc)
            return _unavailable()
        await socket.prepare(request)
        self.sockets.add(socket)

        async def down() -> None:
            async for frame in upstream:
                if frame.type is not WSMsgType.TEXT:
                    break
                await socket.send_str(frame.data)
            await socket.close()

        pump = asyncio.get_running_loop().create_task(down())
        try:
            async for frame in socket:
                if frame.type is not WSMsgType.TEXT:
                    break
                await upstream.send_str(frame.data)
        except (ConnectionError, RuntimeError) as exc:  # the owner went away mid-send: the page reconnects
            log.debug("web table %s: the relay closed: %s", table_id, exc)
        finally:
            self.sockets.discard(socket)
            pump.cancel()
            await upstream.close()
            await socket.close()
        return socket

    async def close(self) -> None:
        """A stop: the pages piped on are told the server goes away (they open their socket elsewhere)."""
        for socket in list(self.sockets):
            await socket.close(code=WSCloseCode.GOING_AWAY)

    async def stop(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def peer_url(listen: str, port: int) -> str:
    """Where other processes reach this one's web table unless WEB_PEER_URL says: the address it listens
    at, or this host's name when it listens at every address."""
    host = sockets.gethostname() if listen in ("0.0.0.0", "::", "") else listen
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}"


def _unavailable() -> web.Response:
    """The table's process cannot be reached now: the page tries again (its lease moves it within seconds)."""
    return web.json_response({"error": "unavailable"}, status=503)
