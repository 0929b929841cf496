"""Compile the engine's hot modules with mypyc (in place), or remove the compiled modules again.

    .venv/bin/python bench/compile_engine.py          # build: about a minute; needs a C compiler
    .venv/bin/python bench/compile_engine.py --clean  # back to pure Python

Python imports a compiled module in preference to its source, so the bot, the tests and the benchmarks use
the compiled engine whenever it is there and pure Python otherwise. Rebuild after changing an engine module
(or clean): a compiled module does not follow its source. The pinned trajectories must be the same on both
builds; `.ci/run` checks it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
]


def compiled() -> list[Path]:
    """The compiled modules present: the engine's and mypyc's shared runtime next to the project."""
    return [*ROOT.glob("engine/**/*.so"), *ROOT.glob("*__mypyc*.so")]


def clean() -> None:
    for path in compiled():
        path.unlink()
        print(f"removed {path.relative_to(ROOT)}")


def build() -> None:
    clean()
    with tempfile.TemporaryDirectory() as tmp:  # mypyc's C sources and objects: never in the work tree
        work = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "mypyc", *MODULES],
            cwd=ROOT,
            check=True,
            env={**os.environ, "TMPDIR": str(work)},
        )
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    print(f"compiled {len(compiled())} modules")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    if parser.parse_args().clean:
        clean()
    else:
        build()


if __name__ == "__main__":
    main()
