"""A series (docs/groups.md, "A series"): a rematch carries the score among the same players into the next
lobby and result, across a restart; /stats in reply to someone is your record against them."""

from __future__ import annotations

import random

from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.fake_telegram import FakeTelegram, Message
from tests.bot.players import GROUP, is_result, open_table, play_until_over, press_and_wait, start


def results(fake: FakeTelegram) -> list[Message]:
    return [m for m in fake.bot_messages(GROUP) if is_result(m.text)]


async def rematch(fake: FakeTelegram, result: Message) -> Message:
    """Ann takes the rematch under ``result``, Bob confirms, Ann deals; the new lobby."""
    data = next(data for label, data in result.buttons() if label == "Rematch")
    await press_and_wait(fake, 1, GROUP, result.message_id, data)
    lobby: Message = await fake.wait_for(
        lambda: next((m for m in reversed(fake.bot_messages(GROUP)) if "⏳" in m.text), None),
        what="the lobby",
    )
    tid = int(lobby.buttons()[0][1].split(":")[1])
    await press_and_wait(fake, 2, GROUP, lobby.message_id, f"L:{tid}:join")
    await fake.wait_for(lambda: "⏳" not in fake.messages[GROUP][lobby.message_id].text, what="Bob in")
    lobby.table_id = tid
    return lobby


async def test_a_rematch_chain_keeps_the_series_score_across_a_restart(harness: Harness) -> None:
    fake, rng = harness.fake, random.Random(4)
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], rng)
    first = results(fake)[-1]
    assert "Series" not in first.text  # one game is no series yet
    second_lobby = await rematch(fake, first)
    games = await harness.deps.storage.series.games(int(lobby.table_id or 0))
    won = {u: sum(u in g.winners for g in games) for u in (1, 2)}
    lobby_text = fake.messages[GROUP][second_lobby.message_id].text
    assert f"Series: Ann {won[1]} · Bob {won[2]}" in lobby_text, lobby_text
    await start(harness, second_lobby)
    await play_until_over(fake, GROUP, [1, 2], rng)
    # A restart before the third game is dealt: its lobby comes back with the series it carries on.
    third_lobby = await rematch(fake, results(fake)[-1])
    await stop_app(harness.app)
    harness.app = await start_app(fake, harness.db_path)
    assert harness.deps.service.tables[int(third_lobby.table_id or 0)].row.series == lobby.table_id
    await start(harness, third_lobby)
    await play_until_over(fake, GROUP, [1, 2], rng)
    games = await harness.deps.storage.series.games(int(lobby.table_id or 0))
    assert len(games) == 3
    won = {u: sum(u in g.winners for g in games) for u in (1, 2)}
    draws = sum(not g.winners for g in games)
    last = results(fake)[-1].text
    expected = f"Series: Ann {won[1]} · Bob {won[2]}" + (f" · {draws} draw" if draws else "")
    assert expected in last, last
    # Whoever asks /stats in reply to the other sees their record against them in the group.
    durak = {u: sum(u not in g.winners and bool(g.winners) for g in games) for u in (1, 2)}
    (newgame,) = [m for m in fake.messages[GROUP].values() if m.text == "/newgame"]
    asked = fake.send(2, GROUP, "/stats", reply_to=newgame.message_id)
    answer = await fake.answer_to(GROUP, asked)
    expected = f"🆚 Bob vs Ann here: 3 games together · wins: Bob {won[2]}, Ann {won[1]}"
    assert expected in answer.text and f"the durak: Bob {durak[2]} times, Ann {durak[1]}" in answer.text, (
        answer.text
    )
