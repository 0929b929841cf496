"""Results, statistics, ratings (per chat and global, per game type) and leaderboards."""

from __future__ import annotations

from engine import Options, Result, Variant
from storage import GLOBAL, Storage
from storage.records import GameResult
from storage.results import result_from_engine
from tests.engine.helpers import do, position
from tests.storage.conftest import make_users


async def finished_game(
    store: Storage,
    chat: int,
    users: list[int | None],
    result: Result,
    options: Options,
    *,
    rated: bool = True,
) -> GameResult:
    """Store a table and game for ``users`` (None: a bot seat) and record ``result``."""
    await make_users(store, *[u for u in users if u is not None])
    await store.chats.seen(chat, "group", "G")
    creator = next(u for u in users if u is not None)
    table = await store.tables.create(chat, 0, creator, options)
    seats = []
    for user in users:
        seats.append(
            await store.tables.add_seat(table.id, user)
            if user
            else await store.tables.add_seat(table.id, bot_level="normal")
        )
    row = await store.games.start(table.id, "{}", 0, rated=rated, deadline=None)
    record = result_from_engine(
        row.id,
        chat,
        tuple(seats),
        result,
        options,
        rated=rated,
        started_at=row.started_at,
        finished_at=row.started_at + 300,
    )
    return await store.results.record(record, teams=options.teams)


def result(
    places: tuple[int, ...], losers: tuple[int, ...], *, draw: bool = False, pogony: bool = False
) -> Result:
    return Result(
        places=places,
        durak=losers[0] if len(losers) == 1 else None,
        losers=losers,
        draw=draw,
        drawn=tuple(s for s, p in enumerate(places) if draw and p == max(places)),
        pogony=pogony,
        losing_team=None,
        bouts=10,
    )


async def test_a_result_records_places_and_moves_rating_up_for_winners(store: Storage) -> None:
    stored = await finished_game(store, -1, [1, 2, 3], result((1, 2, 3), (2,), pogony=True), Options())
    before_after = {p.user_id: (p.rating_before, p.rating_after) for p in stored.players}
    assert before_after[1][1] > before_after[1][0] and before_after[3][1] < before_after[3][0]  # type: ignore[operator]
    assert stored.duration == 300 and stored.pogony and stored.durak_seat == 2
    loser = next(p for p in stored.players if p.user_id == 3)
    assert loser.durak and loser.pogony and not loser.won
    table = await store.tables.open_in(-1)
    assert table is None  # the table is finished


async def test_shared_places_are_ties(store: Storage) -> None:
    await finished_game(store, -1, [1, 2, 3], result((1, 1, 3), (2,)), Options())
    board = await store.results.leaderboard(-1, "throw_in")
    ratings = {leader.user_id: leader.rating for leader in board}
    assert ratings[1] == ratings[2] > ratings[3]


async def test_a_draw_is_a_tie_and_counts_as_a_draw(store: Storage) -> None:
    await finished_game(store, -1, [1, 2], result((1, 1), (), draw=True), Options())
    board = await store.results.leaderboard(-1, "throw_in")
    assert board[0].rating == board[1].rating
    stats = await store.results.stats(1, -1)
    assert (stats[0].games, stats[0].wins, stats[0].draws, stats[0].durak) == (1, 0, 1, 0)


async def test_team_games_are_rated_per_team(store: Storage) -> None:
    g = position(["7s", "8s 9c", "", "Ts Qs"], trump="h", teams=True)
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    assert g.result is not None
    stored = await finished_game(store, -1, [1, 2, 3, 4], g.result, Options(teams=True))
    after = {p.user_id: p.rating_after for p in stored.players}
    assert after[1] == after[3] and after[2] == after[4] and after[1] > after[2]  # type: ignore[operator]
    won = {p.user_id: p.won for p in stored.players}
    assert won == {1: True, 2: False, 3: True, 4: False}


async def test_game_types_have_separate_ratings(store: Storage) -> None:
    await finished_game(store, -1, [1, 2], result((1, 2), (1,)), Options())
    await finished_game(store, -1, [1, 2], result((2, 1), (0,)), Options(variant=Variant.TRANSFER))
    throw_in = {x.user_id: x.rating for x in await store.results.leaderboard(-1, "throw_in")}
    transfer = {x.user_id: x.rating for x in await store.results.leaderboard(-1, "transfer")}
    assert throw_in[1] > throw_in[2] and transfer[2] > transfer[1]
    assert {s.game_type for s in await store.results.stats(1)} == {"throw_in", "transfer"}


async def test_practice_games_with_a_bot_from_the_start_are_not_rated(store: Storage) -> None:
    stored = await finished_game(store, -1, [1, None], result((1, 2), (1,)), Options())
    assert not stored.rated and all(p.rating_after is None for p in stored.players)
    assert await store.results.leaderboard(-1, "throw_in") == []
    assert await store.results.leaderboard(GLOBAL, "throw_in") == []
    stats = await store.results.stats(1)
    assert stats[0].games == 1 and stats[0].wins == 1 and stats[0].rating is None


async def test_chat_boards_are_separate_and_the_global_board_counts_every_chat(store: Storage) -> None:
    await finished_game(store, -1, [1, 2], result((1, 2), (1,)), Options())
    await finished_game(store, -2, [1, 2], result((1, 2), (1,)), Options())
    await finished_game(store, -3, [2, 3], result((1, 2), (1,)), Options())
    chat1 = await store.results.leaderboard(-1, "throw_in")
    assert [x.user_id for x in chat1] == [1, 2] and all(x.games == 1 for x in chat1)
    board = await store.results.leaderboard(GLOBAL, "throw_in")
    games = {x.user_id: x.games for x in board}
    assert games == {1: 2, 2: 3, 3: 1}
    # The minimum number of games to appear.
    assert {x.user_id for x in await store.results.leaderboard(GLOBAL, "throw_in", min_games=2)} == {1, 2}
    rank = await store.results.standing(3, GLOBAL, "throw_in")
    assert rank is not None and rank[0] == 3


async def test_stats_add_up_per_game_type(store: Storage) -> None:
    await finished_game(store, -1, [1, 2, 3], result((1, 2, 3), (2,), pogony=True), Options())
    await finished_game(store, -2, [1, 2, 3], result((3, 1, 1), (0,)), Options())
    (stats,) = await store.results.stats(1)
    assert (stats.games, stats.wins, stats.durak, stats.pogony, stats.average_place) == (2, 1, 1, 0, 2.0)
    (three,) = await store.results.stats(3)
    assert (three.durak, three.pogony) == (1, 1)
    (chat_only,) = await store.results.stats(1, -2)
    assert chat_only.games == 1 and chat_only.rank == 3
