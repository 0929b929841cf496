"""The race of moves that the search player runs at a table of three or more (engine.ai.race): moves compared
deal by deal, the clearly worse ones dropped, the careful player's move where the race cannot tell."""

from __future__ import annotations

import random

from engine import Game, Options
from engine.ai import HeuristicPlayer, SearchPlayer, player_for
from engine.ai.race import CUT, FIRST_LOOK, Race, race
from engine.ai.worlds import Worlds
from engine.moves import TAKE
from engine.options import BotLevel
from engine.views import view


def raced(*results: list[float]) -> Race:
    """A race in which every move ran every round, move i's results ``results[i]``."""
    state = Race(len(results))
    for round_ in zip(*results, strict=True):
        state.add(list(round_))
    return state


def test_a_move_behind_on_the_same_deals_leaves_the_race_where_its_mean_alone_would_not_tell() -> None:
    """The deal's luck swings both moves alike (every other deal lost whatever is played); on eight deals of
    32 the second move loses where the first escapes, never the other way round. Their means (0.5 and 0.25)
    are about two standard errors apart, compared as two samples; paired by deal, over three."""
    luck = [1.0, 0.0] * 16
    worse = [0.0 if k % 4 == 0 else r for k, r in enumerate(luck)]
    even = [0.0 if k == 2 else 1.0 if k == 3 else r for k, r in enumerate(luck)]  # one deal each way
    state = raced(luck, worse, even)
    assert state.behind(0, 1) > CUT > state.behind(0, 2) == 0.0
    state.cut()
    assert state.alive == [0, 2]
    assert state.behind(1, 0) == 0.0, "a move is never behind one it leads"


def test_every_move_in_the_race_meets_the_same_worlds_and_the_same_random_numbers() -> None:
    """The same move entered twice gets the same result in every round: its two playouts saw one world and
    one stream of random numbers, so whatever tells two moves apart is the moves."""
    g = Game.deal(Options(), 3, rng=random.Random(5))
    seat = g.to_act()[0]
    seen = view(g, seat)
    moves = list(seen.moves)
    state = race(Worlds(seen, random.Random(2)), [moves[0], moves[0], *moves[1:]], lambda n: n >= 600, 0.08)
    assert state.rounds >= FIRST_LOOK
    assert state.runs[0] == state.runs[1] and state.gaps[0][1] == state.squares[0][1] == 0.0
    assert {0, 1} <= set(state.alive) or not {0, 1} & set(state.alive), "neither can leave without the other"
    for i in state.alive:
        assert state.runs[i] == state.rounds, "a move in the race ran every round"
    assert any(state.squares[0][i] for i in range(2, len(moves))), "other moves did differ"


def test_a_clearly_better_move_ends_the_race_early() -> None:
    """Once every other move has left, the decision is made: the rest of the budget is not spent."""
    state = raced([1.0] * FIRST_LOOK, [0.0] * FIRST_LOOK)
    state.cut()
    assert state.alive == [0]


def test_at_a_table_of_three_or_more_the_levels_race_their_moves_and_heads_up_they_search() -> None:
    for players, how in ((2, "search"), (3, "race"), (4, "race"), (6, "race")):
        for seed in range(6):
            g = Game.deal(Options(), players, rng=random.Random(seed))
            seen = view(g, g.to_act()[0])
            if len(seen.moves) > 1:
                break
        player = player_for(BotLevel.NORMAL, seed=1, budget_scale=0.1)
        assert isinstance(player, SearchPlayer)
        assert player.choose(seen) in seen.moves
        assert player.last is not None and player.last.how == how


def test_the_race_is_deterministic_under_a_seed() -> None:
    g = Game.deal(Options(), 4, rng=random.Random(9))
    seen = view(g, g.to_act()[0])
    first, second = (SearchPlayer(iterations=400, seed=4, races=True) for _ in range(2))
    assert first.choose(seen) == second.choose(seen)
    assert first.last is not None and second.last is not None
    assert first.last.iterations == second.last.iterations


def test_where_the_race_cannot_tell_the_careful_players_move_is_made_and_never_a_take() -> None:
    """The leader by a deal or two: the careful player's move instead if it is still in the race, and a
    cover still in it rather than a take; a move clearly ahead is made whatever it is."""
    g = Game.deal(Options(), 3, rng=random.Random(3))
    player = SearchPlayer(iterations=1, races=True)
    for _ in range(200):  # to a defence with a cover and the take to choose from
        seat = g.to_act()[0]
        seen = view(g, seat)
        if TAKE in seen.moves and len(seen.moves) > 2 and HeuristicPlayer().choose(seen) != TAKE:
            break
        g.apply(seat, HeuristicPlayer().choose(seen))
    moves = list(seen.moves)
    careful = moves.index(HeuristicPlayer().choose(seen))
    take = moves.index(TAKE)
    cover = next(i for i in range(len(moves)) if i not in (careful, take))
    close = [1.0] * 15 + [0.0]
    behind = [1.0] * 14 + [0.0, 0.0]
    results = [[0.0] * 16 for _ in moves]
    results[take], results[cover] = close, behind
    state = raced(*results)
    state.cut()
    assert careful not in state.alive
    assert player._pick_raced(state, seen, moves) == moves[cover], "a cover, not the take"
    results[careful] = behind
    assert player._pick_raced(raced(*results), seen, moves) == moves[careful] != TAKE
    results[take] = [1.0] * 16
    results[careful] = results[cover] = [0.0] * 16
    assert player._pick_raced(raced(*results), seen, moves) == TAKE, "a take clearly ahead is made"
