"""The web table over its socket, through the real bot (PTB, the fake Bot API, SQLite): who may open it,
what each viewer is sent, moves by tap through the same table commands as the chat's buttons, a whole game
played from the pages, and a page that reconnects."""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.web.auth import viewer
from bot.web.relay import peer_url
from engine.moves import move_str
from engine.views import view
from tests.bot.conftest import Harness, running
from tests.bot.fake_telegram import TOKEN
from tests.bot.players import GROUP, is_result, open_table, start, table_id
from tests.bot.web import Page, base, signed


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Harness]:
    async for h in running(tmp_path, web_port=0, web_app="table", bot_move_delay=0.01):
        yield h


def test_init_data_is_checked_as_telegram_documents_it() -> None:
    now = time.time()
    good = signed(7, "Ann", 12)
    found = viewer(good, TOKEN, 3600, now)
    assert found is not None and (found.user_id, found.table_id, found.user.first_name) == (7, 12, "Ann")
    assert viewer("", TOKEN, 3600, now) is None  # missing
    assert viewer(good, TOKEN.replace("A", "B", 1) + "x", 3600, now) is None  # another bot's token
    assert viewer(good.replace("Ann", "Bob"), TOKEN, 3600, now) is None  # altered
    assert viewer(good.replace("user=", "user=1"), TOKEN, 3600, now) is None  # malformed
    old = signed(7, "Ann", 12, auth_date=int(now) - 7200)
    assert viewer(old, TOKEN, 3600, now) is None  # expired
    assert viewer(signed(7, "Ann", 12, auth_date=int(now) + 3600), TOKEN, 3600, now) is None  # the future


async def test_who_may_open_a_table(web: Harness) -> None:
    lobby = await open_table(web, ["Ann", "Bob", "Cid"])
    tid = table_id(lobby)
    web.fake.add_user(9, "Eve")  # not in the group
    async with aiohttp.ClientSession() as session:

        async def status(init: str, table: int | str = "") -> int:
            found = await session.get(f"{base(web)}/socket", params={"init": init, "table": str(table)})
            return found.status

        assert await status("") == 401
        assert await status(signed(1, "Ann", tid).replace("Ann", "Eve")) == 401
        assert await status(signed(1, "Ann", tid, auth_date=int(time.time()) - 2 * 86400)) == 401
        assert await status(signed(9, "Eve", tid)) == 403  # a stranger sees nothing
        assert await status(signed(1, "Ann", 999)) == 404
        assert await status(signed(1, "Ann"), tid) == 200  # the table named by the page's address
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"{base(web)}/socket", params={"init": "user=x&hash=00", "table": "1"})
        assert refused.value.status == 401
        page = await session.get(f"{base(web)}/")
        assert page.status == 200 and "script-src 'self'" in page.headers["Content-Security-Policy"]


async def test_each_viewer_is_sent_what_they_may_see_and_a_game_plays_to_the_end(web: Harness) -> None:
    fake = web.fake
    lobby = await open_table(web, ["Ann", "Bob"])
    tid = table_id(lobby)
    fake.add_user(3, "Cid")
    fake.send(3, GROUP, "hello")  # Cid, a member of the group who does not play
    await start(web, lobby)
    pages = {user: await Page.open(web, signed(user, name, tid)) for user, name in ((1, "Ann"), (2, "Bob"))}
    watcher = await Page.open(web, signed(3, "Cid", tid))
    rng = random.Random(5)
    service = web.deps.service

    def refused() -> int:
        return sum(len(p.refusals) for p in pages.values())

    def taken(version: int, refusals: int) -> bool:
        """The table moved on from ``version``, or the move was refused (a page a state behind)."""
        found = service.table(tid)
        return (found is not None and found.version > version) or refused() > refusals

    await fake.wait_for(lambda: all(p.states for p in pages.values()), what="the pages' first states")
    await web.deps.outbox.idle()  # the hands the deal sent before the pages opened

    def private_calls() -> int:
        return sum(1 for sent in fake.sent if sent.chat_id in (1, 2))

    calls = private_calls()
    for _ in range(2000):
        record = service.table(tid)
        assert record is not None
        if record.game is not None and record.game.over:
            break
        for user in rng.sample(list(pages), 2):
            before, version = refused(), record.version
            if await pages[user].play_one(rng):
                await fake.wait_for(lambda: taken(version, before), what="the move taken")
                break
        else:
            await asyncio.sleep(0.02)
    await fake.wait_for(lambda: any(is_result(m.text) for m in fake.bot_messages(GROUP)), what="the result")
    record = service.table(tid)
    assert record is not None and record.game is not None and record.game.over
    for page in pages.values():
        await fake.wait_for(lambda: "result" in page.state, what="the result on the page")
        # ... and, once it settles, the table's last record (a message id stored after the result is one).
        await fake.wait_for(
            lambda: (r := service.table(tid)) is not None and page.state["version"] == r.version,
            what="the last record on the page",
        )
    # Nobody was ever sent a card they could not see: their own, those on the table, the trump turned up.
    viewers: list[tuple[int | None, Page]] = [*pages.items(), (None, watcher)]
    for who, shown in viewers:
        for state in shown.states:
            seat: int | None = state["seat"]
            assert seat == (None if who is None else who - 1)
            game = state.get("game")
            if game is None:
                continue
            visible = {p["attack"]["code"] for p in game["pairs"]} | {
                p["cover"]["code"] for p in game["pairs"] if p["cover"]
            }
            if game["trump_card"]:
                visible.add(game["trump_card"]["code"])
            own = {c["code"] for c in state["hand"]["cards"]} if seat is not None else set()
            assert "hand" in state or seat is None
            sent = {c["code"] for c in state.get("hand", {}).get("cards", [])}
            assert sent <= own | visible
    assert all("hand" not in s for s in watcher.states)
    # The move's seconds, for the page to count down: while a move is awaited, at most the move timer.
    timer = record.row.options.move_timer
    for state in pages[1].states:
        game = state.get("game")
        if game is not None and not state.get("result"):
            assert 0 < game["left"] <= timer, game.get("left")
    assert "left" not in pages[1].state["game"]  # over: no clock
    # The pages were told the same game the chat shows: the final state's seats and places.
    final = view(record.game, None)
    places = [s["place"] for s in pages[1].state["game"]["seats"]]
    assert places == [info.place for info in final.seats]
    results = await web.deps.storage.results.players(record.game_row.id)  # type: ignore[union-attr]
    assert len(results) == 2  # rated and recorded as any game
    # While the players' pages were on screen their hands cost no Bot API call; once the pages close, the
    # private chats catch up with the end of the game.
    await web.deps.outbox.idle()
    assert private_calls() == calls
    for page in [*pages.values(), watcher]:
        await page.close()
    await fake.wait_for(lambda: private_calls() >= calls + 2, what="the hands drawn in the chat again")
    # The rematch from the page: Ann's page follows her to the new table, Bob confirms there, Ann deals.
    ann = await Page.open(web, signed(1, "Ann", tid))
    await fake.wait_for(lambda: ann.states and ann.state.get("rematch"), what="the rematch offered")
    await ann.send(lobby="rematch")
    await fake.wait_for(lambda: ann.moved, what="the page moved on")
    new = ann.moved[0]
    await ann.close()
    ann = await Page.open(web, signed(1, "Ann", tid), new)
    bob = await Page.open(web, signed(2, "Bob", tid), new)
    await fake.wait_for(lambda: bob.states and bob.state["lobby"]["join"], what="Bob asked to confirm")
    assert ann.state["lobby"]["start"] and not ann.state["lobby"]["join"]
    await bob.send(lobby="join")
    await fake.wait_for(lambda: not bob.state.get("lobby", {}).get("join", True), what="Bob confirmed")
    await ann.send(lobby="start")
    await fake.wait_for(lambda: "hand" in ann.state and "hand" in bob.state, what="the new deal")
    for page in (ann, bob):
        await page.close()


async def test_a_refused_tap_is_told_and_a_dropped_page_resumes(web: Harness) -> None:
    fake = web.fake
    lobby = await open_table(web, ["Ann", "Bob"])
    tid = table_id(lobby)
    await start(web, lobby)
    record = web.deps.service.table(tid)
    assert record is not None and record.game is not None
    waiting = next(s for s in range(2) if s not in record.game.to_act())
    page = await Page.open(web, signed(waiting + 1, "Ann" if waiting == 0 else "Bob", tid))
    await fake.wait_for(lambda: page.states, what="the first state")
    mover = record.game.to_act()[0]
    choice = view(record.game, mover).moves[0]  # the other player's move: not this player's to make
    await page.send(move=move_str(choice), version=page.state["game"]["version"])
    await page.send(move="nonsense", version=1)
    await fake.wait_for(lambda: len(page.refusals) == 2, what="two refusals")
    assert all(page.refusals), page.refusals
    shown = page.state["version"]
    await page.close()
    # The other player moves while this page is closed; reopened, it shows the table as it is now.
    opened = await Page.open(web, signed(mover + 1, "x", tid))
    await fake.wait_for(lambda: opened.states, what="the mover's state")
    await opened.send(move=move_str(choice), version=opened.state["game"]["version"])
    again = await Page.open(web, signed(waiting + 1, "x", tid))
    await fake.wait_for(lambda: again.states and again.state["version"] > shown, what="the current state")
    current = web.deps.service.table(tid)
    await fake.wait_for(lambda: again.state["version"] == current.version, what="the last version")  # type: ignore[union-attr]
    await again.close()
    # The bot stops with a page open: the page is told the server is going away (it opens its socket again,
    # at whichever process serves the table by then), and the stop does not wait for the page to leave.
    assert web.deps.web is not None
    await asyncio.wait_for(web.deps.web.stop(), 5)
    await asyncio.wait_for(opened.reader, 5)
    assert opened.socket.close_code == aiohttp.WSCloseCode.GOING_AWAY
    await opened.session.close()


def test_other_processes_reach_a_web_table_at_the_address_it_listens_at() -> None:
    assert peer_url("127.0.0.1", 8080) == "http://127.0.0.1:8080"
    assert peer_url("::1", 8080) == "http://[::1]:8080"
    assert peer_url("0.0.0.0", 18441) == f"http://{socket.gethostname()}:18441"  # every address: the host
