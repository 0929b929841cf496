"""How well the race (engine.ai.race) chooses, by how far behind a move must be to leave it.

    .venv/bin/python bench/race_cut.py --positions 120 --cuts 2 3 4 --jobs 2

Positions from three- and four-seat games (a fresh deal played some moves on by the careful player, the seat
on the clock deciding). Each is judged once by a long race that drops no move (``--reference`` CPU seconds,
every move run in every round): its means are the yardstick. Then *normal* decides it with each cut at its
own half second, and the script prints per cut: the decisions that made the yardstick's best move, the
regret (the yardstick's best mean less that of the move made, summed: win chances given away) and the
average CPU time a decision took. Positions where every move scores alike are left out. The yardstick
plays out with the same policy, so this measures how much a race's early cuts cost it, not how good the
policy is: games against other players (bench/panel.py) decide that.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game, Options
from engine.ai import HeuristicPlayer
from engine.ai.levels import PLAYOUT_RANDOM, player_for
from engine.ai.race import race
from engine.ai.search import SearchPlayer
from engine.ai.worlds import Worlds
from engine.options import BotLevel
from engine.views import View, view

Judged = tuple[int, dict[float, tuple[float, bool, float]]]  # moves, per cut: regret, best made, seconds


def positions(count: int, seed: int) -> list[View]:
    rng = random.Random(seed)
    careful = HeuristicPlayer()
    out: list[View] = []
    deal = 0
    while len(out) < count:
        g = Game.deal(Options(), rng.choice((3, 3, 4)), rng=random.Random(seed * 100_003 + deal))
        deal += 1
        for _ in range(rng.randrange(60)):
            if g.result is not None:
                break
            seat = g.to_act()[0]
            g.apply(seat, careful.choose(view(g, seat)))
        if g.result is None:
            seen = view(g, g.to_act()[0])
            if len(seen.moves) > 1:
                out.append(seen)
    return out


def judge(work: tuple[int, View, float, tuple[float, ...]]) -> Judged | None:
    k, seen, reference, cuts = work
    moves = list(seen.moves)
    start = time.thread_time()
    yardstick = race(
        Worlds(seen, random.Random(k)),
        moves,
        lambda playouts: playouts > 0 and time.thread_time() >= start + reference,
        PLAYOUT_RANDOM[BotLevel.NORMAL],  # the playouts normal's own race plays
        float("inf"),
    )
    means = [yardstick.mean(i) for i in range(len(moves))]
    best = max(means)
    if best - min(means) < 1e-9:
        return None
    out = {}
    for cut in cuts:
        player = player_for(BotLevel.NORMAL, seed=k, cut=cut)
        assert isinstance(player, SearchPlayer)
        move = player.choose(seen)
        assert player.last is not None
        made = means[moves.index(move)]
        out[cut] = (best - made, made == best, player.last.seconds)
    return len(moves), out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--cuts", type=float, nargs="+", default=[2.0, 3.0, 4.0])
    parser.add_argument("--reference", type=float, default=3.0, help="CPU seconds of the yardstick's race")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    cuts = tuple(args.cuts)
    work = [(k, seen, args.reference, cuts) for k, seen in enumerate(positions(args.positions, args.seed))]
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        judged = [j for j in pool.imap(judge, work) if j is not None]
    print(f"{len(judged)} positions judged of {len(work)} (the rest: every move alike)")
    print(f"{'cut':>5}{'best move made':>16}{'regret':>9}{'s a decision':>14}")
    for cut in cuts:
        rows = [per[cut] for _, per in judged]
        made = sum(r[1] for r in rows)
        regret = sum(r[0] for r in rows)
        seconds = sum(r[2] for r in rows) / max(1, len(rows))
        print(f"{cut:>5.1f}{f'{made}/{len(rows)}':>16}{regret:>9.3f}{seconds:>14.3f}")


if __name__ == "__main__":
    main()
