"""Fits engine.ai.value's model: heads-up endgames solved exactly, a logistic regression on their features.

    .venv/bin/python bench/endgame_value.py --deals 6000 --jobs 2

Positions are what the search's playouts reach: a fresh deal played by the playout policy with a quarter of
its moves at random (as the levels play them) to the first bout with the talon empty, and some later bout
starts of the same game. Each is solved exactly (those the solver cannot finish in ``--nodes`` positions are
left out, so the model knows the smaller endgames best); a fifth of the deals are held out, and on them the
model is compared with what a search would otherwise use there: the result of one policy playout, or of one
uniformly random playout (the anchor's). Prints the Brier score (mean squared error against the exact value;
a single playout scores its error rate), the mean absolute error and how often the favourite is right (for
playouts: the favourite of ``SAMPLES``), then ``MODEL`` to paste into engine/ai/value.py. Half the deals are
played with draws, half without.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from engine import Game, Options, Variant
from engine.ai.policy import endgame_begins, playout, policy_move, rewards
from engine.ai.solver import OutOfBudget, Solver
from engine.ai.value import FEATURES, features, lead_chance

SHARE = 0.25  # the playouts' share of random moves (engine.ai.levels.PLAYOUT_RANDOM)
LATER = 0.3  # the chance that a later bout start of the same game is taken too
SAMPLES = 20  # playouts per held-out position, to measure a single playout's error


Found = tuple[list[float], float, float, float, float]


def positions(deal: int, variant: str, deck: int, nodes: int) -> list[Found]:
    """A deal's endgame positions: (features, exact value for the leader, a policy playout's and a random
    playout's average result for the leader over ``SAMPLES``, the model in engine/ai/value.py's estimate)."""
    rng = random.Random(deal)
    options = Options(variant=Variant(variant), deck=deck, draw=deal % 2 == 0)
    game = Game.deal(options, 2, rng=random.Random(deal))
    out = []
    first = True
    while game.result is None:
        if endgame_begins(game) and (first or rng.random() < LATER):
            first = False
            solver = Solver(game.lead, limit=nodes)
            try:
                exact = solver.value(game.copy())
            except OutOfBudget:
                exact = -1.0
            if exact >= 0.0:
                lead = game.lead
                policy = sum(
                    rewards(playout(game.copy(), rng.random, SHARE), 2)[lead] for _ in range(SAMPLES)
                )
                uniform = sum(rewards(playout(game.copy(), rng.random, 1.0), 2)[lead] for _ in range(SAMPLES))
                out.append((features(game), exact, policy / SAMPLES, uniform / SAMPLES, lead_chance(game)))
        seat, moves = game.turn(rng.random)
        move = (
            moves[int(rng.random() * len(moves))] if rng.random() < SHARE else policy_move(game, seat, moves)
        )
        game.push(seat, move)
    return out


def _job(args: tuple[int, str, int, int]) -> list[Found]:
    return positions(*args)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Logistic regression by Newton's method (exact values of ½, a draw, are soft targets)."""
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        gradient = x.T @ (p - y) / len(y) + l2 * w
        hessian = (x.T * (p * (1.0 - p))) @ x / len(y) + l2 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w


def scores(name: str, predicted: np.ndarray, exact: np.ndarray, single: bool) -> str:
    # A single playout's result is 1 with the probability ``predicted`` estimates: its squared error
    # against a win or loss is then its chance of being wrong.
    brier = (predicted * (1 - exact) + (1 - predicted) * exact) if single else (predicted - exact) ** 2
    right = ((predicted > 0.5) == (exact > 0.5)).mean()
    return f"{name:<34}{brier.mean():>8.3f}{np.abs(predicted - exact).mean():>8.3f}{right:>10.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=6000)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number")
    parser.add_argument("--variant", choices=[v.value for v in Variant], default=Variant.THROW_IN.value)
    parser.add_argument("--deck", type=int, choices=(24, 36, 52), default=36)
    parser.add_argument("--nodes", type=int, default=300_000, help="the solver's positions per endgame")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    deals = [(d, args.variant, args.deck, args.nodes) for d in range(args.first, args.first + args.deals)]
    with multiprocessing.Pool(args.jobs) as pool:
        found = pool.map(_job, deals, chunksize=20)
    held = [d % 5 == 4 for d, *_ in deals]
    train = [p for ps, h in zip(found, held, strict=True) if not h for p in ps]
    test = [p for ps, h in zip(found, held, strict=True) if h for p in ps]
    x = np.array([p[0] for p in train])
    y = np.array([p[1] for p in train])
    mean, scale = x[:, 1:].mean(0), x[:, 1:].std(0) + 1e-9
    standard = x.copy()
    standard[:, 1:] = (x[:, 1:] - mean) / scale
    w = fit(standard, y)
    weights = np.concatenate([[w[0] - (w[1:] * mean / scale).sum()], w[1:] / scale])  # for raw features
    tx = np.array([p[0] for p in test])
    exact = np.array([p[1] for p in test])
    model = 1.0 / (1.0 + np.exp(-tx @ weights))
    shape = f"{args.variant}, {args.deck} cards, {args.deals} deals"
    print(f"{len(train)} positions fitted, {len(test)} held out ({shape})")
    print(f"{'on the held-out positions':<34}{'Brier':>8}{'MAE':>8}{'favourite':>10}")
    print(scores("this fit", model, exact, single=False))
    print(scores("the model in engine/ai/value.py", np.array([p[4] for p in test]), exact, single=False))
    print(scores("one policy playout", np.array([p[2] for p in test]), exact, single=True))
    print(scores("one random playout", np.array([p[3] for p in test]), exact, single=True))
    print(scores("the leader's average", np.full(len(exact), y.mean()), exact, single=False))
    print("MODEL: Final = (")
    for name, value in zip(FEATURES, weights, strict=True):
        print(f'    ("{name}", {value:.4f}),')
    print(")")


if __name__ == "__main__":
    main()
