"""A bot's move reported as a bad one (docs/ai.md, "Reported moves"): /replay numbers the moves bots chose,
a player of the game reports one with /badmove, the position before it is stored, and bench/reports.py turns
the reports into a suite every level is played on (here a small one: the report just made)."""

from __future__ import annotations

import json
import random
import re

from bench.reports import export, replay
from engine.actions import parse_action
from engine.options import BotLevel
from engine.snapshot import loads
from engine.views import view
from tests.bot.conftest import Harness
from tests.bot.players import GROUP, open_table, play_until_over, press_and_wait, start, table_id


async def test_a_player_reports_a_bots_move_from_the_replay_and_the_suite_plays_every_level_on_it(
    harness: Harness,
) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann"])
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:bot")
    fake.add_user(2, "Bob")
    await start(harness, lobby)
    result = await play_until_over(fake, GROUP, [1], random.Random(6))
    game = int(re.search(r"#(\d+)", result).group(1))  # type: ignore[union-attr]
    asked = fake.send(1, GROUP, f"/replay {game}")
    await fake.wait_for(  # a long game comes in several messages; the last says how to report
        lambda: any("/badmove" in m.text for m in fake.bot_messages(GROUP) if m.reply_to == asked),
        what="replay",
    )
    shown = "\n".join(m.text for m in fake.bot_messages(GROUP) if m.reply_to == asked)
    numbered = [int(n) for n in re.findall(r"^\[(\d+)\] ", shown, re.M)]
    assert numbered and f"/badmove {game} 12" in shown  # the bot's moves, and how to report one
    log = await harness.deps.storage.games.log(game)
    own = next(i for i, a in enumerate(log, 1) if i not in numbered and a.seat == 0)  # one of Ann's

    async def said(user: int, text: str) -> str:
        return (await fake.answer_to(GROUP, fake.send(user, GROUP, text))).text

    assert "Only a player" in await said(2, f"/badmove {game} {numbered[0]}")
    assert "wasn't a bot's choice" in await said(1, f"/badmove {game} {own}")
    assert "like this" in await said(1, "/badmove twelve")
    assert "is reported" in await said(1, f"/badmove {game} {numbered[-1]} kept its trump for nothing")
    (report,) = await harness.deps.storage.reports.all()
    assert (report.game_id, report.seq, report.seat, report.level) == (game, numbered[-1], 1, "normal")
    assert report.note == "kept its trump for nothing"
    before = loads(report.position)  # the position just before the move: the move is legal there
    assert parse_action(report.move) in view(before, report.seat).moves
    suite = await export(str(harness.db_path))
    assert json.loads(json.dumps(suite))[0]["reported"] == report.move
    (decision,) = replay(suite, [BotLevel.EASY], budget_scale=0.01)
    assert decision["move"] and isinstance(decision["again"], bool)
    assert parse_action(decision["move"]) in view(before, report.seat).moves
