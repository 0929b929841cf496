"""A bot as a partner: in team games, does it ever play a move that costs its own side the game?

    .venv/bin/python bench/partners.py normal --with expert --sizes 2x2 3x3 --games 500 --jobs 2 \
        --save harm.jsonl

In our rules nobody attacks, throws in to or transfers to a partner (docs/rules.md §8), so the two
commonest ways a bot partner harms its side elsewhere (dumping cards on the partner, passing the attack to
them) cannot happen here. What can is leaving the partner the durak: a move after which the team loses
whatever it does, where another move would have saved it (a draw or a win). That is checked exactly: at
every decision of the judged player once the talon is gone and two sides are left, with at most
``--cards`` cards in the hands, the endgame solver (engine.ai.solver) gives each legal move's value for the
mover's team with every card seen. A move worth a loss where another was worth at least a draw is counted,
and its position saved (the engine's snapshot, the move, the values): *informed* when the mover's view
placed every card (engine.ai.worlds.Knowledge.determined: it could have known), *hidden* otherwise (it
could not tell the worlds apart: a fact of the cards it saw, reported apart). The judged player sits in
every seat of each deal in turn, its partners and the opponents are ``--with``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.panel import seat_of_level, seats_of
from bench.tournament import Job, play
from engine import Game, Options, snapshot
from engine.ai.solver import OutOfBudget, Solver, sides
from engine.ai.worlds import Knowledge
from engine.moves import Move, move_str
from engine.views import View

NODES = 200_000  # positions one check may visit; a check past it is counted as not judged


def judge(job: Job, cards: int) -> dict[str, Any]:
    """One game: the judged player's checked decisions, and the moves that cost its side the game."""
    me = seat_of_level(job)
    found: dict[str, Any] = {"checked": 0, "unjudged": 0, "harm": []}

    def watch(game: Game, seat: int, seen: View, move: Move) -> None:
        if seat != me or len(seen.moves) < 2 or game.talon or sides(game) != 2:
            return
        if sum(h.bit_count() for h in game.hands) > cards:
            return
        solver = Solver(seat, NODES)
        try:
            values = solver.values(game, list(seen.moves))
        except OutOfBudget:
            found["unjudged"] += 1
            return
        found["checked"] += 1
        best = max(values.values())
        if values[move] == 0.0 and best >= 0.5:
            found["harm"].append(
                {
                    "position": snapshot.dumps(game),
                    "seat": seat,
                    "move": move_str(move),
                    "values": {move_str(m): v for m, v in values.items()},
                    "informed": Knowledge.of(seen).determined,
                }
            )

    played = play(job, watch)
    found |= {"deal": job.deal, "rotation": job.rotation, "players": len(job.names), "lost": played.lost[me]}
    return found


def _judge(item: tuple[Job, int]) -> dict[str, Any]:
    return judge(*item)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("level", help="the player judged, e.g. normal, normal-0.1s (bench/players.py)")
    parser.add_argument("--with", dest="others", default="expert", help="its partners and opponents")
    parser.add_argument("--sizes", nargs="+", default=["2x2", "3x3"], choices=["2x2", "3x3"])
    parser.add_argument("--games", type=int, default=100, help="games per size (whole deals: every seat)")
    parser.add_argument("--cards", type=int, default=16, help="check positions with at most this many")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--save", type=Path, help="the harmful moves' positions (JSON lines)")
    args = parser.parse_args()
    todo = []
    for size in args.sizes:
        n, _ = seats_of(size)
        names = (args.level, *(args.others,) * (n - 1))
        deals = -(-args.games // n)
        todo += [(Job(d, r, names, Options(teams=True), None, args.seed), args.cards) for d in range(deals)
                 for r in range(n)]  # fmt: skip
    start = time.perf_counter()
    totals = {"games": 0, "checked": 0, "unjudged": 0, "informed": 0, "hidden": 0, "lost": 0}
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for game in pool.imap_unordered(_judge, todo):
            totals["games"] += 1
            totals["checked"] += game["checked"]
            totals["unjudged"] += game["unjudged"]
            totals["lost"] += game["lost"]
            for harm in game["harm"]:
                totals["informed" if harm["informed"] else "hidden"] += 1
                if args.save:
                    with args.save.open("a") as out:
                        out.write(
                            json.dumps(harm | {"deal": game["deal"], "players": game["players"]}) + "\n"
                        )
            print(f"game {totals['games']}/{len(todo)}: {len(game['harm'])} harmful of {game['checked']}",
                  file=sys.stderr)  # fmt: skip
    print(
        f"{args.level} as a partner, with {args.others}, {' '.join(args.sizes)}: {totals['games']} games, "
        f"{time.perf_counter() - start:.0f} s; its side lost {totals['lost']}"
    )
    print(
        f"decisions checked exactly: {totals['checked']} (past the solver's {NODES:,} positions: "
        f"{totals['unjudged']}); moves that cost its side the game: informed {totals['informed']}, "
        f"hidden {totals['hidden']}"
    )


if __name__ == "__main__":
    main()
