"""The build hook: `pip install -e .` compiles the engine's hot modules with mypyc where it can.

Where a C compiler is present the modules below are compiled (as mypy and black ship themselves); where it is
not, or `DURAK_ENGINE=pure` is set, the engine stays pure Python and the install goes on. Either way the build
writes `engine/_build.json` (never committed): which modules were compiled from which sources, or why none
were. `engine/build.py` reads it at import and runs the sources instead of any compiled module whose source
has changed since, so an edited engine is never shadowed by a stale build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# The modules playouts and searches run through; options (pydantic) and snapshots stay Python.
MODULES = [
    "engine/cards.py",
    "engine/moves.py",
    "engine/compiled_rules.py",
    "engine/events.py",
    "engine/game.py",
    "engine/views.py",
    "engine/ai/policy.py",
    "engine/ai/worlds.py",
    "engine/ai/solver.py",
    "engine/ai/search.py",
    "engine/ai/race.py",
    "engine/ai/value.py",
]
MANIFEST = "engine/_build.json"
# mypyc's C files, removed after the build (relative: setuptools refuses absolute source paths in a wheel)
C_SOURCES = Path("build", "mypyc")
# pip runs this file for metadata too; only a build compiles, and an editable one (every start of the README's
# run command) keeps a work tree's compiled modules that are up to date.
BUILDING = bool({"build", "build_ext", "bdist_wheel", "editable_wheel"} & set(sys.argv))
EDITABLE = "editable_wheel" in sys.argv
PURE = os.environ.get("DURAK_ENGINE", "").lower() == "pure"
# A work tree, where the benchmarks run, also compiles their outside anchor: at native speed, as it would be.
if EDITABLE:
    MODULES.append("bench/ismcts.py")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_modules() -> list[Path]:
    """Compiled modules in the work tree: the engine's and mypyc's shared runtime next to it."""
    return [
        *(path for tree in ("engine", "bench") for path in ROOT.glob(f"{tree}/**/*.so")),
        *(path for tree in ("engine", "bench") for path in ROOT.glob(f"{tree}/**/*.pyd")),
        *ROOT.glob("*__mypyc*.*"),
    ]


def up_to_date() -> bool:
    """Whether the work tree's compiled modules were built from today's sources, for this Python."""
    try:
        record = json.loads((ROOT / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    return (
        record.get("python") == sys.implementation.cache_tag
        and all(
            path in record.get("modules", {})
            and record["modules"][path] == digest(ROOT / path)
            and (ROOT / path).with_suffix(suffix).is_file()
            for path in MODULES
        )
        and all((ROOT / path).is_file() for path in record.get("runtime", ()))
    )


def extensions() -> tuple[list[Any], str]:
    """mypyc's extensions for MODULES, or none and why."""
    if PURE:
        return [], "DURAK_ENGINE=pure was set at install"
    if not BUILDING:  # pip asking for metadata: nothing is compiled then
        return [], ""
    # Checked first: where they are missing (a fresh machine), mypyc's half minute would be spent for nothing.
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return [], f"no C compiler at install ({cc} not found)"
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        return [], "Python's C headers were missing at install (Debian: python3-dev)"
    try:
        from mypyc.build import mypycify

        return mypycify(MODULES, opt_level="3", target_dir=str(C_SOURCES)), ""
    except BaseException as error:  # mypy's own failures end in SystemExit: the install goes on regardless
        return [], f"mypyc could not translate the engine ({type(error).__name__}: {error})"


KEPT = EDITABLE and not PURE and up_to_date()
EXTENSIONS, NOT_COMPILED = ([], "") if KEPT else extensions()


class BuildEngine(build_ext):
    """Compiles what mypyc produced; a missing or failing C compiler leaves the pure engine, and says so."""

    inplace: bool
    extensions: list[Any]

    def run(self) -> None:
        if KEPT:
            print("durak engine: the compiled modules are up to date", file=sys.stderr)
            return
        reason, inplace = NOT_COMPILED, self.inplace
        if self.extensions:
            try:
                super().run()
            # The compiler's absence or failure, in whatever class setuptools raises it.
            except Exception as error:
                reason = f"the C compiler failed at install ({type(error).__name__}: {error})"
                self.extensions = []
        self.inplace = inplace  # setuptools clears it while building and restores it only on success
        if reason and inplace:  # an earlier build's modules must not outlive this one
            for path in compiled_modules():
                path.unlink()
        elif inplace:  # nor an earlier build's runtime library, named after what it was built from
            kept = {self.get_ext_filename(ext.name) for ext in self.extensions}
            for path in ROOT.glob("*__mypyc*.*"):
                if path.name not in kept:
                    path.unlink()
        shutil.rmtree(ROOT / C_SOURCES, ignore_errors=True)
        self.write_manifest(reason)
        line = f"durak engine: pure Python — {reason}" if reason else "durak engine: compiled with mypyc"
        print(line, file=sys.stderr)

    def get_outputs(self) -> list[str]:
        return [*super().get_outputs(), str(self.manifest_path())]

    def manifest_path(self) -> Path:
        return ROOT / MANIFEST if self.inplace else Path(self.build_lib) / MANIFEST

    def write_manifest(self, reason: str) -> None:
        record: dict[str, Any] = {"python": sys.implementation.cache_tag}
        if reason:
            record["reason"] = reason
        else:
            record["modules"] = {path: digest(ROOT / path) for path in MODULES}
            modules = {path.removesuffix(".py").replace("/", ".") for path in MODULES}
            # mypyc's shared library, which every compiled module loads: it must be there too
            record["runtime"] = [
                self.get_ext_filename(ext.name) for ext in self.extensions if ext.name not in modules
            ]
        path = self.manifest_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1) + "\n")


class AlwaysBuilt(Distribution):
    """build_ext runs even with nothing to compile, so that the manifest always says why."""

    def has_ext_modules(self) -> bool:
        return True


setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": BuildEngine}, distclass=AlwaysBuilt)
