"""An arena's pairing and scoring (bot.arena.rules, docs/groups.md "Game night"): properties over thousands of
random pools, and the scoring against games worked out by hand."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.arena.rules import LOSS, MIDDLE, WIN, Free, base_points, credits, pair, score, tally
from bot.arena.standings import podium, standings
from bot.handlers.arena import arena_args
from engine import Options
from storage.records import ArenaGame, ArenaPlayer, ArenaRow
from tests.engine.helpers import do, position


def _met(a: Free, b: Free) -> bool:
    return b.user_id in a.last or a.user_id in b.last


def pools(seed: int, size: int) -> list[Free]:
    """A pool as an arena leaves it: some rounds of games among the players, each remembering whom they met
    last, then some of them free."""
    rng = random.Random(seed)
    players = list(range(1, rng.randint(0, 14) + 1))
    last: dict[int, frozenset[int]] = {}
    for _ in range(rng.randint(0, 4)):
        playing = rng.sample(players, rng.randint(0, len(players)))
        for i in range(0, len(playing) - size + 1, size):
            table = playing[i : i + size]
            for p in table:
                last[p] = frozenset(table) - {p}
    free = rng.sample(players, rng.randint(0, len(players)))
    return [Free(p, rng.randint(0, 12), rng.random() * 100, last.get(p, frozenset())) for p in free]


@settings(max_examples=3000, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([2, 3]))
def test_the_pairing_seats_everyone_it_can_once_and_avoids_rematches(seed: int, size: int) -> None:
    free = pools(seed, size)
    tables = pair(free, size)
    seated = [u for t in tables for u in t]
    assert len(seated) == len(set(seated)), tables  # nobody in two games at once
    assert all(len(t) == size for t in tables)
    assert set(seated) <= {f.user_id for f in free}  # only free players
    assert len(free) - len(seated) < size  # nobody waits while enough others wait to fill a table
    by_id = {f.user_id: f for f in free}
    waiting = [f for f in free if f.user_id not in set(seated)]
    groups = [[by_id[u] for u in t] for t in tables]
    for table in groups:
        for player in table:
            if not any(_met(player, o) for o in table if o is not player):
                continue
            # A rematch: no other free player could have taken this one's place without meeting somebody
            # they had just played, nor this one theirs.
            for elsewhere in [waiting, *(g for g in groups if g is not table)]:
                for other in elsewhere:
                    fits_here = not any(_met(other, x) for x in table if x is not player)
                    fits_there = elsewhere is waiting or not any(
                        _met(player, x) for x in elsewhere if x is not other
                    )
                    assert not (fits_here and fits_there), (tables, player, other)


def test_two_players_free_play_each_other_again_when_nobody_else_is_there() -> None:
    a, b = Free(1, 0, 0.0, frozenset({2})), Free(2, 0, 1.0, frozenset({1}))
    assert pair([a, b], 2) == [(1, 2)]
    c = Free(3, 9, 2.0)
    assert pair([a, b, c], 2) == [(1, 3)]  # the rematch avoided, though 3's score is far from 1's


def test_the_longest_waiting_is_seated_first_beside_the_closest_score() -> None:
    pool = [Free(1, 4, 5.0), Free(2, 0, 1.0), Free(3, 5, 3.0), Free(4, 1, 4.0)]
    assert pair(pool, 2) == [(2, 4), (3, 1)]
    assert pair(pool, 3) == [(2, 4, 1)]  # closest to the first seated


def test_points_by_place_streaks_and_berserk_as_worked_out_by_hand() -> None:
    assert base_points(1, lost=False, drawn=False) == WIN
    assert base_points(1, lost=False, drawn=True) == MIDDLE  # a draw
    assert base_points(2, lost=False, drawn=False) == MIDDLE  # second of three
    assert base_points(2, lost=True, drawn=False) == LOSS
    games = [
        (WIN, False),
        (WIN, True),
        (WIN, False),
        (MIDDLE, False),
        (WIN, True),
        (LOSS, True),
        (WIN, False),
    ]
    assert [o.points for o in tally(games)] == [2, 3, 4, 2, 3, 0, 2]
    assert [o.streak for o in tally(games)] == [False, False, True, True, False, False, False]
    assert score(WIN, True, [WIN, WIN]).points == 5  # doubled, then the berserk point


def test_an_ended_game_credits_places_a_draw_and_pauses_whom_a_bot_stood_in_for() -> None:
    drawn = position(["7s", "8s"], trump="h")
    do(drawn, 0, "l7s")
    do(drawn, 1, "c7s8s")  # both out in one bout: a draw
    assert credits([1, 2], drawn) == ({1: MIDDLE, 2: MIDDLE}, [])
    won = position(["7s", "8c 9c"], trump="h")
    do(won, 0, "l7s")
    do(won, 1, "x")  # the defender takes the last attack: the durak
    assert credits([5, None], won) == ({5: WIN}, [])  # an added bot's seat counts for nobody
    three = position(["7s", "8s", "9c Tc Jc"], trump="h")
    three.bot_seats |= 1 << 2  # a bot stands in for the third player
    do(three, 0, "l7s")
    do(three, 1, "c7s8s")
    assert three.result is not None
    bases, paused = credits([1, 2, 3], three)
    assert bases[3] == LOSS and paused == [3]
    assert credits([1, 2], None) == ({}, [])  # ended without a game: nothing counts


def test_the_board_orders_points_then_wins_then_fewer_games() -> None:
    def game(table: int, user: int, base: int, at: float, berserk: bool = False) -> ArenaGame:
        return ArenaGame(table_id=table, user_id=user, base=base, berserk=berserk, finished_at=at)

    players = tuple(ArenaPlayer(user_id=u, state="in", berserk=False, free_since=0.0) for u in (1, 2, 3))
    games = (
        game(1, 1, WIN, 1.0), game(1, 2, LOSS, 1.0),
        game(2, 3, MIDDLE, 2.0), game(2, 1, MIDDLE, 2.0),  # a draw
        game(3, 2, WIN, 3.0), game(3, 3, LOSS, 3.0),
        game(4, 1, LOSS, 4.0), game(4, 3, WIN, 4.0, berserk=True),
    )  # fmt: skip
    row = ArenaRow(
        id=1, chat_id=-1, thread_id=0, creator_id=1, options=Options(), size=2, started_at=0.0, ends_at=9.0,
        finished=True, message_id=None, podium_message_id=None, players=players, games=games,
    )  # fmt: skip
    board = standings(row)
    assert [(s.user_id, s.points, s.wins, s.games) for s in board] == [
        (3, 4, 1, 3),
        (1, 3, 1, 3),
        (2, 2, 1, 2),
    ]
    assert [s.user_id for s in podium(row)] == [3, 1, 2]


def test_the_arena_command_reads_minutes_then_players_a_table() -> None:
    assert arena_args("/arena") == (60, 2)
    assert arena_args("/arena 30") == (30, 2)
    assert arena_args("/arena@durak_bot 3 3") == (3, 3)
    for wrong in ("/arena 0", "/arena 181", "/arena 60 4", "/arena sixty", "/arena 60 2 1", "/arena -5"):
        assert arena_args(wrong) is None, wrong
