"""Every documentation snippet matches the tested file it is taken from."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
import snippets  # noqa: E402  (docs/ is on pytest's pythonpath)


@pytest.mark.parametrize("page", snippets.pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_page_snippets_in_sync(page):
    assert snippets.sync(page, write=False) == []


def test_stale_snippet_is_reported(tmp_path, monkeypatch):
    src = tmp_path / "src.mlir"
    src.write_text("// doc:begin x\nfresh\n// doc:end\n")
    page = tmp_path / "page.md"
    page.write_text("<!-- snippet: src.mlir#x -->\n```mlir\nstale\n```\n")
    monkeypatch.setattr(snippets, "ROOT", tmp_path)
    assert snippets.sync(page, write=False) == ["page.md: snippet src.mlir#x is stale"]
    assert snippets.sync(page, write=True)
    assert snippets.sync(page, write=False) == []
