"""`compile_module` builds each kernel's artifact from the verified IR: parameter kinds, the
contract with its `requires`, shared memory, coverage writes, the tile launch map; the artifact
survives its JSON unchanged and matches the PTX entry it describes."""

from __future__ import annotations

from pathlib import Path

import pytest
from compiled import compiled
from parsed_once import parse_once

from ferrox.artifact import (
    AbiSlot,
    Contract,
    IndexSpace,
    ModuleArtifact,
    Param,
    ParamKind,
    Relation,
    SizeExpr,
    TileLaunch,
    Write,
)
from ferrox.diagnostics import DiagnosticError
from ferrox.registry import make_context
from ferrox.targets.compile import compile_module
from ferrox.targets.toolchain import find_ptxas

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("simt/*.mlir")) + sorted(
    (ROOT / "examples").glob("tile/*.mlir")
)

S = ParamKind.SHARED_SLICE
D = ParamKind.DISJOINT_SLICE
SCALAR = ParamKind.SCALAR
ONE_D = IndexSpace("1d")


def parse(text: str, name: str = "test.mlir"):
    return parse_once(make_context(), text, name)


def compile_example(path: str, **options) -> ModuleArtifact:
    file = ROOT / "examples" / path
    options.setdefault("cubin", False)
    return compile_module(parse(file.read_text(), str(file)), **options)


def arg(i: int) -> SizeExpr:
    return SizeExpr("arg", i)


def length(i: int) -> SizeExpr:
    return SizeExpr("len", i)


def times(a: SizeExpr, b: SizeExpr) -> SizeExpr:
    return SizeExpr("*", 0, (a, b))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_example_round_trips_through_json(path):
    # the test run's one sm_90 compile of the example (tests/support/compiled.py), which
    # tests/targets/test_compile_stages.py holds to the full pipeline's PTX
    artifact = compiled(path, "sm_90")
    source = str(parse(path.read_text(), str(path)))
    assert ModuleArtifact.from_json(artifact.to_json()) == artifact
    assert artifact.source == source and parse(artifact.source) is not None
    assert artifact.kernels, "every example has a kernel"
    for name, kernel in artifact.kernels.items():
        assert kernel.name == name and f".entry {name}(" in artifact.ptx
        assert (kernel.tile is not None) == (path.parent.name == "tile")
    assert (artifact.cubin is not None) == (find_ptxas() is not None)


@pytest.mark.parametrize("path", ["simt/vecadd.mlir", "tile/softmax.mlir"])
def test_compiling_leaves_the_callers_module_unchanged(path):
    """The lowering works on a copy (a SIMT and a tile kernel; both lower in place)."""
    file = ROOT / "examples" / path
    module = parse(file.read_text(), str(file))
    before = str(module)
    compile_module(module, cubin=False)
    assert str(module) == before


def test_simt_vecadd():
    artifact = compile_example("simt/vecadd.mlir", chip="sm_80")
    assert (artifact.chip, artifact.features, artifact.opt) == ("sm_80", "+ptx80", 3)
    assert artifact.cubin is None
    vecadd = artifact["vecadd"]
    assert vecadd.params == (
        Param("a", S, "f32"),
        Param("b", S, "f32"),
        Param("out", D, "f32", space=ONE_D),
    )
    assert vecadd.contract == Contract(
        domain=1,
        block=(256, 1, 1),
        requires=(Relation(length(0), ">=", length(2)), Relation(length(1), ">=", length(2))),
    )
    assert vecadd.writes == (Write(2, ONE_D),)
    assert vecadd.tile is None and vecadd.simt_params == ()
    assert vecadd.abi == (AbiSlot.U64, AbiSlot.I64) * 3


def test_atomic_pointer_and_scalar_parameters():
    histogram = compile_example("simt/histogram.mlir")["histogram"]
    assert [(p.name, p.kind, p.element) for p in histogram.params] == [
        ("in", S, "i32"),
        ("bins", ParamKind.ATOMIC_SLICE, "i32"),
    ]
    assert histogram.writes == (), "atomic outputs are not judged by coverage"
    unchecked = compile_example("simt/vecadd_unchecked.mlir")["vecadd_unchecked"]
    assert [(p.name, p.kind, p.element) for p in unchecked.params] == [
        ("a", ParamKind.POINTER, "f32"),
        ("b", ParamKind.POINTER, "f32"),
        ("out", ParamKind.POINTER, "f32"),
        ("n", SCALAR, "index"),
    ]
    assert unchecked.contract is None and unchecked.writes == ()
    assert unchecked.abi == (AbiSlot.U64, AbiSlot.U64, AbiSlot.U64, AbiSlot.I64)


def test_two_d_runtime_write_names_its_width_and_shared_memory_is_counted():
    transpose = compile_example("simt/transpose.mlir")["transpose"]
    space = IndexSpace("2d_runtime")
    assert transpose.params[1] == Param("out", D, "f32", space=space)
    assert transpose.writes == (Write(1, space, width_param=2),)
    assert transpose.contract == Contract(
        domain=2,
        block=(32, 32, 1),
        requires=(
            Relation(length(0), ">=", times(arg(2), arg(3))),
            Relation(length(1), "==", times(arg(2), arg(3))),
        ),
        static_shared_bytes=32 * 33 * 4,
    )
    assert [str(r) for r in transpose.contract.requires] == [
        "len(arg0) >= arg2 * arg3",
        "len(arg1) == arg2 * arg3",
    ]


def test_warp_and_chunked_tile_writes():
    warp = compile_example("simt/warp_reduce.mlir")["warp_reduce"]
    assert warp.writes == (Write(1, IndexSpace("warp")),)
    vec4 = compile_example("simt/vecadd_vec4.mlir")["vecadd_vec4"]
    tile_space = IndexSpace("tile", tile=(1024,), chunk=4, dims_param=3)
    assert vec4.params[2] == Param("out", D, "f32", space=tile_space)
    assert vec4.writes == (Write(2, tile_space),)


def test_static_two_d_space_and_the_contract_fields():
    artifact = compile_module(
        parse(
            """
simt.kernel @rows(%out: !simt.disjoint_slice<i64, 2d<64>>, %k: i32)
    contract<domain = 2, block = [16, 4], shared_bytes = 128, min_cc = 80> {
  %w = simt.index_2d : !simt.thread_index<2d<64>>
  %c = arith.extsi %k : i32 to i64
  simt.get_mut %out[%w] : !simt.disjoint_slice<i64, 2d<64>>, !simt.thread_index<2d<64>> {
  ^bb0(%old: i64):
    simt.yield %c : i64
  }
  simt.return
}
"""
        ),
        cubin=False,
    )
    rows = artifact["rows"]
    space = IndexSpace("2d", stride=64)
    assert rows.params == (Param("out", D, "i64", space=space), Param("k", SCALAR, "i32"))
    assert rows.contract == Contract(2, (16, 4, 1), shared_bytes=128, min_cc=80)
    assert rows.writes == (Write(0, space),)
    assert rows.abi == (AbiSlot.U64, AbiSlot.I64, AbiSlot.I32)


def test_tile_kernel_parameters_map_and_lowered_entry():
    artifact = compile_example("tile/saxpy.mlir")
    saxpy = artifact["saxpy"]
    assert saxpy.params == (
        Param("out", ParamKind.PARTITION, "f32", shape=(None,), tile=(1024,)),
        Param("alpha", SCALAR, "f32"),
        Param("x", ParamKind.TILE_TENSOR, "f32", shape=(None,)),
        Param("y", ParamKind.TILE_TENSOR, "f32", shape=(None,)),
    )
    out_space = IndexSpace("tile", tile=(1024,), chunk=4, dims_param=1)
    assert saxpy.simt_params == (
        Param("out", D, "f32", space=out_space),
        Param("out_d0", SCALAR, "index"),
        Param("alpha", SCALAR, "f32"),
        Param("x", S, "f32"),
        Param("x_d0", SCALAR, "index"),
        Param("y", S, "f32"),
        Param("y_d0", SCALAR, "index"),
    )
    assert saxpy.entry_params == saxpy.simt_params
    assert saxpy.tile == TileLaunch(
        sources=((0, None), (0, 0), (1, None), (2, None), (2, 0), (3, None), (3, 0)),
        grid_partition=0,
        grid_tile=(1024,),
        threads=256,
    )
    assert saxpy.contract is not None and saxpy.contract.block == (256, 1, 1)
    assert [str(r) for r in saxpy.contract.requires] == [
        "len(arg0) == arg1",
        "len(arg3) == arg4",
        "len(arg5) == arg6",
    ]
    assert saxpy.writes == (Write(0, out_space),), "in terms of the SIMT parameters"


def test_tile_shapes_keep_static_dimensions_and_lowering_shared_memory():
    artifact = compile_module(
        parse(
            """
tile.kernel @scale(%out: !tile.partition<f32, [4, 256]>, %x: !tile.tensor<f32, [?, 256]>) {
  %a = tile.load_like %x, %out : !tile.tensor<f32, [?, 256]>, !tile.partition<f32, [4, 256]>
      -> !tile.tile<f32, [4, 256]>
  tile.store %a, %out : !tile.tile<f32, [4, 256]>, !tile.partition<f32, [4, 256]>
  tile.return
}
"""
        ),
        cubin=False,
    )
    scale = artifact["scale"]
    assert scale.params[1] == Param("x", ParamKind.TILE_TENSOR, "f32", shape=(None, 256))
    assert scale.params[0].shape == (None, None) and scale.params[0].tile == (4, 256)
    assert scale.tile is not None and scale.tile.grid_tile == (4, 256)
    matmul = compile_example("tile/matmul_f32.mlir")["matmul_f32"]
    # the lowering's pipeline stages: past 48 KiB they are dynamic shared memory, in the contract
    assert matmul.contract is not None
    assert matmul.contract.static_shared_bytes + matmul.contract.shared_bytes > 48 * 1024


@pytest.mark.skipif(find_ptxas() is None, reason="needs NVIDIA's ptxas")
def test_with_ptxas_the_cubin_and_its_shared_memory():
    with_cubin = compile_example("simt/sgemm_tiled.mlir", cubin=True)
    without = compile_example("simt/sgemm_tiled.mlir")
    assert with_cubin.cubin is not None and with_cubin.cubin[:4] == b"\x7fELF"
    assert with_cubin.ptx == without.ptx
    shared = with_cubin["sgemm_tiled"].contract.static_shared_bytes
    assert shared == without["sgemm_tiled"].contract.static_shared_bytes == 2 * 16 * 16 * 4


def test_unsafe_or_unreachable_targets_are_refused_with_diagnostics():
    unsafe = parse(
        """
simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) {
  %s = builtin.unrealized_conversion_cast %out : !simt.disjoint_slice<f32, 1d> to !simt.slice<f32>
  simt.return
}
"""
    )
    with pytest.raises(DiagnosticError) as e:
        compile_module(unsafe, cubin=False)
    assert str(e.value) == (
        "test.mlir:3:3: error: disjoint slice `%out` cannot be used by "
        "'builtin.unrealized_conversion_cast': it is written only through simt.get_mut"
    )
    needs_80 = parse(
        """
simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>)
    contract<domain = 1, block = [32], min_cc = 80> {
  simt.return
}
"""
    )
    with pytest.raises(DiagnosticError) as e:
        compile_module(needs_80, chip="sm_75", cubin=False)
    assert str(e.value) == (
        "test.mlir:2:1: error: kernel @k needs compute capability 8.0 (its contract's "
        "min_cc = 80), but the target is sm_75"
    )
