"""Which engine runs (engine/build.py): the compiled modules only while every source they were built from is
unchanged, the sources otherwise, and never a stale compiled module."""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.build import TREES

ROOT = Path(engine.__file__).resolve().parent.parent
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
PROBE = (
    "import engine, engine.cards, engine.game, engine.ai.search;"
    "print(engine.BUILD.compiled, engine.BUILD.reason, engine.cards.__file__, engine.game.__file__,"
    " engine.ai.search.__file__, sep='|')"
)


def probe(tree: Path, **env: str) -> tuple[bool, str, list[str]]:
    """Import the engine of ``tree`` in a fresh interpreter: compiled?, why not, where three modules came from."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree), "DURAK_ENGINE": "", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    compiled, reason, *files = done.stdout.strip().split("|")
    return compiled == "True", reason, [Path(f).name for f in files]


def copy_engine(tmp_path: Path, compiled: bool) -> Path:
    tree = tmp_path / "tree"
    skip = (
        shutil.ignore_patterns("__pycache__") if compiled else shutil.ignore_patterns("__pycache__", "*.so")
    )
    for part in TREES:  # every tree setup.py compiles from: the record covers them all
        shutil.copytree(ROOT / part, tree / part, ignore=skip)
    if not compiled:
        (tree / "engine" / "_build.json").unlink(missing_ok=True)
    else:
        for runtime in json.loads((ROOT / "engine" / "_build.json").read_text()).get("runtime", ()):
            shutil.copy(ROOT / runtime, tree / runtime)
    return tree


def sources(files: list[str]) -> bool:
    return all(f.endswith(".py") for f in files)


def test_without_a_build_record_the_sources_run_even_beside_a_compiled_file(tmp_path: Path) -> None:
    tree = copy_engine(tmp_path, compiled=False)
    # Not a loadable module at all: had Python's own order (extension before source) applied, the import failed.
    (tree / "engine" / f"game{SUFFIX}").write_bytes(b"not a shared object")
    compiled, reason, files = probe(tree)
    assert not compiled and "not compiled at install" in reason
    assert files == ["cards.py", "game.py", "search.py"]


def test_a_source_changed_after_its_build_runs_as_source(tmp_path: Path) -> None:
    tree = copy_engine(tmp_path, compiled=False)
    game = tree / "engine" / "game.py"
    record = {
        "python": sys.implementation.cache_tag,
        "modules": {"engine/game.py": hashlib.sha256(game.read_bytes()).hexdigest()},
        "runtime": [],
    }
    (tree / "engine" / "_build.json").write_text(json.dumps(record))
    (tree / "engine" / f"game{SUFFIX}").write_bytes(b"built from the source before the edit")
    game.write_text(game.read_text() + "\n# a contributor's edit\n")
    compiled, reason, files = probe(tree)
    assert not compiled and reason.startswith("engine/game.py changed after it was compiled")
    assert files == ["cards.py", "game.py", "search.py"]


def test_a_build_for_another_python_is_not_used(tmp_path: Path) -> None:
    tree = copy_engine(tmp_path, compiled=False)
    (tree / "engine" / "_build.json").write_text(json.dumps({"python": "cpython-30", "modules": {}}))
    compiled, reason, _ = probe(tree)
    assert not compiled and reason == f"compiled for cpython-30, running {sys.implementation.cache_tag}"


def test_an_install_that_could_not_compile_says_why(tmp_path: Path) -> None:
    tree = copy_engine(tmp_path, compiled=False)
    (tree / "engine" / "_build.json").write_text(
        json.dumps({"python": "x", "reason": "no C compiler at install"})
    )
    assert probe(tree)[:2] == (False, "no C compiler at install")


def built() -> bool:
    """Whether the install compiled the engine (this process may still run it pure: DURAK_ENGINE=pure)."""
    try:
        return "modules" in json.loads((ROOT / "engine" / "_build.json").read_text())
    except OSError:
        return False


compiled_here = pytest.mark.skipif(not built(), reason=f"needs the compiled engine: {engine.BUILD}")


@compiled_here
def test_the_compiled_build_runs_while_its_sources_are_unchanged(tmp_path: Path) -> None:
    compiled, reason, files = probe(copy_engine(tmp_path, compiled=True))
    assert compiled and reason == ""
    assert files == [f"cards{SUFFIX}", f"game{SUFFIX}", f"search{SUFFIX}"]


@compiled_here
def test_the_compiled_build_loads_from_any_working_directory(tmp_path: Path) -> None:
    # An editable install's finder maps the packages only, not mypyc's runtime library beside them: here the
    # packages are reached through links from elsewhere, and the runtime is not on the path.
    tree = copy_engine(tmp_path, compiled=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for part in TREES:
        (elsewhere / part).symlink_to(tree / part)
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(elsewhere), "DURAK_ENGINE": ""},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    compiled, _, *files = done.stdout.strip().split("|")
    assert compiled == "True" and [Path(f).name for f in files] == [
        f"cards{SUFFIX}",
        f"game{SUFFIX}",
        f"search{SUFFIX}",
    ]


@compiled_here
def test_one_edited_module_sends_every_module_back_to_source(tmp_path: Path) -> None:
    # The compiled modules call each other natively: an edited views.py alone would still be bypassed by
    # the compiled game, so none of them may run compiled.
    tree = copy_engine(tmp_path, compiled=True)
    views = tree / "engine" / "views.py"
    views.write_text(views.read_text() + "\n# a contributor's edit\n")
    compiled, reason, files = probe(tree)
    assert not compiled and reason.startswith("engine/views.py changed after it was compiled")
    assert files == ["cards.py", "game.py", "search.py"]


@compiled_here
def test_pure_on_request(tmp_path: Path) -> None:
    compiled, reason, files = probe(copy_engine(tmp_path, compiled=True), DURAK_ENGINE="pure")
    assert (compiled, reason) == (False, "DURAK_ENGINE=pure") and sources(files)
