"""Rating updates with openskill's Plackett-Luce model: many players, shared places, teams."""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
START_MU = MODEL.mu
START_SIGMA = MODEL.sigma


@dataclass(frozen=True, slots=True)
class Standing:
    user_id: int
    team: int  # players on one team are rated together; in free-for-all each player is a team
    rank: int  # 1 is best; equal ranks are ties
    mu: float
    sigma: float


def ordinal(mu: float, sigma: float) -> float:
    """The conservative skill estimate the leaderboards sort by."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal())


def rate(standings: list[Standing]) -> dict[int, tuple[float, float]]:
    """New (mu, sigma) per user after one game."""
    teams: dict[int, list[Standing]] = {}
    for s in standings:
        teams.setdefault(s.team, []).append(s)
    order = sorted(teams)
    rated = MODEL.rate(
        [[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in teams[t]] for t in order],
        ranks=[min(s.rank for s in teams[t]) for t in order],
    )
    return {
        s.user_id: (float(r.mu), float(r.sigma))
        for t, new in zip(order, rated, strict=True)
        for s, r in zip(teams[t], new, strict=True)
    }
