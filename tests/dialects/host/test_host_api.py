"""The host dialect's Python API, which the interpreter and the GPU runner read programs through."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    Float32Type,
    IndexType,
    IntegerType,
    ModuleOp,
    f32,
    i32,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.host import (
    CheckOp,
    LaunchOp,
    PartitionType,
    RandomOp,
    TensorType,
    TileLaunchOp,
    default_tolerance,
    grid_of,
)
from ferrox.dialects.host.kernels import Role, role_of
from ferrox.parser import parse_module
from ferrox.registry import make_context

PROGRAM = """
simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>,
                    %out: !simt.disjoint_slice<f32, 1d>, %n: index)
    contract<domain = 1, block = [256]> {
  simt.return
}
tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  tile.return
}
func.func @main() {
  %n = host.param "n" = 1000 : index
  %a = host.random normal(1.0, 0.5) seed 3 (%n) : !host.tensor<f32, [?]>
  %c = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  %g = arith.constant 4 : index
  %p = host.prepare @vecadd grid(%g) block(%g) args(%a, %a, %c, %n
      : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index)
  %c2 = host.launch @vecadd with %p on %s
      ins(%a, %a, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index)
      outs(%c : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  %z = host.poison : !host.tensor<f32, [1000]>
  %pz = host.partition %z : !host.tensor<f32, [1000]> -> !host.partition<f32, [1000], [128]>
  %pz2 = host.tile_launch @add on %s ins(%a : !host.tensor<f32, [?]>)
      outs(%pz : !host.partition<f32, [1000], [128]>) -> !host.partition<f32, [1000], [128]>
  host.sync_on %s
  host.check %c2, "2 * a" (a = %a : !host.tensor<f32, [?]>) atol 1.0e-03 : !host.tensor<f32, [?]>
  func.return
}
"""


@pytest.fixture(scope="module")
def module() -> ModuleOp:
    m = parse_module(make_context(), PROGRAM)
    m.verify()
    return m


def ops_of(module: ModuleOp, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


def test_partition_grid_is_ceil_division():
    assert PartitionType(f32, [1000], [128]).grid() == (8,)
    assert PartitionType(f32, [64, 1000], [1, 256]).grid() == (64, 4)
    assert PartitionType(f32, [DYNAMIC_INDEX, 512], [16, 128]).grid() == (None, 4)
    assert PartitionType(f32, [1000], [128]).tensor_type() == TensorType(f32, [1000])


def test_tile_shapes_are_powers_of_two():
    with pytest.raises(VerifyException, match="static powers of two, got 96"):
        PartitionType(f32, [1024], [96])
    with pytest.raises(VerifyException, match="must have the rank"):
        PartitionType(f32, [1024, 4], [128])


def test_tensor_type_counts_dynamic_dims():
    t = TensorType(i32, [DYNAMIC_INDEX, 4, DYNAMIC_INDEX])
    assert t.get_shape() == (DYNAMIC_INDEX, 4, DYNAMIC_INDEX)
    assert (t.rank, t.dynamic_count()) == (3, 2)
    with pytest.raises(VerifyException, match="integer or float"):
        TensorType(IndexType(), [4])


def test_default_tolerances_follow_torch_testing():
    assert default_tolerance(Float32Type()) == (1.3e-6, 1e-5)
    assert default_tolerance(BFloat16Type()) == (1.6e-2, 1e-5)
    assert default_tolerance(IntegerType(32)) == (0.0, 0.0)


def test_check_reads_formula_bindings_and_tolerance(module):
    (check,) = ops_of(module, CheckOp)
    assert check.formula is not None and check.formula.data == "2 * a"
    bound = check.bindings()
    assert list(bound) == ["a"] and bound["a"].name_hint == "a"
    assert check.tolerance() == (1.3e-6, 1e-3)  # rtol by element type, atol given


def test_random_properties(module):
    (rand,) = ops_of(module, RandomOp)
    assert rand.distribution.data.value == "normal"
    assert (rand.low.value.data, rand.high.value.data, rand.seed.value.data) == (1.0, 0.5, 3)
    assert len(rand.dynamic_sizes) == 1


def test_launch_operands_bind_kernel_parameters_by_role(module):
    (launch,) = ops_of(module, LaunchOp)
    assert launch.kernel.root_reference.data == "vecadd"
    assert [v.name_hint for v in launch.ins] == ["a", "a", "n"]
    assert [v.name_hint for v in launch.outs] == ["c"]
    assert [r.type for r in launch.new_outs] == [launch.outs[0].type]
    (tile,) = ops_of(module, TileLaunchOp)
    assert grid_of(tile) == (8,)


def test_kernel_parameter_roles(module):
    from ferrox.dialects.host.kernels import kernel_params, lookup_kernel

    (launch,) = ops_of(module, LaunchOp)
    params = kernel_params(lookup_kernel(launch, launch.kernel))
    assert [role_of(p) for p in params] == [Role.INPUT, Role.INPUT, Role.OUTPUT, Role.SCALAR]


def test_verify_ownership_reports_every_violation_at_once():
    from ferrox.diagnostics import DiagnosticError
    from ferrox.passes.verify_ownership import VerifyOwnershipPass

    ctx = make_context()
    m = parse_module(
        ctx,
        """
func.func @f(%t: !host.tensor<f32, [64]>, %u: !host.tensor<f32, [64]>) {
  %p = host.partition %t : !host.tensor<f32, [64]> -> !host.partition<f32, [64], [64]>
  host.print %t : !host.tensor<f32, [64]>
  %q = host.partition %u : !host.tensor<f32, [64]> -> !host.partition<f32, [64], [64]>
  %q2 = host.partition %u : !host.tensor<f32, [64]> -> !host.partition<f32, [64], [64]>
  func.return
}
""",
        "prog.mlir",
    )
    with pytest.raises(DiagnosticError) as info:
        VerifyOwnershipPass().apply(ctx, m)
    found = [
        (d.message, d.loc.line, [(n.message, n.loc.line) for n in d.notes])
        for d in info.value.diagnostics
    ]
    assert found == [
        ("use of moved value: %t", 4, [("value moved here", 3), ("value used here after move", 4)]),
        ("use of moved value: %u", 6, [("value moved here", 5), ("value used here after move", 6)]),
    ]
