"""How much the opponents' actions tell: the likelihood ratios behind engine.ai.reading's weights.

    .venv/bin/python bench/reading.py search search --budget 0.1 --deals 60 --jobs 2
    .venv/bin/python bench/reading.py heuristic heuristic --deals 100 --jobs 2

Plays games like bench/tournament.py (seats swapped) with a ``Reading`` watching every seat's decisions, and
for every doubt it forms checks the real game: does the doubted seat hold the card at that moment? Prints per
kind of doubt how often it did, against how often a uniform deal of the unseen cards would put it there (the
seat's unseen slots over all unseen cards), and the ratio of the two: the weight engine.ai.reading should use.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.players import make
from bench.tournament import MAX_MOVES
from engine import Game, Options, Variant
from engine.ai.reading import Reading
from engine.ai.worlds import Knowledge
from engine.views import view

Tally = dict[str, list[float]]  # what -> [doubts, held, expected]


def play(job: tuple[int, int, tuple[str, ...], Options, float | None, int]) -> Tally:
    deal, rotation, names, options, budget, seed = job
    n = len(names)
    seats = tuple(names[(s + rotation) % n] for s in range(n))
    game = Game.deal(options, n, rng=random.Random(seed * 1_000_003 + deal))
    players = [make(name, seed + 7919 * deal + s, budget) for s, name in enumerate(seats)]
    logs: list[list[tuple[str, int, int]]] = [[] for _ in range(n)]
    readers = [Reading(logs[s]) for s in range(n)]
    pick = random.Random(deal + 31 * rotation)
    tally: Tally = defaultdict(lambda: [0.0, 0.0, 0.0])
    for _ in range(MAX_MOVES):
        if game.result is not None:
            break
        on_clock = game.to_act()
        seat = on_clock[0] if len(on_clock) == 1 else pick.choice(on_clock)
        seen = view(game, seat)
        readers[seat].observe(seen)
        knowledge = Knowledge.of(seen)
        unseen = knowledge.unseen.bit_count()
        for what, s, card in logs[seat]:
            if knowledge.unseen >> card & 1:  # a doubt about a card this seat cannot place
                t = tally[what]
                t[0] += 1
                t[1] += game.hands[s] >> card & 1
                t[2] += knowledge.slots[s] / unseen
        logs[seat].clear()
        move = players[seat].choose(seen)
        readers[seat].chose(move)
        game.apply(seat, move)
    return dict(tally)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="+")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--budget", type=float, default=None)
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="throw_in")
    parser.add_argument("--players", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    n = args.players or len(args.names)
    names = tuple(args.names[s % len(args.names)] for s in range(n))
    options = Options(variant=Variant(args.variant))
    jobs = [(d, r, names, options, args.budget, args.seed) for d in range(args.deals) for r in range(n)]
    total: Tally = defaultdict(lambda: [0.0, 0.0, 0.0])
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for tally in pool.imap_unordered(play, jobs):
            for what, (k, held, expected) in tally.items():
                t = total[what]
                t[0] += k
                t[1] += held
                t[2] += expected
    print(f"{len(jobs)} games, {' '.join(names)}, {args.variant}")
    print(f"{'doubt':<14}{'count':>7}{'held':>8}{'uniform':>9}{'ratio':>7}")
    for what, (k, held, expected) in sorted(total.items()):
        print(f"{what:<14}{k:>7.0f}{held / k:>8.1%}{expected / k:>9.1%}{held / expected:>7.2f}")


if __name__ == "__main__":
    main()
