"""engine.ai.value: the features read the two hands, the model judges heads-up endgames much as the exact
solver does (far closer than a playout), and the search's playouts stop exactly where it may judge."""

from __future__ import annotations

import random

import pytest

from engine import Game, Options
from engine.ai import SearchPlayer
from engine.ai.policy import play_on, playout, policy_move, rewards
from engine.ai.solver import OutOfBudget, Solver
from engine.ai.value import FEATURES, WEIGHTS, features, lead_chance
from engine.ai.worlds import Worlds
from engine.views import view
from tests.engine.helpers import position


def test_the_features_read_the_two_hands() -> None:
    game = position(["6s 6c Qh", "7s Kd"], trump="h", lead=0)  # hearts are trumps
    f = dict(zip(FEATURES, features(game), strict=True))
    assert len(WEIGHTS) == len(FEATURES)
    assert (f["bias"], f["cards A - D"], f["cards A"], f["cards D"], f["trumps A - D"]) == (1, 1, 3, 2, 1)
    assert f["A's cards D cannot cover"] == 2  # 6♣ and Q♥; 7♠ covers 6♠
    assert f["D's cards A cannot cover"] == 0  # the queen of trumps covers both
    assert f["highest trump: A +1, D -1"] == 1
    # Costs: a six 4, a seven 5, a king 11, the queen of trumps 10 + 13.
    assert f["mean cost A - D"] == pytest.approx((4 + 4 + 23) / 3 - (5 + 11) / 2)
    assert (f["ranks A - cards A"], f["ranks D - cards D"]) == (-1, 0)  # a pair of sixes
    assert (f["lowest cost A"], f["highest cost D"]) == (4, 11)
    assert f["share of A's cards D cannot cover"] == pytest.approx(2 / 3)
    assert f["share of D's cards A cannot cover"] == 0
    assert f["A's plain cards D holds no higher card of their suit for"] == 1  # 6♣
    assert f["D's plain cards A holds no higher card of their suit for"] == 2
    assert (f["A holds one card"], f["D holds one card"], f["trump cost A - D"]) == (0, 0, 23)
    swapped = dict(zip(FEATURES, features(position(["6s 6c Qh", "7s Kd"], trump="h", lead=1)), strict=True))
    assert (swapped["cards A - D"], swapped["highest trump: A +1, D -1"]) == (-1, -1)


def endgames(first: int, count: int) -> list[Game]:
    """Heads-up endgame starts as the search's playouts reach them, from deals the model was not fitted on
    (bench/endgame_value.py fits on deals from 0)."""
    found = []
    for deal in range(first, first + count):
        game = Game.deal(Options(draw=deal % 2 == 0), 2, rng=random.Random(deal))
        if play_on(game, random.Random(deal).random, 0.25, None, True) is None:
            found.append(game)
    return found


def test_the_model_judges_endgames_much_as_the_solver_does_and_a_playout_does_not() -> None:
    model = playouts = 0.0
    judged = 0
    rng = random.Random(1)
    for game in endgames(1_000_000, 60):
        try:
            exact = Solver(game.lead, limit=50_000).value(game.copy())
        except OutOfBudget:
            continue
        judged += 1
        model += (lead_chance(game) - exact) ** 2
        played = [rewards(playout(game.copy(), rng.random, 0.25), 2)[game.lead] for _ in range(10)]
        playouts += sum((p - exact) ** 2 for p in played) / len(played)
    assert judged >= 40
    # Measured when the weights were fitted (Brier scores): about 0.08 for the model, 0.26 for a playout.
    assert model / judged < 0.13 < playouts / judged


def test_a_playout_stops_where_a_heads_up_endgame_begins_and_goes_on_from_there_unchanged() -> None:
    for deal in range(30):
        game = Game.deal(Options(), 2, rng=random.Random(deal))
        rng = random.Random(deal)
        stopped = game.copy()
        if play_on(stopped, rng.random, 0.25, None, True) is None:
            assert not stopped.talon and not stopped.attack and stopped.result is None
            assert stopped.legal_moves(stopped.lead)
        playout(stopped, rng.random, 0.25)  # the same random draws from here on as in one whole playout
        whole = game.copy()
        playout(whole, random.Random(deal).random, 0.25)
        assert (stopped.discard, stopped.hands, stopped.result) == (whole.discard, whole.hands, whole.result)
    three = Game.deal(Options(), 3, rng=random.Random(1))
    assert play_on(three, random.Random(1).random, 0.25, None, True) is not None  # heads-up only


def test_the_search_judges_endgames_only_when_asked() -> None:
    game = Game.deal(Options(), 2, rng=random.Random(4))
    for _ in range(6):  # a few moves in, with the talon still to draw
        seat, moves = game.turn(random.Random(0).random)
        game.push(seat, policy_move(game, seat, moves))
    seen = view(game, game.to_act()[0])
    visits = []
    for judge in (False, True):
        player = SearchPlayer(iterations=600, seed=3, endgame_value=judge)
        root, _ = player._search(Worlds(seen, random.Random(3)), list(seen.moves), 0.0, True)
        visits.append(sorted((m, c.visits, c.total) for m, c in root.children.items()))
        assert sum(v for _, v, _ in visits[-1]) == 600
    assert visits[0] != visits[1]
    assert any(total != int(total) for _, _, total in visits[1])  # judged: fractions of a win
