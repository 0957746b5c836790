"""docs/lowering.md is what docs/lowering.py generates from the tested example, so it cannot drift
from the compiler."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _generator():
    import lowering  # docs/lowering.py: docs/ is on pytest's pythonpath

    return lowering


def test_lowering_page_is_regenerated_unchanged():
    doc = _generator()
    assert doc.render() == (ROOT / "docs" / "lowering.md").read_text(), (
        "run: python docs/lowering.py"
    )


def test_page_shows_every_stage_of_the_pipeline():
    doc = _generator()
    out = doc.stage_outputs()
    from ferrox.lowering.pipeline import STAGES

    assert list(out) == ["source", *(stage.name for stage in STAGES), "llvm-ir", "ptx"]
    assert "simt.kernel @vecadd" in out["source"]
    assert (
        "func.func @vecadd" in out["convert-simt-to-nvvm"]
        and "nvvm.read.ptx.sreg.tid.x" in out["convert-simt-to-nvvm"]
    )
    assert "llvm.func @vecadd" in out["convert-to-llvm"]
    assert 'define ptx_kernel void @"vecadd"' in out["llvm-ir"]
    assert ".entry vecadd(" in out["ptx"] and "ld.global.nc" in out["ptx"]


def test_check_mode_reports_a_stale_page(tmp_path, monkeypatch, capsys):
    doc = _generator()
    page = tmp_path / "lowering.md"
    page.write_text("stale\n")
    monkeypatch.setattr(doc, "PAGE", page)
    assert doc.main(["--check"]) == 1
    assert doc.main([]) == 0
    assert doc.main(["--check"]) == 0
    assert "up to date" in capsys.readouterr().out
