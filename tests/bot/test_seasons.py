"""Seasons: /top shows the group's current season by default (points per place), with buttons for all time
and the seasons before; when a season ends the group is shown its podium once, and only if it played."""

from __future__ import annotations

import random

from bot import seasons
from bot.i18n import texts
from storage.seasons import bounds, season_of, shift
from tests.bot.conftest import Harness
from tests.bot.fake_telegram import FakeTelegram, Message
from tests.bot.players import GROUP, open_table, play_until_over, press_and_wait, start

EN = texts("en")


async def said(fake: FakeTelegram, user: int, text: str) -> Message:
    return await fake.ask(user, GROUP, text)


async def press(fake: FakeTelegram, user: int, message: Message, label: str) -> str:
    """Press the button whose label starts with ``label``; the message's text once it changed."""
    before = fake.messages[GROUP][message.message_id].text
    data = next(d for lb, d in fake.messages[GROUP][message.message_id].buttons() if lb.startswith(label))
    await press_and_wait(fake, user, GROUP, message.message_id, data)
    return str(
        await fake.wait_for(
            lambda: (text := fake.messages[GROUP][message.message_id].text) != before and text,
            what="a redraw",
        )
    )


async def test_a_season_board_by_default_all_time_on_a_button_and_one_podium_when_it_ends(
    harness: Harness,
) -> None:
    fake = harness.fake
    clock = harness.deps.service.env.clock
    now = season_of(clock(), "monthly")
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    result = await play_until_over(fake, GROUP, [1, 2], random.Random(5))
    winner, loser = ("Bob", "Ann") if "Ann is the durak" in result else ("Ann", "Bob")
    board = await said(fake, 1, "/top")
    assert f"<b>{EN.season(now)} season · throw-in</b>" in board.text
    assert f"1. {winner} — 1 point · 1 game" in board.text and f"2. {loser} — 0 points · 1 game" in board.text
    all_time = await press(fake, 1, board, "All time")
    assert "Chat leaderboard · throw-in" in all_time  # by rating, from 3 games on
    back = await press(fake, 1, board, "Season:")
    assert f"{EN.season(now)} season" in back
    earlier = await press(fake, 1, board, f"◀ {EN.season(shift(now, -1))}")
    assert "Nobody has played a rated game this season yet." in earlier
    stats = (await said(fake, 2 if winner == "Bob" else 1, "/stats")).text
    assert f"{EN.season(now)} season: 1 point, rank 1" in stats

    # The season ends (a controlled clock): the podium comes once, to the group that played only.
    fake.add_group(-500, "Quiet")
    fake.send(1, -500, "/help")
    await fake.wait_for(lambda: fake.bot_messages(-500), what="the quiet group's reply")
    later = bounds(shift(now, 1))[0] + 60
    assert await seasons.announce(harness.deps, later) == 1
    assert await seasons.announce(harness.deps, later + 3600) == 0
    await harness.deps.outbox.idle()
    podiums = [m.text for m in fake.bot_messages(GROUP) if "season is over" in m.text]
    assert podiums == [
        f"🏆 The {EN.season(now)} season is over. Thanks for playing!\n\n<b>Throw-in</b>\n"
        f"🥇 1. {winner} — 1 point · 1 game\n🥈 2. {loser} — 0 points · 1 game\n\n"
        "A new season starts now: every board begins at zero. /top"
    ]
    assert not any("season is over" in m.text for m in fake.bot_messages(-500))


async def test_a_group_chooses_quarterly_seasons_or_none(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    fake.admins[GROUP] = {1}
    menu = await said(fake, 1, "/settings")
    assert "Seasons: quarterly" in await press_menu(fake, menu, "Seasons")
    quarter = season_of(harness.deps.service.env.clock(), "quarterly")
    assert f"{EN.season(quarter)} season · throw-in" in (await said(fake, 2, "/top")).text
    assert "Seasons: off" in await press_menu(fake, menu, "Seasons")
    board = await said(fake, 2, "/top")
    assert "Chat leaderboard · throw-in" in board.text and "Season" not in str(board.buttons())
    assert lobby.table_id is not None


async def press_menu(fake: FakeTelegram, menu: Message, label: str) -> str:
    """An admin's press in the settings menu; its buttons' labels once redrawn."""
    before = str(fake.messages[GROUP][menu.message_id].buttons())
    data = next(d for lb, d in fake.messages[GROUP][menu.message_id].buttons() if lb.startswith(label))
    await press_and_wait(fake, 1, GROUP, menu.message_id, data)
    return str(
        await fake.wait_for(
            lambda: (now := str(fake.messages[GROUP][menu.message_id].buttons())) != before and now,
            what="the menu redrawn",
        )
    )
