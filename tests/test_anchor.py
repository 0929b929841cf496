"""The benchmarks' outside anchor (bench/ismcts.py): it plays only legal moves and finds what its search
can see."""

from __future__ import annotations

import random

from bench.ismcts import IsmctsPlayer
from bench.players import make
from engine import Game, Options
from engine.ai import GreedyPlayer
from engine.moves import move_str
from engine.views import view
from tests.engine.helpers import position


def test_it_plays_whole_games_from_both_seats_with_legal_moves_only() -> None:
    for seed in range(4):
        game = Game.deal(Options(draw=False, first_bout_five=False), 2, rng=random.Random(seed))
        anchor, greedy = IsmctsPlayer(iterations=150, seed=seed), GreedyPlayer()
        players = (anchor, greedy) if seed % 2 else (greedy, anchor)
        while game.result is None:
            seat = game.to_act()[0]
            game.apply(seat, players[seat].choose(view(game, seat)))  # validated: raises if illegal


def test_it_finds_the_only_winning_lead() -> None:
    # Leading 6♠ lets 7♠ cover it and go out, leaving this seat the durak; the trump ace cannot be beaten,
    # the defender takes, and 6♠ follows as the last card.
    game = position(["6s Ah", "7s"], trump="h")
    chosen = IsmctsPlayer(iterations=400, seed=3).choose(view(game, 0))
    assert move_str(chosen) == "lAh"


def test_its_names_set_the_budget_and_the_exploration() -> None:
    player = make("ismcts-1.5s-c0.4", seed=1)
    assert isinstance(player, IsmctsPlayer) and (player.budget, player.exploration, player.policy) == (
        1.5,
        0.4,
        False,
    )
    assert isinstance(player := make("ismcts-policy", seed=1), IsmctsPlayer) and player.policy
