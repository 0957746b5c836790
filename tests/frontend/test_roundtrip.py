"""Frontend IR is ordinary ferrox IR: `ferrox-opt` parses what `kernel.ir()` prints and prints
it back unchanged, Python locations included, and reports a broken rule at the Python line."""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "simt_vecadd.py": "vecadd",
    "simt_saxpy.py": "saxpy",
    "simt_stencil.py": "neighbour",
    "simt_block_reduce.py": "block_reduce",
    "simt_warp_reduce.py": "warp_reduce",
    "simt_histogram.py": "histogram",
    "simt_sgemm.py": "sgemm_tiled",
}


def opt(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ferrox.driver.tools.opt", str(path), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("file", sorted(EXAMPLES))
def test_ferrox_opt_prints_the_frontend_ir_back_unchanged(file, tmp_path):
    kernel = runpy.run_path(str(ROOT / "examples" / "python" / file), run_name="x")[EXAMPLES[file]]
    ir = kernel.ir()
    path = tmp_path / "kernel.mlir"
    path.write_text(ir, encoding="utf-8")
    done = opt(path, "--print-debuginfo", "-p", "verify-disjoint")
    assert done.returncode == 0, done.stderr
    # ferrox-opt locates the kernel's parameters at their place in the text it read; every op
    # keeps the Python location it came with.
    ours = ir.strip().splitlines()
    theirs = done.stdout.strip().splitlines()
    assert len(ours) == len(theirs)
    for mine, back in zip(ours, theirs):
        if mine.lstrip().startswith(("simt.kernel", "simt.func")):
            back = re.sub(r' loc\("[^"]*":\d+:\d+\)(?=[,)])', "", back)
        assert back == mine
    assert f'loc("{ROOT / "examples" / "python" / file}":' in done.stdout


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
        f"{rules}:{line}:9: error: cannot read disjoint slice `%out`: it is written only "
        "through simt.get_mut, never read"
    )
