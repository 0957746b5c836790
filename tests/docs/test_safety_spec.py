"""`docs/safety.md` stays true to the code: every anchor that code or docs cite exists, every
file it names exists, and every diagnostic it quotes for a rule is pinned by one of the negative
tests it lists for that rule.

The spec is prose, so these checks are what keep it from drifting: renaming a test file, moving
a module, or rewording a diagnostic without updating the spec fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "safety.md"
THIS = Path(__file__).resolve()
SOURCE_DIRS = ("ferrox", "dialects", "passes", "lowering", "targets", "driver", "docs", "tests")
CITATION = re.compile(r"(?:docs/)?\bsafety\.md#([A-Za-z0-9_-]+)")  # also relative doc links
ANCHOR = re.compile(r'<a id="([A-Za-z0-9_-]+)"></a>')
LINK = re.compile(r"\]\(#([A-Za-z0-9_-]+)\)")
PATH = re.compile(
    r"`((?:ferrox|dialects|passes|lowering|targets|driver|tests|docs|examples)/[A-Za-z0-9_./-]*)`"
)


def spec_text() -> str:
    return SPEC.read_text()


def anchors() -> set[str]:
    return set(ANCHOR.findall(spec_text()))


def cited_anchors() -> list[tuple[str, str]]:
    """(file, anchor) for every `docs/safety.md#anchor` in the repository's code and docs."""
    found = []
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".md", ".mlir") or path in (SPEC, THIS):
                continue
            for anchor in CITATION.findall(path.read_text(errors="replace")):
                found.append((str(path.relative_to(ROOT)), anchor))
    found.extend(("README.md", a) for a in CITATION.findall((ROOT / "README.md").read_text()))
    return found


RULE = re.compile(r"(simt|host|tile|launch)-[a-z0-9-]+")


def rule_sections() -> list[tuple[str, str]]:
    """(anchor, text) of each `### <a id=...>` section of a rule (simt-*, host-*, tile-*,
    launch-*); every `###` heading must have an anchor."""
    parts = re.split(r"^### ", spec_text(), flags=re.M)[1:]
    sections = []
    for part in parts:
        match = ANCHOR.match(part)
        assert match, f"heading without an anchor: {part.splitlines()[0]!r}"
        if RULE.fullmatch(match.group(1)):
            sections.append((match.group(1), part.split("\n## ")[0]))
    return sections


def field(section: str, name: str) -> list[str]:
    """The backticked items of a `- **name**: ...` field (which may wrap over several lines)."""
    match = re.search(rf"^- \*\*{name}\*\*:(.*?)(?=^- \*\*|\Z)", section, flags=re.M | re.S)
    if match is None:
        return []
    return re.findall(r"`([^`]+)`", match.group(1))


def test_anchors_are_unique():
    ids = ANCHOR.findall(spec_text())
    assert len(ids) == len(set(ids)), sorted(a for a in ids if ids.count(a) > 1)


def test_every_anchor_cited_from_code_and_docs_exists():
    known = anchors()
    cited = cited_anchors()
    missing = [f"{where}: #{anchor}" for where, anchor in cited if anchor not in known]
    assert missing == []


def test_the_spec_outside_the_repository_is_cited_no_more():
    """The rules used to be cited as DESIGN.md, a file outside the repository."""
    stale = []
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".md") and path != THIS:
                if "DESIGN" + ".md" in path.read_text(errors="replace"):
                    stale.append(str(path.relative_to(ROOT)))
    assert stale == []


def test_internal_links_point_at_anchors():
    known = anchors()
    assert [a for a in LINK.findall(spec_text()) if a not in known] == []


def test_every_file_the_spec_names_exists():
    named = sorted(set(PATH.findall(spec_text())))
    assert len(named) > 40  # the spec names its enforcement points and tests
    assert [p for p in named if not (ROOT / p.rstrip("/")).exists()] == []


@pytest.mark.parametrize("anchor,section", rule_sections(), ids=lambda v: v[:20])
def test_each_rule_names_its_enforcement_and_its_pinned_diagnostics(anchor, section):
    enforced = [p for p in field(section, "Enforced by") if PATH.fullmatch(f"`{p}`")]
    assert enforced, f"#{anchor} names no code that enforces it"
    tests = [p for p in field(section, "Negative tests") if p.startswith("tests/")]
    assert tests, f"#{anchor} names no negative test"
    texts = [(ROOT / p).read_text() for p in tests]
    unpinned = [d for d in field(section, "Diagnostics") if not any(d in t for t in texts)]
    assert unpinned == [], f"#{anchor}: diagnostics no listed test pins"


def test_the_field_reader_finds_what_a_section_says():
    """The checks above read the spec through `field`; make sure it reads what is written."""
    section = (
        'simt-x"></a>Title\nText.\n- **Enforced by**: `passes/a.py` and\n  `passes/b.py`.\n'
        "- **Diagnostics**: `one`;\n  `two`\n- **Negative tests**: `tests/x.mlir`\n"
    )
    assert field(section, "Enforced by") == ["passes/a.py", "passes/b.py"]
    assert field(section, "Diagnostics") == ["one", "two"]
    assert field(section, "Negative tests") == ["tests/x.mlir"]
    assert field(section, "Missing") == []
