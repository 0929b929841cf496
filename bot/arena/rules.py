"""An arena's rules, pure (docs/groups.md, "Game night"): what a game is worth to each of its players, and who
plays whom next. Lichess's Arena adapted to places: first place 2, a draw or a middle place 1, the durak 0;
two wins in a row put a player on a streak, on which every game is worth double until one is not a win; a
berserk player (half the move timer) wins a point more."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine import Game

WIN, MIDDLE, LOSS = 2, 1, 0  # a game's base points by how it went for the player
STREAK = 2  # wins in a row that start a streak


@dataclass(frozen=True, slots=True)
class Outcome:
    """One player's game in an arena, as it counts: its base points (WIN, MIDDLE or LOSS), whether they went
    berserk, and the points it scored given the games before it."""

    base: int
    berserk: bool
    points: int
    streak: bool  # scored on a streak (doubled)


def base_points(place: int, lost: bool, drawn: bool) -> int:
    """A seat's base points from the game's result: the durak (or a losing team's player) 0, sole first 2,
    anything else (a draw, a middle place in a three-player game) 1."""
    if lost:
        return LOSS
    return WIN if place == 1 and not drawn else MIDDLE


def credits(users: Sequence[int | None], game: Game | None) -> tuple[dict[int, int], list[int]]:
    """What an ended game of an arena gives its players (``users``, by seat; None for an added bot): each one's
    base points by place (none for a game ended without a result), and the players a bot stood in for at the
    end (they left or missed their moves; a player who conceded played it out), paused until they are back."""
    bases: dict[int, int] = {}
    paused: list[int] = []
    result = game.result if game is not None else None
    for seat, user in enumerate(users):
        if user is None or game is None:
            continue
        if result is not None:
            lost = seat in result.losers
            bases[user] = base_points(result.places[seat], lost, seat in result.drawn)
        if game.is_auto(seat) and seat not in game.conceded:
            paused.append(user)
    return bases, paused


def on_streak(before: Sequence[int]) -> bool:
    """Whether the next game is on a streak, given the player's earlier base points in order: the last
    STREAK (or more) were all wins."""
    return len(before) >= STREAK and all(b == WIN for b in before[-STREAK:])


def score(base: int, berserk: bool, before: Sequence[int]) -> Outcome:
    """What a game with ``base`` points scores after the games ``before`` (their base points, in order)."""
    streak = on_streak(before)
    points = base * 2 if streak else base
    if berserk and base == WIN:
        points += 1
    return Outcome(base, berserk, points, streak)


def tally(games: Iterable[tuple[int, bool]]) -> list[Outcome]:
    """A player's games in order, (base points, berserk) each, scored one after the other."""
    done: list[int] = []
    out = []
    for base, berserk in games:
        out.append(score(base, berserk, done))
        done.append(base)
    return out


@dataclass(frozen=True, slots=True)
class Free:
    """A player waiting to be paired: their score, when they became free (the longer wait goes first) and
    whom they played in their last game."""

    user_id: int
    score: int
    since: float
    last: frozenset[int] = frozenset()


def pair(free: Sequence[Free], size: int) -> list[tuple[int, ...]]:
    """Tables of ``size`` players from the free ones, as many as they fill. The longest waiting player is
    seated first, beside the players closest to them in score, but never with somebody they just played while
    somebody else could sit there. Whoever is left over waits for the next game to end."""
    pool = sorted(free, key=lambda f: (f.since, -f.score, f.user_id))
    tables: list[list[Free]] = []
    while len(pool) >= size:
        first = pool.pop(0)
        table = [first]
        while len(table) < size:
            fresh = [f for f in pool if not any(_met(f, t) for t in table)]
            choice = min(fresh or pool, key=lambda f: (abs(f.score - first.score), f.since, f.user_id))
            pool.remove(choice)
            table.append(choice)
        tables.append(table)
    _untangle(tables, pool)
    return [tuple(f.user_id for f in table) for table in tables]


def _met(a: Free, b: Free) -> bool:
    return b.user_id in a.last or a.user_id in b.last


def _untangle(tables: list[list[Free]], waiting: list[Free]) -> None:
    """A table seated with a rematch because nobody else was left when it was filled swaps that player with
    one waiting, or one at another table, where neither meets anybody they just played; until no swap helps
    (each swap ends a rematch and starts none, so this ends)."""
    while _swap(tables, waiting):
        pass


def _swap(tables: list[list[Free]], waiting: list[Free]) -> bool:
    for table in tables:
        for i, player in enumerate(table):
            if not any(_met(player, other) for other in table if other is not player):
                continue
            for elsewhere in [waiting, *(t for t in tables if t is not table)]:
                for j, other in enumerate(elsewhere):
                    if any(_met(other, x) for x in table if x is not player):
                        continue
                    if elsewhere is not waiting and any(_met(player, x) for x in elsewhere if x is not other):
                        continue
                    table[i], elsewhere[j] = other, player
                    return True
    return False
