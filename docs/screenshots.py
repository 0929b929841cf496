"""Renders the web table as a player sees it, at 360×740 in Telegram's light and dark themes, into
docs/webapp-light.png and docs/webapp-dark.png: the bot against the tests' fake Bot API, three players
mid-game, one of them looking at the page in headless Chromium (Debian's chromium and chromium-driver).

    .venv/bin/python docs/screenshots.py
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import cards
from engine.moves import Kind, kind
from engine.views import view
from tests.bot.browser import DARK, LIGHT, Browser, page_url
from tests.bot.conftest import running
from tests.bot.players import open_table, table_id
from tests.bot.web import base, signed

DOCS = Path(__file__).resolve().parent


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        async for h in running(Path(folder), web_port=0, web_app="table", bot_move_delay=0.01):
            lobby = await open_table(h, ["Ann", "Борис", "Cid"])
            tid = table_id(lobby)
            order = cards.deck(36)
            random.Random(11).shuffle(order)
            service = h.deps.service
            assert (await service.start(tid, 1, False, deck=order)).ok
            # A few moves, until Ann defends against two cards: a table worth looking at.
            for _ in range(40):
                record = service.table(tid)
                assert record is not None and record.game is not None
                game = record.game
                if len(game.table()) >= 2 and game.defender == 0 and 0 in game.to_act():
                    break
                seat = game.to_act()[0]
                moves = view(game, seat).moves
                plays = [m for m in moves if kind(m) not in (Kind.TAKE, Kind.PASS)] or list(moves)
                await service.press(tid, seat + 1, game.version, plays[0])
            browser = await Browser.start(360, 740, scale=2)
            try:
                for name, theme in (("light", LIGHT), ("dark", DARK)):
                    await browser.open("about:blank")  # a new fragment alone would not load the page again
                    await browser.open(page_url(base(h), signed(1, "Ann", tid), theme=theme))
                    for _ in range(200):
                        if await browser.codes():
                            break
                        await asyncio.sleep(0.02)
                    await asyncio.sleep(0.3)
                    await browser.screenshot(DOCS / f"webapp-{name}.png")
                    print(f"docs/webapp-{name}.png")
            finally:
                await browser.quit()
            break


if __name__ == "__main__":
    asyncio.run(main())
