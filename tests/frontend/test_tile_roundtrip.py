"""Tile frontend IR is ordinary ferrox IR: `ferrox-opt` parses what `kernel.ir()` prints and
prints it back unchanged, Python locations included, lowers it with convert-tile-to-simt, and
reports a broken tile rule at the Python line."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import in_process  # tests/support
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "tile_vector_add.py": "vector_add",
    "tile_softmax.py": "softmax",
    "tile_layernorm.py": "layernorm",
    "tile_matmul_f32.py": "matmul",
    "tile_matmul_bf16.py": "matmul_bf16",
}


def opt(path: Path, *args: str) -> in_process.Ran:
    """`ferrox-opt PATH ARGS...`, its `main` in this process (tests/support/in_process.py): a new
    Python per call spent most of each test importing ferrox again."""
    return in_process.ferrox_opt(path, *args)


@pytest.mark.parametrize("file", sorted(EXAMPLES))
def test_ferrox_opt_prints_the_tile_frontend_ir_back_unchanged(file, tmp_path):
    kernel = runpy.run_path(str(ROOT / "examples" / "python" / file), run_name="x")[EXAMPLES[file]]
    ir = kernel.ir()
    path = tmp_path / "kernel.mlir"
    path.write_text(ir, encoding="utf-8")
    done = opt(path, "--print-debuginfo")
    assert done.returncode == 0, done.stderr
    # every op and every parameter keeps the Python location it came with
    assert done.stdout.strip() == ir.strip()
    assert re.search(r"tile.kernel @\w+\(%\w+: [^)]* loc\(", ir)
    assert f'loc("{ROOT / "examples" / "python" / file}":' in done.stdout


def test_ferrox_opt_lowers_the_tile_frontend_ir(tmp_path):
    kernel = runpy.run_path(str(ROOT / "examples" / "python" / "tile_softmax.py"), run_name="x")
    path = tmp_path / "kernel.mlir"
    path.write_text(kernel["softmax"].ir(COLS=512), encoding="utf-8")
    done = opt(path, "-p", "convert-tile-to-simt")
    assert done.returncode == 0, done.stderr
    assert "simt.kernel @softmax" in done.stdout
    assert "tile.grid = {partition = 0 : i64, tile = array<i64: 4, 512>}" in done.stdout


def test_ferrox_opt_reports_a_broken_tile_rule_at_the_python_line(tmp_path):
    rules = Path(__file__).with_name("test_tile_rules.py")
    kernel = runpy.run_path(str(rules), run_name="rules")["mma_too_big"]
    path = tmp_path / "kernel.mlir"
    path.write_text(kernel.ir(), encoding="utf-8")
    done = opt(path, "-p", "convert-tile-to-simt")
    assert done.returncode == 1
    line = next(
        n
        for n, text in enumerate(rules.read_text(encoding="utf-8").splitlines(), 1)
        if "# <- big_mma" in text
    )
    assert done.stderr.splitlines()[0] == (
        f"{rules}:{line}:16: error[E1204]: cannot lower 'tile.mma' to SIMT: the lowering "
        "needs 263680 bytes of shared memory, more than the 232448 a block can opt in to; use "
        "smaller tiles or fewer threads"
    )
