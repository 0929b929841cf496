"""The layers stay as designed: engine <- storage <- bot, nothing imports back up, and no module imports
itself round a circle (a TYPE_CHECKING import counts too: it is a circle for anyone reading the code)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "storage", "bot")
ALLOWED = {"engine": set(), "storage": {"engine"}, "bot": {"engine", "storage"}}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    modules = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            found |= {t for t in targets if t in modules and t != name}
        graph[name] = found
    return graph


def test_no_layer_imports_a_layer_above_it() -> None:
    for module, targets in imports().items():
        layer = module.split(".")[0]
        for target in targets:
            assert target.split(".")[0] in ALLOWED[layer] | {layer}, f"{module} imports {target}"


def test_no_import_cycle() -> None:
    graph = imports()
    # A package's __init__ importing its own submodules is how packages re-export: not a circle.
    edges = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(edges.get(module, ())):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] if target in path else path
                raise AssertionError("import cycle: " + " -> ".join([*cycle, target]))
            if target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])


def test_only_the_engine_takes_cards_apart() -> None:
    """A card is ``rank * 4 + suit`` inside the engine only; everything else asks ``engine.cards`` for its
    rank and suit, so the encoding can change in one place."""
    found = []
    for package in ("storage", "bot"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.BinOp)
                    and isinstance(node.op, ast.RShift | ast.BitAnd | ast.LShift)
                    and isinstance(node.right, ast.Constant)
                    and node.right.value in (2, 3)
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


MUTATORS = {"append", "extend", "insert", "clear", "pop", "remove", "add", "discard", "update", "setdefault"}


def test_handlers_change_tables_only_through_the_service() -> None:
    """A handler turns an update into a command on the table service: it never assigns to an attribute of
    anything, to an item of one, nor changes one in place (``table.links.append``), so every change to a
    table is made by a command, under that table's lock."""
    found = []
    for path in (ROOT / "bot" / "handlers").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS
                and isinstance(node.func.value, ast.Attribute)
            ):
                targets = [node.func.value]
            else:
                continue
            if any(
                isinstance(t, ast.Attribute)
                or (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute))
                for t in targets
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_every_module_is_on_the_architecture_map() -> None:
    """docs/architecture.md names every module of the three packages, so a contributor finds each one there."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.name != "__init__.py" and path.name not in text
    ]
    assert missing == []


INSIDE = {"Table", "Lobby", "Play", "Clock", "Screens", "Core"}  # the live table, and its parts
INTERNALS = {
    f"bot.service.{name}" for name in ("table", "lobby", "play", "clock", "screens", "core", "restore")
}


def test_only_the_service_sees_a_live_table() -> None:
    """Outside ``bot/service`` a table is only ever the last record it published (bot.service.published):
    nothing imports the live ``Table`` or reaches the service's map of them, so nothing outside reads or
    writes a live table's attributes. Inside, a table leaves one way: published once, on a command's way
    out (``Table.command``); no command marks a screen to redraw."""
    found = []
    for path in (ROOT / "bot").rglob("*.py"):
        inside = path.parent.name == "service"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if (
                not inside
                and isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith("bot.service")
            ):
                names = sorted({a.name for a in node.names} & INSIDE)
                if names or node.module in INTERNALS:
                    found.append(f"{where} imports {node.module} {names}")
            if not inside and isinstance(node, ast.Attribute) and node.attr == "tables":
                owner = node.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                if name == "service":
                    found.append(f"{where} reads the service's live tables")
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "published"
                and isinstance(node.ctx, ast.Load)
            ):
                owner = node.value
                if isinstance(owner, ast.Attribute) and owner.attr == "watcher" and path.name != "table.py":
                    found.append(f"{where} publishes outside Table.command")
            if isinstance(node, ast.Attribute) and node.attr == "redraw":
                found.append(f"{where} marks a redraw by hand")
    assert found == []


LONGEST = 250  # lines a bot module may have: one over it is usually two


def test_no_bot_module_is_longer_than_a_sitting() -> None:
    """A module reads in one sitting: no module of the bot is over LONGEST lines (as ``wc -l`` counts)."""
    long = {
        str(path.relative_to(ROOT)): lines
        for path in (ROOT / "bot").rglob("*.py")
        if (lines := path.read_text(encoding="utf-8").count("\n")) > LONGEST
    }
    assert long == {}
