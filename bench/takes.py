"""Needless takes: how often a player picks up the cards while it could cover them all, early in the game.

    .venv/bin/python bench/takes.py heuristic normal hard pimc --positions 400 --jobs 2

Positions are logged from heads-up 36-card throw-in games between heuristic players with slips (fixed
seeds): every decision of a defender who can cover all the unbeaten attack cards (each with a card of its
own) while at least ``--talon`` cards are left in the talon. Each named player decides every logged
position; the share that it takes is printed with a 95% Wilson interval. Budgets are CPU time.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.players import make
from bench.tournament import wilson
from engine import Game, Options
from engine.ai import HeuristicPlayer
from engine.cards import BEATERS, mask_of
from engine.moves import TAKE
from engine.views import View, view


def covers_all(seen: View) -> bool:
    """Whether the defender's hand can beat every unbeaten attack card at once, a distinct card each."""
    beaters = BEATERS[seen.trump]
    unbeaten = [a for a, c in seen.table if c is None]

    def fits(i: int, free: int) -> bool:
        if i == len(unbeaten):
            return True
        options = free & beaters[unbeaten[i]]
        while options:
            low = options & -options
            if fits(i + 1, free & ~low):
                return True
            options &= ~low
        return False

    return bool(unbeaten) and fits(0, mask_of(seen.hand))


def positions(count: int, talon: int, seed: int) -> list[View]:
    """``count`` defence decisions with a full cover available and at least ``talon`` cards to draw."""
    found: list[View] = []
    game_no = 0
    while len(found) < count:
        rng = random.Random(seed * 100_003 + game_no)
        game = Game.deal(Options(), 2, rng=rng)
        players = [HeuristicPlayer(0.15, random.Random(rng.getrandbits(32))) for _ in range(2)]
        while game.result is None and len(found) < count:
            seat = game.to_act()[0]
            seen = view(game, seat)
            if seat == game.defender and TAKE in seen.moves and seen.talon >= talon and covers_all(seen):
                found.append(seen)
            game.apply(seat, players[seat].choose(seen))
        game_no += 1
    return found


def decide(job: tuple[str, int, View, float | None]) -> bool:
    name, seed, seen, budget = job
    return make(name, seed, budget).choose(seen) == TAKE


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="+", help="players, see bench/players.py")
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--talon", type=int, default=10, help="cards at least left in the talon")
    parser.add_argument("--budget", type=float, default=None, help="CPU seconds a move for 'search'")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (one core each)")
    args = parser.parse_args()
    logged = positions(args.positions, args.talon, args.seed)
    print(f"{len(logged)} logged defence decisions with a full cover and ≥ {args.talon} cards in the talon")
    print(f"{'player':<11}{'takes':>7}{'rate':>8}{'95% CI':>17}")
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for name in args.names:
            jobs = [(name, args.seed * 7919 + i, seen, args.budget) for i, seen in enumerate(logged)]
            takes = sum(pool.map(decide, jobs, chunksize=4))
            low, high = wilson(takes, len(logged))
            print(f"{name:<11}{takes:>7}{takes / len(logged):>8.1%}{f'{low:.1%}–{high:.1%}':>17}", flush=True)


if __name__ == "__main__":
    main()
