"""The computer players the benchmarks pit against each other, by name.

random, greedy (lowest card), heuristic (a careful rule-based player), easy, normal, hard (the bot's
levels; ``hard-noread`` is *hard* without reading its opponents), search (ISMCTS with ``budget`` seconds a
move), reader (the same, reading its opponents as *hard* does; ``reader-0.1s`` with 0.1 s), pimc
(perfect-information Monte Carlo with a tenth of ``normal``'s time, or ``budget`` / 10 if given) and the outside anchor ismcts (bench/ismcts.py: the
classic Cowling–Powley–Whitehouse search) at ``normal``'s time; ``ismcts-1.5s`` gives it hard's, and
``ismcts-c1.0`` another exploration constant, ``ismcts-policy`` an experiment with the bot's playout
policy instead of random rollouts (they combine: ``ismcts-1.5s-c1.0-policy``); ``normal-tree`` is *normal*
with the other seats' decisions in its tree at every table size, ``normal-policy`` with them moved by the
playout policy at every table size (what *normal* was before it searched them heads-up); either takes another
budget as ``normal-tree-0.1s``. Every budget is CPU time of
the deciding thread, so a busy machine slows a benchmark down without changing its result.
"""

from __future__ import annotations

import random

from engine.ai import GreedyPlayer, HeuristicPlayer, Player, RandomPlayer, SearchPlayer
from engine.ai.levels import BUDGET, HARD_ENDGAME, HARD_ENDGAME_NODES, player_for
from engine.ai.pimc import PimcPlayer
from engine.options import BotLevel

NAMES = ("random", "greedy", "heuristic", "easy", "normal", "hard", "search", "reader", "pimc", "ismcts")


def make(name: str, seed: int, budget: float | None = None) -> Player:
    if name == "random":
        return RandomPlayer(random.Random(seed))
    if name == "greedy":
        return GreedyPlayer()
    if name == "heuristic":
        return HeuristicPlayer()
    if name == "search":
        return SearchPlayer(budget or 1.0, seed=seed)
    if name == "reader" or name.startswith("reader-"):  # normal's search reading its opponents, as hard does
        seconds = name.removeprefix("reader").removeprefix("-").removesuffix("s")
        return SearchPlayer(float(seconds) if seconds else budget or 1.0, seed=seed, reads=True)
    if name == "pimc":
        return PimcPlayer((budget or BUDGET[BotLevel.NORMAL]) / 10, seed=seed)
    if name.startswith(("normal-tree", "normal-policy")):  # the others in the tree, or moved by the policy
        kind, _, seconds = name.removeprefix("normal-").partition("-")
        budget = float(seconds.removesuffix("s")) if seconds else BUDGET[BotLevel.NORMAL]
        return SearchPlayer(budget, seed=seed, opponents=kind == "tree")
    if name == "ismcts" or name.startswith("ismcts-"):
        return anchor(name, seed)
    if name == "hard-noread":  # hard without reading its opponents: what the reading is worth
        return SearchPlayer(
            BUDGET[BotLevel.HARD], seed=seed, solver_nodes=HARD_ENDGAME_NODES, endgame=HARD_ENDGAME
        )
    if name in NAMES:
        return player_for(BotLevel(name), seed=seed)
    raise ValueError(f"unknown player {name!r}; one of {', '.join(NAMES)}")


def anchor(name: str, seed: int) -> Player:
    # Imported here, after the engine: engine/build.py must decide first whether compiled modules may run.
    from bench.ismcts import EXPLORATION, IsmctsPlayer

    budget, exploration, policy = BUDGET[BotLevel.NORMAL], EXPLORATION, False
    for part in name.split("-")[1:]:
        if part == "policy":
            policy = True
        elif part.endswith("s"):
            budget = float(part[:-1])
        elif part.startswith("c"):
            exploration = float(part[1:])
        else:
            raise ValueError(
                f"{name!r}: ismcts takes -<seconds>s, -c<exploration> and -policy, e.g. ismcts-1.5s-c0.7"
            )
    return IsmctsPlayer(budget, exploration=exploration, seed=seed, policy=policy)
