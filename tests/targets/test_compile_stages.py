"""The compiler's path (`COMPILE_STAGES`) leaves out `canonicalize`, `cse` and the safety checks
that later stages repeat; this holds it to the full `lower-to-llvm` pipeline (`STAGES`): the same
PTX, byte for byte, for every example, and the same refusal of an unsafe kernel."""

from __future__ import annotations

from pathlib import Path

import pytest
from compiled import compiled
from parsed_once import parse_once
from xdsl.dialects.builtin import StringAttr

from ferrox.diagnostics import DiagnosticError
from ferrox.lowering.pipeline import COMPILE_STAGES, STAGES, lower_to_llvm
from ferrox.lowering.tile_to_simt.gemm_wgmma import target_chip
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.compile import compile_module
from ferrox.targets.ptx import CHIP_ATTR, device_chip, module_to_ptx

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("simt/*.mlir")) + sorted(
    (ROOT / "examples").glob("tile/*.mlir")
)


def parse(path: Path):
    return parse_once(make_context(), path.read_text(), str(path))


def test_the_compile_path_drops_only_stages_that_change_nothing():
    assert [s.name for s in STAGES] == [
        "verify-disjoint",
        "extract-device-code",
        "convert-simt-to-nvvm",
        "canonicalize",
        "cse",
        "convert-to-llvm",
    ]
    assert [s.name for s in COMPILE_STAGES] == [
        "verify-disjoint",
        "extract-device-code",
        "convert-simt-to-nvvm",
        "convert-to-llvm",
    ]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_example_gets_the_full_pipelines_ptx_byte_for_byte(path: Path):
    full = parse(path)
    # the target as `compile` settles it: sm_90a for a module that asks for it or whose tile
    # GEMM takes wgmma, stamped on the module for the tile lowering
    chip = target_chip(full, device_chip(full, "sm_90"))
    full.attributes[CHIP_ATTR] = StringAttr(chip)
    lower_to_llvm(full, stages=STAGES)
    reference = module_to_ptx(full, chip, "+ptx80", 3)
    # the compile path's artifact, shared with the other tests of this worker that read it (its
    # features resolve to +ptx80, the reference's: no example sets its own)
    artifact = compiled(path, "sm_90")
    assert artifact.features == "+ptx80"
    assert artifact.ptx == reference


UNSAFE = """
simt.kernel @param_witness(%w: !simt.thread_index<1d>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}
"""
REFUSAL = (
    "error: witness not produced by a trusted index op: !simt.thread_index<1d> comes from a "
    "kernel parameter"
)


@pytest.mark.parametrize("beside", ["", "tile/vector_add.mlir"])
def test_the_compile_path_still_refuses_an_unsafe_simt_kernel(beside: str):
    """Alone, or beside a tile kernel (whose lowering no longer re-checks the whole module)."""
    text = UNSAFE
    if beside:
        text = (ROOT / "examples" / beside).read_text() + text
    module = parse_module(make_context(), text, "unsafe.mlir")
    with pytest.raises(DiagnosticError) as caught:
        compile_module(module, cubin=False)
    assert [d.format().split(": ", 1)[1] for d in caught.value.diagnostics] == [REFUSAL]
