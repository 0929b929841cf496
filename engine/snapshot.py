"""The whole game state as JSON and back, exactly, with a schema version (storage, restarts, bug reports).

Cards are written in their compact codes (``Th``) so a snapshot is readable; the talon is listed in draw
order (next card first, the face-up trump last).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from engine.cards import DECK_MASK, card_code, cards_of, mask_of, parse_card
from engine.compiled_rules import rules_for
from engine.game import Game, Result
from engine.options import Options

SCHEMA = 1


class SnapshotError(ValueError):
    """A snapshot that cannot be loaded; the message says what is wrong."""


class _ResultModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    places: list[int]
    durak: int | None
    losers: list[int]
    draw: bool
    drawn: list[int]
    pogony: bool
    losing_team: int | None
    bouts: int


class Snapshot(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int
    options: Options
    hands: list[str]
    talon: str
    trump: int
    trump_card: str | None
    trump_seat: int
    discard: str
    table: list[tuple[str, str | None]]
    lead: int
    defender: int
    taking: bool
    passed: list[int]
    shown: list[int]
    bout: int
    out: list[int]
    finishers: list[int]
    emptied: list[str]
    known: list[str]
    misses: list[int]
    auto: list[int]
    conceded: list[int] = []  # absent from snapshots written before concessions were played
    last_defender: int
    opening: tuple[str, str | None]
    version: int
    result: _ResultModel | None


def _codes(mask: int) -> str:
    return " ".join(card_code(c) for c in cards_of(mask))


def _mask(text: str) -> int:
    return mask_of(parse_card(part) for part in text.split())


def _seats(mask: int, n: int) -> list[int]:
    return [s for s in range(n) if mask >> s & 1]


def to_dict(game: Game) -> dict[str, Any]:
    n = game.players
    result = game.result
    return {
        "schema_version": SCHEMA,
        "options": game.options.model_dump(mode="json"),
        "hands": [_codes(h) for h in game.hands],
        "talon": " ".join(card_code(c) for c in reversed(game.talon)),
        "trump": game.trump,
        "trump_card": card_code(game.trump_card) if game.trump_card >= 0 else None,
        "trump_seat": game.trump_seat,
        "discard": _codes(game.discard),
        "table": [(card_code(a), card_code(c) if c is not None else None) for a, c in game.table()],
        "lead": game.lead,
        "defender": game.defender,
        "taking": game.taking,
        "passed": _seats(game.passed, n),
        "shown": _seats(game.shown, n),
        "bout": game.bout,
        "out": list(game.out),
        "finishers": list(game.finishers),
        "emptied": [_codes(m) for m in game.emptied],
        "known": [_codes(m) for m in game.known],
        "misses": list(game.misses),
        "auto": _seats(game.bot_seats, n),
        # Only where somebody conceded: every other snapshot stays byte for byte what it was before concessions.
        **({"conceded": list(game.conceded)} if game.conceded else {}),
        "last_defender": game.last_defender,
        "opening": (game.opening[0], card_code(game.opening[1]) if game.opening[1] >= 0 else None),
        "version": game.version,
        "result": None
        if result is None
        else {
            "places": list(result.places),
            "durak": result.durak,
            "losers": list(result.losers),
            "draw": result.draw,
            "drawn": list(result.drawn),
            "pogony": result.pogony,
            "losing_team": result.losing_team,
            "bouts": result.bouts,
        },
    }


def dumps(game: Game) -> str:
    return json.dumps(to_dict(game), ensure_ascii=False, separators=(",", ":"))


def from_dict(data: dict[str, Any]) -> Game:
    if data.get("schema_version") != SCHEMA:
        raise SnapshotError(
            f"unsupported snapshot schema {data.get('schema_version')!r} (this code reads {SCHEMA})"
        )
    try:
        snap = Snapshot.model_validate(data)
        return _build(snap)
    except (ValidationError, ValueError) as exc:
        if isinstance(exc, SnapshotError):
            raise
        raise SnapshotError(f"invalid snapshot: {exc}") from exc


def loads(text: str) -> Game:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"snapshot is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise SnapshotError("snapshot is not a JSON object")
    return from_dict(data)


def _build(snap: Snapshot) -> Game:
    n = len(snap.hands)
    snap.options.check_players(n)
    for name in ("out", "emptied", "known", "misses"):
        if len(getattr(snap, name)) != n:
            raise SnapshotError(f"{name} has {len(getattr(snap, name))} entries for {n} seats")
    seats = {snap.lead, snap.defender, snap.trump_seat, snap.last_defender, *snap.finishers, *snap.conceded}
    if any(not -1 <= s < n for s in seats) or not 0 <= snap.trump < 4:
        raise SnapshotError("a seat or suit number is out of range")
    r = snap.result
    g = Game.assemble(
        rules_for(snap.options, n),
        hands=[_mask(h) for h in snap.hands],
        talon=[parse_card(c) for c in reversed(snap.talon.split())],
        trump=snap.trump,
        trump_card=parse_card(snap.trump_card) if snap.trump_card else -1,
        trump_seat=snap.trump_seat,
        discard=_mask(snap.discard),
        attack=[parse_card(a) for a, _ in snap.table],
        cover=[parse_card(c) if c else -1 for _, c in snap.table],
        lead=snap.lead,
        defender=snap.defender,
        taking=snap.taking,
        passed=mask_of(snap.passed),
        shown=mask_of(snap.shown),
        bout=snap.bout,
        out=list(snap.out),
        finishers=list(snap.finishers),
        emptied=[_mask(m) for m in snap.emptied],
        known=[_mask(m) for m in snap.known],
        misses=list(snap.misses),
        bot_seats=mask_of(snap.auto),
        conceded=list(snap.conceded),
        last_defender=snap.last_defender,
        opening=(snap.opening[0], parse_card(snap.opening[1]) if snap.opening[1] else -1),
        version=snap.version,
        result=None
        if r is None
        else Result(
            places=tuple(r.places),
            durak=r.durak,
            losers=tuple(r.losers),
            draw=r.draw,
            drawn=tuple(r.drawn),
            pogony=r.pogony,
            losing_team=r.losing_team,
            bouts=r.bouts,
        ),
    )
    _check_cards(g)
    return g


def _check_cards(g: Game) -> None:
    """Every card of the deck is in exactly one place."""
    if len(set(g.talon)) != len(g.talon) or len(set(g.attack)) != len(g.attack):
        raise SnapshotError("a card is listed twice")
    places = [*g.hands, mask_of(g.talon), g.discard, mask_of(g.attack), mask_of(c for c in g.cover if c >= 0)]
    total = 0
    for m in places:
        if total & m:
            raise SnapshotError(f"card {_codes(total & m)} is in two places")
        total |= m
    if total != DECK_MASK[g.options.deck]:
        raise SnapshotError(
            f"cards missing or foreign to the deck: {_codes(total ^ DECK_MASK[g.options.deck])}"
        )
