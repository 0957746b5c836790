"""docs/dialects/tile.md shows only tested IR, and documents every op and type of the dialect."""

from __future__ import annotations

import re
from pathlib import Path

from ferrox.dialects.tile import ATTRIBUTES, OPS

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "dialects" / "tile.md"
TESTED = [ROOT / "tests/filecheck/dialects/tile" / name for name in ("ops.mlir", "kernels.mlir")]

import snippets  # noqa: E402  (docs/ is on pytest's pythonpath)

_DIRECTIVE = re.compile(r"<!-- snippet: (?P<path>[^#\s]+)#(?P<name>[\w.-]+) -->\n```mlir\n")


def test_snippets_match_their_tested_files_verbatim():
    assert snippets.sync(PAGE, write=False) == []


def test_every_mlir_block_is_a_snippet_of_a_tested_file():
    text = PAGE.read_text()
    blocks = text.count("```mlir\n")
    directives = list(_DIRECTIVE.finditer(text))
    assert blocks == len(directives), "an ```mlir block on the page is not cut from a tested file"
    for d in directives:
        source = ROOT / d.group("path")
        assert "// RUN:" in source.read_text(), f"{source} is not a tested (RUN) file"
        body = snippets.extract(source, d.group("name"))
        assert body.strip() and body in source.read_text()


def test_every_marked_region_of_the_tested_files_is_shown():
    shown = {(m.group("path"), m.group("name")) for m in _DIRECTIVE.finditer(PAGE.read_text())}
    for source in TESTED:
        rel = str(source.relative_to(ROOT))
        for name in re.findall(r"doc:begin ([\w.-]+)", source.read_text()):
            assert (rel, name) in shown, f"{rel}#{name} is marked for the docs but not shown"


def test_every_op_and_type_is_documented():
    text = PAGE.read_text()
    for op in OPS:
        assert f"`{op.name}" in text, f"{op.name} is not documented"
        assert op.__name__ in text, f"class {op.__name__} is not named"
    for attr in ATTRIBUTES:
        if attr.name in ("tile.tile", "tile.partition", "tile.tensor"):
            assert f"`!{attr.name}<" in text, f"!{attr.name} is not documented"
            assert attr.__name__ in text


def test_a_changed_snippet_is_caught(tmp_path, monkeypatch):
    (tmp_path / "k.mlir").write_text("// RUN: true\n// doc:begin k\ntile.return\n// doc:end\n")
    page = tmp_path / "page.md"
    page.write_text("<!-- snippet: k.mlir#k -->\n```mlir\ntile.yield\n```\n")
    monkeypatch.setattr(snippets, "ROOT", tmp_path)
    assert snippets.sync(page, write=False) == ["page.md: snippet k.mlir#k is stale"]
