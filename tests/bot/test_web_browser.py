"""The web table in a real browser (headless Chromium): two players play a whole game by tapping cards and
buttons on their pages while a third plays from Telegram's buttons; after every move no page's DOM holds a
card its player has not seen; a member of the group watches, a stranger and a forged login see nothing; a
socket dropped mid-game comes back by itself."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.cards import card_code
from engine.views import view
from tests.bot.browser import MISSING, Browser, page_url
from tests.bot.conftest import Harness, running
from tests.bot.players import (
    GROUP,
    hand_message,
    is_result,
    move_choices,
    open_table,
    press_and_wait,
    start,
    table_id,
)
from tests.bot.web import base, signed

pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Harness]:
    async for h in running(tmp_path, web_port=0, web_app="table", bot_move_delay=0.01):
        yield h


async def test_two_pages_and_a_chat_player_play_a_whole_game(web: Harness) -> None:
    fake = web.fake
    lobby = await open_table(web, ["Ann", "Bob", "Cid"])
    tid = table_id(lobby)
    fake.add_user(4, "Dan")
    fake.send(4, GROUP, "hi")  # a member of the group, watching
    fake.add_user(5, "Eve")  # not in the group
    await start(web, lobby)
    service = web.deps.service
    browsers = [await Browser.start() for _ in range(5)]
    ann, bob, dan, eve, forger = browsers
    try:
        for browser, (user, name) in zip(
            browsers[:4], [(1, "Ann"), (2, "Bob"), (4, "Dan"), (5, "Eve")], strict=True
        ):
            await browser.open(page_url(base(web), signed(user, name, tid)))
        await forger.open(page_url(base(web), signed(1, "Ann", tid).replace("Ann", "Eve")))
        pages = {0: ann, 1: bob}

        async def shown(browser: Browser, css: str) -> str:
            for _ in range(500):
                text = await browser.text(css)
                if text:
                    return text
                await asyncio.sleep(0.02)
            raise AssertionError(f"nothing in {css}")

        assert "only for the members" in await shown(eve, "#notice")
        assert "can't be checked" in await shown(forger, "#notice")
        assert "watching" in await shown(dan, "#notice")
        await shown(ann, "#seats")
        # The move's clock counts down on the page, between the server's states.
        first = int((await shown(ann, "#clock")).removeprefix("⏳ "))
        await asyncio.sleep(1.6)
        assert 0 < int((await ann.text("#clock")).removeprefix("⏳ ")) < first
        seen: dict[int, set[str]] = {0: set(), 1: set(), 2: set()}  # each seat's own cards, ever
        public: set[str] = set()  # cards that were on the table, or turned up as trump
        rng = random.Random(3)
        dropped = False
        for _ in range(600):
            # What the pages hold is read first, then what was ever seen: a page is never ahead of the table.
            held = {seat: await browser.codes() for seat, browser in pages.items()}
            watched = await dan.codes()
            record = service.table(tid)
            assert record is not None and record.game is not None
            game = record.game
            for seat in range(3):
                seen[seat] |= {card_code(c) for c in game.hand(seat)}
            # Public: on the table now, or once and since discarded or picked up (the engine's public view says
            # which: a bout can end between the page being read and the table), and the trump turned up.
            everybody = view(game, None)
            public.update(card_code(c) for pair in game.table() for c in pair if c is not None)
            public.update(card_code(c) for c in everybody.seen)
            public.update(card_code(c) for info in everybody.seats for c in info.known)
            if everybody.trump_card is not None:
                public.add(card_code(everybody.trump_card))
            for seat, codes in held.items():
                assert codes <= seen[seat] | public, f"seat {seat} sees a hidden card"
            assert watched <= public
            if game.over:
                break
            if not dropped and game.version > 6:  # the server drops Ann's socket: her page comes back
                assert web.deps.hub is not None
                for page in list(web.deps.hub.pages.get(tid, ())):
                    if page.user_id == 1:
                        await page.socket.close()  # type: ignore[attr-defined]
                dropped = True
            moved = await _move(web, pages, rng, tid)
            if not moved:
                await asyncio.sleep(0.05)
        await fake.wait_for(
            lambda: any(is_result(m.text) for m in fake.bot_messages(GROUP)), what="the result"
        )
        for browser in (ann, bob, dan):
            assert "Game over" in await shown(browser, "#result")
        assert dropped
        # Rematch from the page: Ann's page follows her to the new table's lobby, where she is the host.
        (again,) = await ann.all("#result button[data-lobby=rematch]")
        assert await ann.click(again)
        for _ in range(300):
            if await ann.all("#buttons button[data-lobby=start]"):
                break
            await asyncio.sleep(0.02)
        assert "Bob" in await ann.text("#seats")
        assert await ann.all("#buttons button[data-lobby=start]")
        record = service.table(tid)
        assert record is not None and record.game_row is not None
        assert len(await web.deps.storage.results.players(record.game_row.id)) == 3
    finally:
        for browser in browsers:
            await browser.quit()


async def _move(web: Harness, pages: dict[int, Browser], rng: random.Random, tid: int) -> bool:
    """One move by whoever may move: a tap on a page, or Cid's press in Telegram."""
    record = web.deps.service.table(tid)
    assert record is not None and record.game is not None
    to_act = list(record.game.to_act())
    rng.shuffle(to_act)
    for seat in to_act:
        if seat == 2:
            message = hand_message(web.fake, 3)
            choices = move_choices(message.reply_markup) if message is not None else []
            if message is None or not choices:
                continue
            await press_and_wait(web.fake, 3, 3, message.message_id, rng.choice(choices))
            return await _moved(web, tid, record.version)
        browser = pages[seat]
        picked = await browser.all("#table .pair.target")
        if picked:
            if not await browser.click(rng.choice(picked)):
                return False  # drawn anew meanwhile: the next round looks again
            return await _moved(web, tid, record.version)
        taps = await browser.all("#hand .card.legal") + await browser.all("#buttons button[data-move]")
        if not taps:
            continue
        if not await browser.click(rng.choice(taps)):
            return False
        if await browser.all("#table .pair.target"):  # a card that covers several: which? (next round)
            return True
        return await _moved(web, tid, record.version)
    return False


async def _moved(web: Harness, tid: int, version: int) -> bool:
    for _ in range(300):
        record = web.deps.service.table(tid)
        if record is not None and record.version > version:
            return True
        await asyncio.sleep(0.01)
    return False  # refused (the page was a state behind): the next round tries again
