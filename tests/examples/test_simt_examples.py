"""Every SIMT example parses, verifies and passes verify-disjoint; broken copies fail with the
diagnostic of the rule they break."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import in_process
import pytest
from parsed_once import parse_once

from ferrox.dialects.simt import KernelOp
from ferrox.passes.verify_disjoint import collect
from ferrox.registry import make_context
from ferrox.verify import verify_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "simt"
NAMES = [
    "vecadd",
    "vecadd_unchecked",
    "vecadd_vec4",
    "saxpy",
    "neighbour",
    "transpose",
    "sgemm_naive",
    "sgemm_tiled",
    "sgemm_micro",
    "gemm_wgmma",
    "gemm_tma",
    "tma_copy",
    "tma_copy_f32",
    "warp_reduce",
    "block_reduce",
    "block_reduce_gridstride",
    "histogram",
    "gcd",
    "alu",
    "piecewise",
]
FERROX_OPT = (
    shutil.which("ferrox-opt", path=str(Path(sys.executable).parent))
    or shutil.which("ferrox-opt")
    or "ferrox-opt"
)


def _kernels(text: str, name: str = "<example>"):
    module = parse_once(make_context(), text, name)
    verify_module(module)
    return module, [op for op in module.walk() if isinstance(op, KernelOp)]


def test_the_set_is_complete():
    assert sorted(p.stem for p in EXAMPLES.glob("*.mlir")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_example_verifies(name):
    path = EXAMPLES / f"{name}.mlir"
    module, kernels = _kernels(path.read_text(), str(path))
    assert [k.sym_name.data for k in kernels] == [name]
    assert collect(module) == []
    proc = in_process.ferrox_opt(path, "-p", "verify-disjoint")  # main(argv), in this process
    assert proc.returncode == 0, proc.stderr
    assert f"simt.kernel @{name}(" in proc.stdout


def test_the_ferrox_opt_script_verifies_an_example():
    """The console script itself, once (the tests above run its main in this process)."""
    path = EXAMPLES / "vecadd.mlir"
    proc = subprocess.run(
        [FERROX_OPT, str(path), "-p", "verify-disjoint"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "simt.kernel @vecadd(" in proc.stdout


@pytest.mark.parametrize(
    ("name", "contracted", "block"),
    [
        ("vecadd", True, (256, 1, 1)),
        ("vecadd_unchecked", False, None),
        ("transpose", True, (32, 32, 1)),
        ("sgemm_tiled", True, (16, 16, 1)),
        ("warp_reduce", True, (256, 1, 1)),
    ],
)
def test_contracts(name, contracted, block):
    _, (kernel,) = _kernels((EXAMPLES / f"{name}.mlir").read_text())
    assert (kernel.contract is not None) == contracted
    if contracted:
        assert kernel.contract.block_xyz == block


def test_sgemm_requires_hold_on_consistent_sizes():
    _, (kernel,) = _kernels((EXAMPLES / "sgemm_naive.mlir").read_text())
    m, n, k = 5, 7, 3
    lengths = {0: m * k, 1: k * n, 2: m * n}
    scalars = {3: m, 4: n, 5: k}
    assert all(r.holds(scalars.__getitem__, lengths.__getitem__) for r in kernel.contract.relations)
    lengths[2] = m * n + 1
    assert not all(
        r.holds(scalars.__getitem__, lengths.__getitem__) for r in kernel.contract.relations
    )


BROKEN = [
    # (example, text to replace, replacement, expected diagnostic)
    (
        "vecadd",
        "    simt.return\n",
        "    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {\n"
        "    ^bb0(%o: f32):\n      simt.yield %o : f32\n    }\n    simt.return\n",
        "error[E0382]: use of moved value: witness",
    ),
    (
        "vecadd",
        "%x = simt.load %a[%i] : !simt.slice<f32>",
        "%x = simt.load %out[%i] : !simt.disjoint_slice<f32, 1d>",
        "error[E1004]: cannot read disjoint slice `%out`",
    ),
    (
        "transpose",
        "domain = 2, block = [32, 32]",
        "domain = 2, block = [32, 64]",
        "error[E1005]: launch contract block [32, 64] has 2048 threads, more than the 1024 a "
        "block can hold",
    ),
    (
        "sgemm_tiled",
        "%acc = scf.for %t = %c0 to %tiles",
        "%acc = scf.for %t = %c0 to %tx",
        "error[E1007]: barrier under divergent control flow",
    ),
    (
        "vecadd_unchecked",
        ") unsafe {",
        ") {",
        "error[E0133]: dereference of raw pointer is unsafe and requires an unsafe region or "
        "kernel",
    ),
]


@pytest.mark.parametrize(("name", "old", "new", "message"), BROKEN, ids=lambda v: str(v)[:24])
def test_broken_copy_fails(tmp_path, name, old, new, message):
    text = (EXAMPLES / f"{name}.mlir").read_text()
    assert old in text
    broken = tmp_path / f"{name}.mlir"
    broken.write_text(text.replace(old, new, 1))
    proc = in_process.ferrox_opt(broken, "-p", "verify-disjoint")
    assert proc.returncode == 1
    assert message in proc.stderr
    assert f"{broken}:" in proc.stderr  # located
    assert "Traceback" not in proc.stderr
