"""The results JSON as the kernel table, the docs section it replaces, the ptxas report and the
roofline's points, on small fixtures (no GPU, no timing)."""

from __future__ import annotations

import json

import pytest

from benchmarks import ptxas_report, report, roofline

RESULTS = {
    "date": "2026-12-03 16:00 UTC",
    "device": "NVIDIA H200 (132 SMs)",
    "chip": "sm_90",
    "versions": {"torch": "2.9.0", "triton": "3.5.0"},
    "rows": [
        {
            "name": "sum, SIMT block_reduce_gridstride (grid 1056)",
            "group": "sum",
            "track": "simt",
            "shape": "2^28 f32",
            "unit": "TB/s",
            "bytes": 4e9,
            "flops": 1e9,
            "ms": 1.0,
            "rate": 4.0,
            "correct": True,
            "peers": {"torch": {"ms": 0.8, "rate": 5.0}, "triton": {"ms": 0.5, "rate": 8.0}},
            "best_peer": "triton",
            "ratio": 0.5,
            "resources": {"registers": 31, "spill_stores": 0, "spill_loads": 0, "shared_bytes": 32},
        },
        {
            "name": "matmul f32, tile matmul_f32.mlir",
            "group": "matmul",
            "track": "tile",
            "shape": "4096^3 float32",
            "unit": "TFLOP/s",
            "bytes": 2e8,
            "flops": 2e11,
            "ms": 10.0,
            "rate": 20.0,
            "correct": False,
            "peers": {"cuBLAS": {"ms": 4.0, "rate": 50.0}},
            "best_peer": "cuBLAS",
            "ratio": 0.4,
        },
        {
            "name": "broken",
            "group": "softmax",
            "track": "tile",
            "shape": "1x1",
            "unit": "TB/s",
            "bytes": 8,
            "flops": 5,
            "error": "ArgumentError: kernel 'k' takes 2 arguments",
            "peers": {"torch": {"error": "RuntimeError: no"}},
        },
    ],
}


def test_the_table_has_a_line_per_row():
    assert report.table(RESULTS).splitlines() == [
        "| kernel | shape | ferrox | best peer | ratio | regs | spills (st/ld B) | smem B |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        "| sum, SIMT block_reduce_gridstride (grid 1056) | 2^28 f32 | 4.00 TB/s | triton 8.00 | "
        "0.50 | 31 | 0/0 | 32 |",
        "| matmul f32, tile matmul_f32.mlir | 4096^3 float32 | 20.00 TFLOP/s | cuBLAS 50.00 | "
        "0.40 (wrong result) | - | - | - |",
        "| broken | 1x1 | error: ArgumentError: kernel 'k' takes 2 arguments |  |  |  |  |  |",
    ]


def test_the_docs_section_is_replaced_and_the_rest_kept(tmp_path):
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n\nbefore\n")
    report.write_docs(RESULTS, page)
    first = page.read_text()
    assert first.startswith("# Performance\n\nbefore\n\n## Kernel table (`python -m benchmarks`)\n")
    assert (
        "Measured 2026-12-03 16:00 UTC on NVIDIA H200 (132 SMs) (torch 2.9.0, triton 3.5.0)."
        in first
    )
    page.write_text(first + "\n## After\n\nkept\n")
    changed = json.loads(json.dumps(RESULTS))
    changed["date"] = "2026-12-04 09:00 UTC"
    report.write_docs(changed, page)
    second = page.read_text()
    assert second.count(report.BEGIN) == 1 and second.count(report.END) == 1
    assert "Measured 2026-12-04 09:00 UTC" in second and "2026-12-03 16:00" not in second
    assert second.endswith("\n## After\n\nkept\n")
    assert second.startswith("# Performance\n\nbefore\n")


PTXAS_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'softmax' for 'sm_90'
ptxas info    : Function properties for softmax
    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]
ptxas info    : Function properties for helper
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
"""


def test_ptxas_figures_per_entry():
    assert ptxas_report.from_text(PTXAS_LOG) == {
        "softmax": {"registers": 40, "spill_stores": 8, "spill_loads": 12, "shared_bytes": 2048}
    }


@pytest.mark.ptxas
def test_ptxas_on_ferrox_ptx():
    import ferrox

    if not ptxas_report.available():
        pytest.skip("ptxas is not installed")
    artifact = ferrox.compile(
        __import__("pathlib").Path(report.__file__).parents[1]
        / "examples"
        / "simt"
        / "block_reduce_gridstride.mlir"
    )
    found = ptxas_report.resources(artifact.ptx)
    assert list(found) == ["block_reduce_gridstride"]
    figures = found["block_reduce_gridstride"]
    assert figures["shared_bytes"] == 32  # the 8 warps' slots
    assert figures["spill_stores"] == figures["spill_loads"] == 0
    assert 0 < figures["registers"] <= 64


def test_fill_resources_reads_them_from_the_saved_ptx(monkeypatch):
    results = {"chip": "sm_90", "rows": [{"kernel": "softmax", "ptx": "PTX"}, {"name": "x"}]}
    monkeypatch.setattr(ptxas_report, "available", lambda: True)
    monkeypatch.setattr(
        ptxas_report, "resources", lambda ptx, chip: ptxas_report.from_text(PTXAS_LOG)
    )
    report.fill_resources(results)
    assert results["rows"][0]["resources"]["registers"] == 40
    assert "resources" not in results["rows"][1]


def test_fill_resources_assembles_each_ptx_for_its_own_target(monkeypatch):
    """A wgmma kernel's PTX targets sm_90a, which ptxas refuses to assemble for sm_90 (the run
    of 2026-12-05 stopped there): the row's own `.target` wins over the run's chip."""
    asked: list[str] = []
    rows = [{"kernel": "softmax", "ptx": ".version 8.0\n.target sm_90a\n"},
            {"kernel": "softmax", "ptx": ".version 8.0\n.target sm_90\n"}]  # fmt: skip
    monkeypatch.setattr(ptxas_report, "available", lambda: True)

    def resources(ptx, chip):
        asked.append(chip)
        return ptxas_report.from_text(PTXAS_LOG)

    monkeypatch.setattr(ptxas_report, "resources", resources)
    report.fill_resources({"chip": "sm_90", "rows": rows})
    assert asked == ["sm_90a", "sm_90"]


def test_roofline_points():
    """One point per group and shape, its fastest correct row; a wrong or broken row is none."""
    assert [p["label"] for p in roofline.points(RESULTS)] == [
        "sum, SIMT block_reduce_gridstride (grid 1056) 2^28 f32"
    ]
    results = json.loads(json.dumps(RESULTS))
    slower = dict(results["rows"][0], name="sum, SIMT a slower variant", ms=2.0)
    results["rows"].insert(0, slower)
    results["rows"][2]["correct"] = True
    points = roofline.points(results)
    assert [p["label"] for p in points] == [
        "sum, SIMT block_reduce_gridstride (grid 1056) 2^28 f32",
        "matmul f32, tile matmul_f32.mlir 4096^3 float32",
    ]
    assert points[0]["intensity"] == 0.25
    assert points[0]["ferrox"] == pytest.approx(1.0)  # 1e9 FLOP in 1 ms
    assert points[0]["peer"] == pytest.approx(2.0)
    assert points[1]["intensity"] == 1000.0
    assert points[1]["ferrox"] == pytest.approx(20.0)


def test_roofline_png(tmp_path):
    pytest.importorskip("matplotlib", reason="the bench extra (matplotlib) is not installed")
    path = tmp_path / "roofline.png"
    roofline.plot(RESULTS, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
