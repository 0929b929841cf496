"""docs/rules.md is what code, tests and players cite: every cited section must exist, every table option
must be in its table, and the project must not cite a rules file outside itself."""

from __future__ import annotations

import re
from pathlib import Path

from engine import Options

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
CITATION = re.compile(r"docs/rules\.md((?:(?:,|\sand)?\s*§\d+(?:\.\d+)?(?:\s*-\s*§\d+(?:\.\d+)?)?)+)")


def sections() -> set[str]:
    found = set()
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if heading := re.match(r"#{2,3} (\d+(?:\.\d+)?)\.? ", line):
            found.add(heading.group(1))
    return found


def sources() -> list[Path]:
    return [
        p
        for folder in ("engine", "storage", "bot", "tests", "bench", "docs")
        for p in (ROOT / folder).rglob("*")
        if p.suffix in (".py", ".md", ".toml") and p.is_file()
    ] + [ROOT / "README.md"]


def test_every_cited_section_of_the_rules_has_a_heading() -> None:
    known = sections()
    assert {"1", "4", "4.4", "4.5", "9", "12"} <= known
    cited: dict[str, list[str]] = {}
    for path in sources():
        for match in CITATION.finditer(path.read_text(encoding="utf-8")):
            for number in re.findall(r"§(\d+(?:\.\d+)?)", match.group(1)):
                cited.setdefault(number, []).append(path.name)
    assert len(cited) >= 8, cited
    missing = {number: files for number, files in cited.items() if number not in known}
    assert not missing, f"cited sections with no heading in docs/rules.md: {missing}"


def test_no_file_cites_a_rules_file_outside_the_project() -> None:
    for path in sources():
        if path != Path(__file__):
            assert "RULES" + ".md" not in path.read_text(encoding="utf-8"), path


def test_every_table_option_is_in_the_options_table_with_its_default() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## 12.") :]
    for name in Options.model_fields:
        assert f"| `{name}` |" in table, name
