"""An arena's standings, pure: each player's games scored in the order they ended (bot.arena.rules), and the
order of the board (points, then wins, then fewer games played for them)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.arena.rules import WIN, on_streak, tally
from storage.records import ArenaRow, ArenaState


@dataclass(frozen=True, slots=True)
class Standing:
    user_id: int
    points: int
    games: int  # ended with a result
    wins: int
    on_fire: bool  # their next game is on a streak (doubled)
    berserk: bool  # goes berserk at their next deal
    state: ArenaState
    marks: tuple[int, ...]  # each game's points in order (what the board prints)


def standings(row: ArenaRow) -> list[Standing]:
    """Everybody who joined, best first."""
    games: dict[int, list[tuple[float, int, int, bool]]] = {}
    for g in row.games:
        if g.base is not None and g.finished_at is not None:
            games.setdefault(g.user_id, []).append((g.finished_at, g.table_id, g.base, g.berserk))
    board = []
    for player in row.players:
        played = sorted(games.get(player.user_id, []))
        scored = tally((base, berserk) for _, _, base, berserk in played)
        bases = [o.base for o in scored]
        board.append(
            Standing(
                user_id=player.user_id,
                points=sum(o.points for o in scored),
                games=len(scored),
                wins=bases.count(WIN),
                on_fire=on_streak(bases),
                berserk=player.berserk,
                state=player.state,
                marks=tuple(o.points for o in scored),
            )
        )
    return sorted(board, key=lambda s: (-s.points, -s.wins, s.games, s.user_id))


def podium(row: ArenaRow) -> list[Standing]:
    """The first three who scored (nobody who played no game stands on it)."""
    return [s for s in standings(row) if s.games][:3]
