"""The computer players the benchmarks pit against each other, by name.

random, greedy (lowest card), heuristic (a careful rule-based player), easy, normal and hard (the bot's
levels), search (ISMCTS with ``budget`` seconds a move), pimc (perfect-information Monte Carlo with a tenth
of ``normal``'s time, or ``budget`` / 10 if given) and the outside anchor ismcts (bench/ismcts.py: the
classic Cowling–Powley–Whitehouse search) at ``normal``'s time.

Variants, for A/B runs, add parts to a name. *normal* and *hard* take ``-<seconds>s`` (another budget; hard's
endgame time scales with it), ``-c<constant>`` (UCB1's exploration), ``-o<constant>`` (UCB1's exploration
at the opponents' decisions only), ``-d<decisions>`` (at most that many of the opponents' decisions on a
walk down the tree, the later ones moved by the playout policy), ``-e<share>`` (the share of random moves
in the playouts), ``-m<temperature>`` (those moves drawn by the decision's move averages at that
temperature, engine.ai.policy.Averages, instead of uniformly), ``-w<cards>`` (heads-up, with at most that
many unseen cards left in the talon, solve every world exactly and play the best move on average),
``-g<seconds>`` (the CPU seconds an endgame solve may take, whatever the budget: ``normal-0.05s-g1``
plays fast but solves endgames as *normal* does), ``-read`` / ``-noread`` (reading the opponents, as *hard* does, or not; ``-notells``: reading their takes,
passes and trumps but not their leads and covers, as *hard* did before), ``-tree`` /
``-policy`` (the other seats' decisions in the tree at every table size, or moved by the playout policy:
what *normal* was before it searched them heads-up), ``-race`` / ``-norace`` (at a table of three or
more, the moves raced over shared worlds, engine.ai.race, as both levels do, or searched in a tree as
before; ``-x<cut>``: the standard errors behind the leader at which a move leaves the race) and
``-value`` / ``-novalue`` (heads-up, playouts stop where the talon runs out and engine.ai.value judges the
endgame, as both levels do, or they play it out);
e.g. ``hard-noread``, ``normal-tree-0.1s``, ``hard-c0.4``, ``hard-o1.4``, ``hard-d2``, ``normal-e0.2``,
``hard-novalue``. ``reader-0.1s`` is ``normal-read-0.1s``. The anchor takes ``-<seconds>s``,
``-c<constant>``, ``-i<iterations>`` (exactly that many a decision, whatever the time: the iterations a
native build reaches in a budget) and ``-policy`` (the bot's playout policy instead of random rollouts: an
experiment), e.g. ``ismcts-1.5s``, ``ismcts-i27500``, ``ismcts-1.5s-c1.0-policy``. ``pimc-<seconds>s`` is
PIMC with that many seconds (plain ``pimc`` has a tenth of the budget). ``expert`` is the card-counting rule
player (bench/expert.py); ``normal-frozen`` and ``hard-frozen`` the levels' settings pinned as they were on
2026-12-07 (``FROZEN``), the panel's copies (bench/panel.py). Every budget is CPU time of the deciding thread, so a
busy machine slows a benchmark down without changing its result.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.ai import GreedyPlayer, HeuristicPlayer, Player, RandomPlayer, SearchPlayer
from engine.ai.levels import BUDGET, player_for
from engine.ai.pimc import PimcPlayer
from engine.ai.search import EXPLORATION
from engine.options import BotLevel

NAMES = (
    "random", "greedy", "heuristic", "expert", "easy", "normal", "hard", "search", "reader", "pimc", "ismcts",
)  # fmt: skip


# The levels as they stood when the panel (bench/panel.py) was first measured, 2026-12-07: every setting
# engine.ai.levels reads, pinned, so that a later change to a level is judged against this copy.
@dataclass(frozen=True, slots=True)
class Pinned:
    level: BotLevel
    budget: float
    playout_random: float
    reads: bool
    endgame_value: bool
    endgame: float  # CPU seconds an endgame solve may take


FROZEN = {
    "normal-frozen": Pinned(BotLevel.NORMAL, 0.5, 0.25, reads=False, endgame_value=True, endgame=0.25),
    "hard-frozen": Pinned(BotLevel.HARD, 1.5, 0.25, reads=True, endgame_value=True, endgame=4.0),
}


def make(name: str, seed: int, budget: float | None = None) -> Player:
    if name == "random":
        return RandomPlayer(random.Random(seed))
    if name == "greedy":
        return GreedyPlayer()
    if name == "heuristic":
        return HeuristicPlayer()
    if name == "expert":
        from bench.expert import ExpertPlayer

        return ExpertPlayer(seed)
    if name in FROZEN:
        return frozen(name, seed)
    if name == "search":
        return SearchPlayer(budget or 1.0, seed=seed)
    if name == "reader" or name.startswith("reader-"):  # the name earlier runs saved
        return level("normal-read" + name.removeprefix("reader"), seed)
    if name == "pimc":
        return PimcPlayer((budget or BUDGET[BotLevel.NORMAL]) / 10, seed=seed)
    if name.startswith("pimc-") and name.endswith("s"):  # pimc-0.5s: that many seconds, not a tenth
        return PimcPlayer(float(name.removeprefix("pimc-")[:-1]), seed=seed)
    if name == "ismcts" or name.startswith("ismcts-"):
        return anchor(name, seed)
    if name.startswith(("normal-", "hard-")):
        return level(name, seed)
    if name in NAMES:
        return player_for(BotLevel(name), seed=seed)
    raise ValueError(f"unknown player {name!r}; one of {', '.join(NAMES)}")


def level(name: str, seed: int) -> Player:
    """A variant of *normal* or *hard*: the level's settings, with the parts of ``name`` changed."""
    bot = BotLevel(name.partition("-")[0])
    parts = _parts(
        name,
        BUDGET[bot],
        EXPLORATION,
        ("read", "noread", "notells", "tree", "policy", "value", "novalue", "race", "norace"),
        levels=True,
    )
    flags = parts.flags
    return player_for(
        bot,
        seed=seed,
        budget_scale=parts.budget / BUDGET[bot],
        reads=True if "read" in flags else False if "noread" in flags else None,
        tells=False if "notells" in flags else None,
        opponents=True if "tree" in flags else False if "policy" in flags else None,
        exploration=parts.exploration,
        playout_random=parts.playout_random,
        opponent_exploration=parts.opponent_exploration,
        opponent_depth=parts.opponent_depth,
        averages=parts.averages,
        talon_worlds=parts.talon_worlds,
        endgame_value=True if "value" in flags else False if "novalue" in flags else None,
        endgame=parts.endgame,
        races=True if "race" in flags else False if "norace" in flags else None,
        cut=parts.cut,
    )


def anchor(name: str, seed: int) -> Player:
    # Imported here, after the engine: engine/build.py must decide first whether compiled modules may run.
    from bench.ismcts import EXPLORATION, IsmctsPlayer

    base, _, rest = name.partition("-")
    iterations = 0
    kept = []
    for part in rest.split("-") if rest else []:
        if part.startswith("i") and part[1:].isdigit():
            iterations = int(part[1:])
        else:
            kept.append(part)
    parts = _parts("-".join([base, *kept]), BUDGET[BotLevel.NORMAL], EXPLORATION, ("policy",))
    return IsmctsPlayer(
        parts.budget,
        exploration=parts.exploration,
        iterations=iterations,
        seed=seed,
        policy="policy" in parts.flags,
    )


def frozen(name: str, seed: int) -> Player:
    pinned = FROZEN[name]
    return player_for(
        pinned.level,
        seed=seed,
        budget_scale=pinned.budget / BUDGET[pinned.level],
        reads=pinned.reads,
        playout_random=pinned.playout_random,
        endgame_value=pinned.endgame_value,
        endgame=pinned.endgame,
        races=False,  # at three seats and more they searched a tree then
    )


@dataclass(frozen=True, slots=True)
class Parts:
    """What a variant's name sets; None: as the level does."""

    budget: float
    exploration: float
    playout_random: float | None
    opponent_exploration: float | None
    opponent_depth: int | None
    averages: float | None
    talon_worlds: int
    flags: frozenset[str]
    endgame: float | None = None  # seconds an endgame solve may take (None: the level's, scaled)
    cut: float | None = None  # standard errors behind the leader at which a move leaves a race


def _parts(
    name: str, budget: float, exploration: float, flags: tuple[str, ...], *, levels: bool = False
) -> Parts:
    """The budget (``-<seconds>s``), exploration constant (``-c<constant>``), the search levels' exploration
    at the opponents' decisions (``-o<constant>``), how many of those a walk takes into the tree
    (``-d<decisions>``), the playouts' random share (``-e<share>``), the temperature at which the decision's
    move averages draw those moves (``-m<temperature>``) and up to how many unseen talon cards every world is
    solved (``-w<cards>``), those five where ``levels``, and flags a name's parts give."""
    base, *parts = name.split("-")
    given = set()
    share: float | None = None
    opponent: float | None = None
    depth: int | None = None
    averages: float | None = None
    talon_worlds = 0
    endgame: float | None = None
    cut: float | None = None
    for part in parts:
        if part in flags:
            given.add(part)
        elif part.endswith("s"):
            budget = float(part[:-1])
        elif part.startswith("c"):
            exploration = float(part[1:])
        elif levels and part.startswith("e"):
            share = float(part[1:])
        elif levels and part.startswith("o"):
            opponent = float(part[1:])
        elif levels and part.startswith("d"):
            depth = int(part[1:])
        elif levels and part.startswith("m"):
            averages = float(part[1:])
        elif levels and part.startswith("w"):
            talon_worlds = int(part[1:])
        elif levels and part.startswith("g"):
            endgame = float(part[1:])
        elif levels and part.startswith("x"):
            cut = float(part[1:])
        else:
            named = (
                ", -o<constant>, -d<decisions>, -e<share>, -m<temperature>, -w<cards>, -g<seconds>, -x<cut>"
                * levels
            )
            named += "".join(f", -{f}" for f in flags)
            raise ValueError(f"{name!r}: {base} takes -<seconds>s, -c<exploration>{named}")
    return Parts(
        budget, exploration, share, opponent, depth, averages, talon_worlds, frozenset(given), endgame, cut
    )
