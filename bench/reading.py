"""How much the opponents' actions tell: the likelihood ratios behind engine.ai.reading's weights.

    .venv/bin/python bench/reading.py search search --budget 0.1 --deals 60 --jobs 2
    .venv/bin/python bench/reading.py heuristic heuristic --deals 100 --jobs 2

Plays games as bench/tournament.py does (the same deals and seatings) with a ``Reading`` watching every seat's decisions, and
for every doubt it forms checks the real game: does the doubted seat hold the card at that moment? Prints per
kind of doubt how often it did, against how often a uniform deal of the unseen cards would put it there (the
seat's unseen slots over all unseen cards), and the ratio of the two: the weight engine.ai.reading should use.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tournament import Job, play
from engine import Game, Options, Variant
from engine.ai.reading import Reading
from engine.ai.worlds import Knowledge
from engine.moves import Move
from engine.views import View

Tally = dict[str, list[float]]  # what -> [doubts, held, expected]


def read(job: Job) -> Tally:
    """One game of ``job`` with a ``Reading`` per seat, every doubt checked against the real hands."""
    logs: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
    readers: dict[int, Reading] = {}
    tally: Tally = defaultdict(lambda: [0.0, 0.0, 0.0])

    def watch(game: Game, seat: int, seen: View, move: Move) -> None:
        reader = readers.setdefault(seat, Reading(logs[seat], tells=True))
        reader.observe(seen)
        knowledge = Knowledge.of(seen)
        unseen = knowledge.unseen.bit_count()
        for what, s, card in logs[seat]:
            if knowledge.unseen >> card & 1:  # a doubt about a card this seat cannot place
                t = tally[what]
                t[0] += 1
                t[1] += game.hands[s] >> card & 1
                t[2] += knowledge.slots[s] / unseen
        logs[seat].clear()
        reader.chose(move)

    play(job, watch)
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
    jobs = [Job(d, r, names, options, args.budget, args.seed) for d in range(args.deals) for r in range(n)]
    total: Tally = defaultdict(lambda: [0.0, 0.0, 0.0])
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for tally in pool.imap_unordered(read, jobs):
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
