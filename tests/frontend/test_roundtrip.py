"""Frontend IR is ordinary ferrox IR: `ferrox-opt` parses what `kernel.ir()` prints and prints
it back unchanged, Python locations included, and reports a broken rule at the Python line."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import in_process  # tests/support
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "simt_vecadd.py": "vecadd",
    "simt_saxpy.py": "saxpy",
    "simt_stencil.py": "neighbour",
    "simt_block_reduce.py": "block_reduce",
    "simt_block_reduce_gridstride.py": "block_reduce_gridstride",
    "simt_warp_reduce.py": "warp_reduce",
    "simt_histogram.py": "histogram",
    "simt_sgemm.py": "sgemm_tiled",
    "simt_sgemm_micro.py": "sgemm_micro",
}


def opt(path: Path, *args: str) -> in_process.Ran:
    """`ferrox-opt PATH ARGS...`, its `main` in this process (tests/support/in_process.py): a new
    Python per call spent most of each test importing ferrox again."""
    return in_process.ferrox_opt(path, *args)


@pytest.mark.parametrize("file", sorted(EXAMPLES))
def test_ferrox_opt_prints_the_frontend_ir_back_unchanged(file, tmp_path):
    kernel = runpy.run_path(str(ROOT / "examples" / "python" / file), run_name="x")[EXAMPLES[file]]
    ir = kernel.ir()
    path = tmp_path / "kernel.mlir"
    path.write_text(ir, encoding="utf-8")
    done = opt(path, "--print-debuginfo", "-p", "verify-disjoint")
    assert done.returncode == 0, done.stderr
    # every op and every parameter keeps the Python location it came with
    assert done.stdout.strip() == ir.strip()
    assert f'loc("{ROOT / "examples" / "python" / file}":' in done.stdout


def test_parameters_carry_their_python_line_and_column(tmp_path):
    source = ROOT / "examples" / "python" / "simt_sgemm.py"
    kernel = runpy.run_path(str(source), run_name="x")["sgemm_tiled"]
    lines = source.read_text(encoding="utf-8").splitlines()
    ir = kernel.ir()
    header = next(line for line in ir.splitlines() if "simt.kernel @sgemm_tiled" in line)
    found = re.findall(r'%(\w+): [^,()]*(?:<[^>]*>)? loc\("([^"]*)":(\d+):(\d+)\)', header)
    assert [name for name, *_ in found] == ["a", "b", "c", "m", "n", "k"]
    for name, file, line, col in found:
        assert file == str(source)
        # line:col is the parameter itself (1-based column, as Python's is 0-based + 1)
        assert lines[int(line) - 1][int(col) - 1 :].startswith(f"{name}: "), name
    # a device function's parameters too
    twin = runpy.run_path(str(ROOT / "tests" / "frontend" / "test_surface.py"), run_name="x")
    device_ir = twin["device_call"].ir()
    assert re.search(r'simt.func @axpy\(%a: f32 loc\("[^"]*test_surface.py":\d+:10\)', device_ir)


def test_ferrox_opt_reads_its_own_located_output_again(tmp_path):
    kernel = runpy.run_path(str(ROOT / "examples" / "python" / "simt_vecadd.py"), run_name="x")
    first = tmp_path / "first.mlir"
    first.write_text(kernel["vecadd"].ir(), encoding="utf-8")
    once = opt(first, "--print-debuginfo")
    assert once.returncode == 0, once.stderr
    second = tmp_path / "second.mlir"
    second.write_text(once.stdout, encoding="utf-8")
    twice = opt(second, "--print-debuginfo")
    assert twice.returncode == 0, twice.stderr
    assert twice.stdout == once.stdout


def test_ferrox_opt_reports_a_broken_rule_at_the_python_line(tmp_path):
    rules = Path(__file__).with_name("simt_rules.py")
    kernel = runpy.run_path(str(rules), run_name="rules")["reads_disjoint"]
    path = tmp_path / "kernel.mlir"
    path.write_text(kernel.ir(), encoding="utf-8")
    done = opt(path, "-p", "verify-disjoint")
    assert done.returncode == 1
    line = next(
        n
        for n, text in enumerate(rules.read_text(encoding="utf-8").splitlines(), 1)
        if "# <- read_disjoint" in text
    )
    assert done.stderr.splitlines()[0] == (
        f"{rules}:{line}:9: error[E1004]: cannot read disjoint slice `%out`: it is written only "
        "through simt.get_mut, never read"
    )
