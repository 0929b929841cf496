"""PTB's requests over aiohttp: a ``BaseRequest`` for ``TELEGRAM_HTTP=aiohttp``.

PTB ships one request class, over httpx. Under load, httpx and httpcore were measured at about half of the
bot's CPU; aiohttp does the same work in C for the most part. PTB's own tests and ptbcontrib's
``aiohttp_request`` follow this same shape: one ``ClientSession`` per request object, timeouts per call,
aiohttp's errors turned into PTB's ``TimedOut`` and ``NetworkError``.
"""

from __future__ import annotations

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData


class AiohttpRequest(BaseRequest):
    """``connections``: how many requests may be open at once (PTB's httpx pool has 256 for the bot's calls;
    ``get_updates`` needs one)."""

    def __init__(
        self,
        connections: int = 256,
        *,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
    ) -> None:
        self._connections = connections
        self._timeouts = (read_timeout, write_timeout, connect_timeout, pool_timeout)
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._timeouts[0]

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._connections, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector, headers={"User-Agent": self.USER_AGENT}
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("this AiohttpRequest is not initialized")
        default_read, default_write, default_connect, default_pool = self._timeouts
        read = default_read if isinstance(read_timeout, DefaultValue) else read_timeout
        write = default_write if isinstance(write_timeout, DefaultValue) else write_timeout
        connect = default_connect if isinstance(connect_timeout, DefaultValue) else connect_timeout
        pool = default_pool if isinstance(pool_timeout, DefaultValue) else pool_timeout
        # aiohttp has no write timeout of its own: a request's whole time covers connecting, writing and
        # reading, which a slow upload would otherwise exceed.
        total = None if read is None or write is None else read + write + (connect or 0) + (pool or 0)
        timeout = aiohttp.ClientTimeout(total=total, connect=pool, sock_connect=connect, sock_read=read)
        try:
            async with self._session.request(
                method, url, data=_body(request_data), timeout=timeout
            ) as response:
                return response.status, await response.read()
        except TimeoutError as exc:
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{exc.__class__.__name__}: {exc}") from exc


def _body(request_data: RequestData | None) -> aiohttp.FormData | dict[str, str] | None:
    """The form PTB would send: plain fields, or multipart when files go with them."""
    if request_data is None:
        return None
    if not request_data.contains_files:
        return request_data.json_parameters
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, part in request_data.multipart_data.items():
        filename, content, mimetype = part[0], part[1], part[2] if len(part) > 2 else None
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form
