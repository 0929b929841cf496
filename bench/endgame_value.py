"""Fits engine.ai.value's models: heads-up endgames solved exactly, a logistic regression on their features;
with ``--midgame``, bout starts with the talon still there, a regression on what playouts make of them.

    .venv/bin/python bench/endgame_value.py --deals 6000 --jobs 2
    .venv/bin/python bench/endgame_value.py --midgame --deals 4000 --jobs 2

Positions are what the search's playouts reach: a fresh deal played by the playout policy with a quarter of
its moves at random (as the levels play them) to the first bout with the talon empty, and some later bout
starts of the same game. Each is solved exactly (those the solver cannot finish in ``--nodes`` positions are
left out, so the model knows the smaller endgames best); a fifth of the deals are held out, and on them the
model is compared with what a search would otherwise use there: the result of one policy playout, or of one
uniformly random playout (the anchor's). Prints the Brier score (mean squared error against the exact value;
a single playout scores its error rate), the mean absolute error and how often the favourite is right (for
playouts: the favourite of ``SAMPLES``), then ``MODEL`` to paste into engine/ai/value.py. Half the deals are
played with draws, half without.

``--midgame`` takes every heads-up bout start with cards in the talon from the same kind of games (in the
world the game is, so the talon's order is known). Nothing solves those quickly, and the search's playouts
estimate them with a policy playout on to the endgame, judged there by ``MODEL``: ``MIDGAME`` is fitted to
the mean of ``CONTINUATIONS`` such playouts from each position, to stand in for one of them. On the held-out
deals (``HELD_CONTINUATIONS`` each) it prints how far the model and one playout are from that mean (mean
squared error; the mean's own noise, also printed, is in both), then ``MIDGAME``.
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
from engine.ai.policy import ENDGAME, endgame_begins, play_on, playout, policy_move, rewards
from engine.ai.solver import OutOfBudget, Solver
from engine.ai.value import FEATURES, MIDGAME, MIDGAME_FEATURES, features, lead_chance, midgame_features

SHARE = 0.25  # the playouts' share of random moves (engine.ai.levels.PLAYOUT_RANDOM)
LATER = 0.3  # the chance that a later bout start of the same game is taken too
SAMPLES = 20  # playouts per held-out position, to measure a single playout's error
CONTINUATIONS = 4  # judged playouts per midgame position fitted
HELD_CONTINUATIONS = 16  # and per held-out one


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
        step(game, rng)
    return out


def step(game: Game, rng: random.Random) -> None:
    """One move of the games positions are taken from: the policy's, or a random one a quarter of the time."""
    seat, moves = game.turn(rng.random)
    move = moves[int(rng.random() * len(moves))] if rng.random() < SHARE else policy_move(game, seat, moves)
    game.push(seat, move)


def midgame_positions(
    deal: int, variant: str, deck: int, held: bool
) -> list[tuple[list[float], list[float]]]:
    """A deal's heads-up bout starts with the talon still there: (features, what each of the judged
    playouts from there gave the leader)."""
    rng = random.Random(deal)
    options = Options(variant=Variant(variant), deck=deck, draw=deal % 2 == 0)
    game = Game.deal(options, 2, rng=random.Random(deal))
    out = []
    while game.result is None:
        if game.talon and not game.attack:
            lead = game.lead
            out.append(
                (
                    midgame_features(game),
                    [judged(game, lead, rng) for _ in range(HELD_CONTINUATIONS if held else CONTINUATIONS)],
                )
            )
        step(game, rng)
    return out


def judged(game: Game, seat: int, rng: random.Random) -> float:
    """What one playout makes of ``game`` for ``seat``, as the search's playouts do: on to the endgame,
    judged there."""
    world = game.copy()
    result = play_on(world, rng.random, SHARE, None, ENDGAME)
    if result is not None:
        return rewards(result, 2)[seat]
    chance = lead_chance(world)
    return chance if world.lead == seat else 1.0 - chance


def _job(args: tuple[int, str, int, int]) -> list[Found]:
    return positions(*args)


def _midgame_job(args: tuple[int, str, int, bool]) -> list[tuple[list[float], list[float]]]:
    return midgame_positions(*args)


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


def fit_raw(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``fit`` on standardized features, the weights given back for the raw ones (the bias first)."""
    mean, scale = x[:, 1:].mean(0), x[:, 1:].std(0) + 1e-9
    standard = x.copy()
    standard[:, 1:] = (x[:, 1:] - mean) / scale
    w = fit(standard, y)
    return np.concatenate([[w[0] - (w[1:] * mean / scale).sum()], w[1:] / scale])


def table(name: str, names: tuple[str, ...], weights: np.ndarray) -> None:
    print(f"{name}: Final = (")
    for feature, value in zip(names, weights, strict=True):
        print(f'    ("{feature}", {value:.4f}),')
    print(")")


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
    parser.add_argument("--midgame", action="store_true", help="fit MIDGAME instead of MODEL")
    args = parser.parse_args()
    if args.midgame:
        midgame(args)
        return
    deals = [(d, args.variant, args.deck, args.nodes) for d in range(args.first, args.first + args.deals)]
    with multiprocessing.Pool(args.jobs) as pool:
        found = pool.map(_job, deals, chunksize=20)
    held = [d % 5 == 4 for d, *_ in deals]
    train = [p for ps, h in zip(found, held, strict=True) if not h for p in ps]
    test = [p for ps, h in zip(found, held, strict=True) if h for p in ps]
    y = np.array([p[1] for p in train])
    weights = fit_raw(np.array([p[0] for p in train]), y)
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
    table("MODEL", FEATURES, weights)


def midgame(args: argparse.Namespace) -> None:
    deals = [(d, args.variant, args.deck, d % 5 == 4) for d in range(args.first, args.first + args.deals)]
    with multiprocessing.Pool(args.jobs) as pool:
        found = pool.map(_midgame_job, deals, chunksize=20)
    train = [p for ps, (*_, held) in zip(found, deals, strict=True) if not held for p in ps]
    test = [p for ps, (*_, held) in zip(found, deals, strict=True) if held for p in ps]
    weights = fit_raw(np.array([p[0] for p in train]), np.array([np.mean(p[1]) for p in train]))
    x = np.array([p[0] for p in test])
    mean = np.array([np.mean(p[1]) for p in test])
    spread = np.array([np.var(p[1]) for p in test])  # one playout's squared distance from the mean
    model = 1.0 / (1.0 + np.exp(-x @ weights))
    engine = 1.0 / (1.0 + np.exp(-x @ np.array([w for _, w in MIDGAME])))
    shape = f"{args.variant}, {args.deck} cards, {args.deals} deals"
    print(f"{len(train)} positions fitted, {len(test)} held out ({shape})")
    print(f"{'squared error from the mean of ' + str(HELD_CONTINUATIONS) + ' playouts':<44}{'MSE':>8}")
    print(f"{'this fit':<44}{((model - mean) ** 2).mean():>8.4f}")
    print(f"{'MIDGAME in engine/ai/value.py':<44}{((engine - mean) ** 2).mean():>8.4f}")
    print(f"{'one playout judged at the endgame':<44}{spread.mean():>8.4f}")
    print(f"{'the leader average':<44}{((np.mean(mean) - mean) ** 2).mean():>8.4f}")
    print(f"{'(the mean own noise, in each of these)':<44}{(spread / HELD_CONTINUATIONS).mean():>8.4f}")
    table("MIDGAME", MIDGAME_FEATURES, weights)


if __name__ == "__main__":
    main()
