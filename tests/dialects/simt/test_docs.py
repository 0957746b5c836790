"""docs/dialects/simt.md covers every simt op and type with an example cut from a tested file,
and no example has drifted from its source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.ir import TypeAttribute

from ferrox.dialects.simt import SIMT

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "dialects" / "simt.md"
import snippets  # noqa: E402  (docs/ is on pytest's pythonpath)

_SNIPPET = re.compile(
    r"<!-- snippet: (?P<path>[^#\s]+)#(?P<name>[\w.-]+) -->\n```mlir\n(?P<body>.*?)```", re.S
)
TYPES = [
    "!simt.slice<",
    "!simt.disjoint_slice<",
    "!simt.atomic_slice<",
    "!simt.thread_index<",
    "!simt.ptr<",
    "!simt.shared<",
]


def _snippets() -> list[re.Match[str]]:
    return list(_SNIPPET.finditer(PAGE.read_text()))


def test_snippets_match_their_sources():
    assert _snippets(), "the page has no snippets"
    assert snippets.sync(PAGE, write=False) == []
    for m in _snippets():
        assert m.group("body") == snippets.extract(ROOT / m.group("path"), m.group("name"))


def test_snippets_come_from_tested_files():
    for m in _snippets():
        path = ROOT / m.group("path")
        tested = "RUN:" in path.read_text() or path.parent == ROOT / "examples" / "simt"
        assert tested, f"{m.group('path')} is not a tested file"


@pytest.mark.parametrize("op", sorted(op.name for op in SIMT.operations))
def test_every_op_is_documented_with_an_example(op):
    text = PAGE.read_text()
    assert f"`{op}`" in text, f"{op} has no entry"
    pattern = re.compile(rf"\b{re.escape(op)}\b(?!_)")
    assert any(pattern.search(m.group("body")) for m in _snippets()), f"no example uses {op}"


@pytest.mark.parametrize("prefix", TYPES)
def test_every_type_is_documented_with_an_example(prefix):
    assert f"`{prefix}" in PAGE.read_text()
    assert any(prefix in m.group("body") for m in _snippets())


def test_types_listed_match_the_dialect():
    names = {f"!{t.name}<" for t in SIMT.attributes if issubclass(t, TypeAttribute)}
    assert names == set(TYPES)


def test_a_drifted_snippet_is_caught(tmp_path, monkeypatch):
    source = tmp_path / "src.mlir"
    source.write_text("// doc:begin k\nsimt.sync_threads\n// doc:end\n")
    page = tmp_path / "page.md"
    page.write_text("<!-- snippet: src.mlir#k -->\n```mlir\nsimt.sync_threads {x}\n```\n")
    monkeypatch.setattr(snippets, "ROOT", tmp_path)
    assert snippets.sync(page, write=False) == ["page.md: snippet src.mlir#k is stale"]
