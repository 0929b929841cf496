"""Game's fields have one owner: ``Game.FIELDS`` and ``Game.DERIVED`` name them, ``assemble`` sets them, and
copies, snapshots and AI worlds keep every one. A field added in one place and forgotten in another fails
here."""

from __future__ import annotations

import inspect
import random

import pytest

from engine import Game, Options
from engine.ai.worlds import Worlds
from engine.snapshot import dumps, loads
from engine.views import view


def mid_game(seed: int, **options: object) -> Game:
    """A game some way in, with cards on the table, passes, seats out or a bot seat where the deal allows."""
    rng = random.Random(seed)
    players = rng.choice([4, 6]) if options.get("teams") else rng.randint(2, 6)
    g = Game.deal(Options(**options), players, rng=rng)
    for _ in range(rng.randint(5, 400)):
        if g.over:
            break
        seat = rng.choice(g.to_act())
        g.push(seat, rng.choice(g.legal_moves(seat)))
    if not g.over and rng.random() < 0.5:
        g.take_over(rng.randrange(players))
    playing = [s for s in range(players) if g.out[s] < 0]
    if not g.over and not options.get("teams") and len(playing) > 2 and rng.random() < 0.5:
        g.concede(rng.choice(playing))  # one player conceded, the others play on
    return g


STATES = [
    mid_game(seed, **options)
    for seed in range(12)
    for options in ({}, {"variant": "transfer", "show_trump_transfer": True}, {"teams": True})
]


# A class compiled by mypyc keeps its attributes in C and has no ``__slots__``: the pure build checks them.
SLOTS = getattr(Game, "__slots__", Game.FIELDS + Game.DERIVED)


def test_every_slot_is_a_field_or_derived_and_assemble_takes_every_field() -> None:
    assert set(SLOTS) == set(Game.FIELDS) | set(Game.DERIVED)
    assert not set(Game.FIELDS) & set(Game.DERIVED)
    parameters = list(inspect.signature(Game.assemble).parameters)
    assert parameters[1:] == list(Game.FIELDS)[1:] and parameters[0] == "rules" == Game.FIELDS[0]


@pytest.mark.parametrize("game", STATES, ids=lambda g: f"{g.players}p-v{g.version}")
def test_copy_keeps_every_field_and_shares_no_list(game: Game) -> None:
    copy = game.copy()
    for name in SLOTS:
        value = getattr(game, name)
        assert getattr(copy, name) == value, name
        if isinstance(value, list):
            assert getattr(copy, name) is not value, f"{name} is shared between copies"


@pytest.mark.parametrize("game", STATES, ids=lambda g: f"{g.players}p-v{g.version}")
def test_a_snapshot_keeps_every_field(game: Game) -> None:
    again = loads(dumps(game))
    for name in SLOTS:
        assert getattr(again, name) == getattr(game, name), name


@pytest.mark.parametrize("game", STATES, ids=lambda g: f"{g.players}p-v{g.version}")
def test_derived_fields_follow_from_the_others(game: Game) -> None:
    copy = game.copy()
    for name in Game.DERIVED:  # spoilt with a value of the field's own type (a compiled class takes no other)
        value = getattr(copy, name)
        setattr(copy, name, -7 if isinstance(value, int) else type(value)([-7]))
    copy._derive()
    for name in Game.DERIVED:
        assert getattr(copy, name) == getattr(game, name), name


@pytest.mark.parametrize(
    "game", [g for g in STATES if not g.over], ids=lambda g: f"{g.players}p-v{g.version}"
)
def test_an_ai_world_has_every_field(game: Game) -> None:
    seat = game.to_act()[0]
    world = Worlds(view(game, seat), random.Random(0)).deal()
    for name in SLOTS:
        getattr(world, name)  # set, whatever its value in this world
    for name in (
        "trump",
        "attack",
        "cover",
        "lead",
        "defender",
        "taking",
        "passed",
        "shown",
        "bout",
        "throwers",
    ):
        assert getattr(world, name) == getattr(game, name), name


def test_the_same_table_shape_compiles_to_equal_rules() -> None:
    """``rules_for`` keeps a bounded number of table shapes: a game loaded after its shape left the cache holds
    a new object, which must still equal the old one (a snapshot keeps every field)."""
    from engine.compiled_rules import Rules, rules_for

    game = Game.deal(Options(), 3, rng=random.Random(1))
    fresh = Rules(game.rules.options, game.players)
    assert fresh is not game.rules and fresh == game.rules and hash(fresh) == hash(game.rules)
    assert fresh != rules_for(Options(), 2) and fresh != rules_for(Options(deck=52), 3)
