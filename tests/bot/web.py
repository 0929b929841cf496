"""Players of the web table in tests: Telegram's initData signed with the fake's token (as Telegram signs
it), and a page's socket read the way app.js reads it."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import aiohttp
from init_data_py import UnsignedInitData, User, sign

from tests.bot.conftest import Harness
from tests.bot.fake_telegram import TOKEN


def signed(user_id: int, name: str, table_id: int | None = None, *, auth_date: int | None = None) -> str:
    """What Telegram hands the Mini App a user opened from the table's direct link (``startapp=t<id>``)."""
    user = User(id=user_id, first_name=name, language_code="en")
    start = f"t{table_id}" if table_id is not None else None
    return sign(UnsignedInitData(user=user, start_param=start), TOKEN, auth_date=auth_date)


def base(h: Harness) -> str:
    assert h.deps.web is not None
    return f"http://127.0.0.1:{h.deps.web.port}"


class Page:
    """One open web table: its socket, and every state and refusal it was sent, in order."""

    def __init__(self, session: aiohttp.ClientSession, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.session, self.socket = session, socket
        self.states: list[dict[str, Any]] = []
        self.refusals: list[str] = []
        self.moved: list[int] = []  # the tables a rematch moved the page to
        self.raw: list[str] = []  # every frame as it came (what a page's DOM could ever hold)
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, h: Harness, init: str, table: int | None = None) -> Page:
        return await cls.at(base(h), init, table)

    @classmethod
    async def at(cls, url: str, init: str, table: int | None = None) -> Page:
        """A page whose socket is opened at the server at ``url`` (a process of a cluster)."""
        session = aiohttp.ClientSession()
        query = {"init": init, "table": str(table or "")}
        try:
            socket = await session.ws_connect(f"{url}/socket", params=query)
        except BaseException:
            await session.close()
            raise
        return cls(session, socket)

    async def _read(self) -> None:
        async for frame in self.socket:
            if frame.type is not aiohttp.WSMsgType.TEXT:
                break
            self.raw.append(frame.data)
            found = json.loads(frame.data)
            if found["type"] == "state":
                self.states.append(found)
            elif found["type"] == "moved":
                self.moved.append(found["table"])
            else:
                self.refusals.append(found["text"])

    @property
    def state(self) -> dict[str, Any]:
        assert self.states, "no state yet"
        return self.states[-1]

    async def send(self, **message: Any) -> None:
        await self.socket.send_str(json.dumps(message))

    def choices(self) -> list[str]:
        """The moves this page offers now: each card's and each button's."""
        hand = self.state.get("hand")
        if not hand or "game" not in self.state or self.state["game"]["seats"][self.state["seat"]]["auto"]:
            return []
        found = [m["move"] for card in hand["cards"] for m in card["moves"]]
        return found + [b["move"] for b in hand["buttons"]]

    async def play_one(self, rng: random.Random) -> bool:
        choices = self.choices()
        if not choices:
            return False
        await self.send(move=rng.choice(choices), version=self.state["game"]["version"])
        return True

    async def close(self) -> None:
        await self.socket.close()
        await self.reader
        await self.session.close()
