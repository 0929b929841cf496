"""Which engine runs: the modules the install compiled with mypyc, or their pure-Python sources.

`pip install -e .` compiles the engine's hot modules where a C compiler is present (setup.py) and records in
`engine/_build.json` the sources it compiled, or why it compiled none. Python imports a compiled module in
preference to its source, so a contributor who edits `engine/game.py` after the build would silently run the
old code: this module, imported before any other engine module, compares the sources with the record and,
unless every one is unchanged, has the sources imported instead of every compiled module (they call each other
natively, so one stale module spoils them all). `DURAK_ENGINE=pure` asks for the pure engine outright.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent  # what the record's paths are relative to
MANIFEST = ROOT / "engine" / "_build.json"
REBUILD = "`pip install -e .` compiles it"
TREES = ("engine", "bench")  # where setup.py's modules are: bench/ismcts.py, the benchmarks' anchor, too


@dataclass(frozen=True)
class Build:
    compiled: bool
    reason: str = ""  # why the engine runs pure Python
    asked: bool = False  # pure because DURAK_ENGINE=pure asked for it, rather than for want of a build

    def __str__(self) -> str:
        return "compiled engine (mypyc)" if self.compiled else f"pure-Python engine: {self.reason}"


def _decide() -> Build:
    if os.environ.get("DURAK_ENGINE", "").lower() == "pure":
        return Build(False, "DURAK_ENGINE=pure", asked=True)
    try:
        record = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return Build(False, f"not compiled at install ({REBUILD} where a C compiler is present)")
    if "reason" in record:
        return Build(False, str(record["reason"]))
    if record.get("python") != sys.implementation.cache_tag:
        return Build(False, f"compiled for {record.get('python')}, running {sys.implementation.cache_tag}")
    for path, digest in record["modules"].items():
        source = ROOT / path
        if not source.is_file() or hashlib.sha256(source.read_bytes()).hexdigest() != digest:
            return Build(False, f"{path} changed after it was compiled; {REBUILD} again")
        if _extension(source) is None:
            return Build(False, f"the compiled {path} is missing; {REBUILD} again")
    for path in record.get("runtime", ()):
        if not (ROOT / path).is_file():
            return Build(False, f"mypyc's runtime {path} is missing; {REBUILD} again")
    return Build(True)


def _extension(source: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_name(source.stem + suffix)
        if candidate.is_file():
            return candidate
    return None


class _Sources(importlib.abc.MetaPathFinder):
    """Imports the source of each named module even where a compiled one sits next to it."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        return importlib.util.spec_from_file_location(fullname, source) if source else None


def _shadowed() -> dict[str, Path]:
    """Every module of the trees setup.py compiles from that has a compiled file next to its source."""
    found: dict[str, Path] = {}
    for source in (path for tree in TREES for path in (ROOT / tree).rglob("*.py")):
        if _extension(source) is not None:
            found[".".join(source.relative_to(ROOT).with_suffix("").parts)] = source
    return found


def _runtime() -> dict[str, Path]:
    """mypyc's shared library, which every compiled module imports as a top-level module. It sits next to the
    packages, where Python finds it only when the work tree is on the path: an editable install's finder maps
    the packages alone (and only the runtime a build just made), so from any other working directory (a
    service, the load bench) it would be missing. Named here, it is found wherever the bot starts."""
    try:
        record = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return {}
    return {Path(path).name.split(".")[0]: ROOT / path for path in record.get("runtime", ())}


BUILD = _decide()
if not BUILD.compiled and (shadowed := _shadowed()):
    sys.meta_path.insert(0, _Sources(shadowed))
elif BUILD.compiled:
    sys.meta_path.append(_Sources(_runtime()))  # last: a runtime Python finds itself comes first
