"""The Python constructors build the same IR as the text, and the types check themselves."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    TensorType,
    bf16,
    f32,
    i1,
    i32,
)
from xdsl.ir import Block, Region, SSAValue
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile import (
    AddOp,
    BlockIdOp,
    BroadcastOp,
    CmpOp,
    CmpPredicate,
    ConstantOp,
    DimOp,
    KernelOp,
    LoadLikeOp,
    LoadOp,
    MmaOp,
    Padding,
    PartitionType,
    PermuteOp,
    ReduceMaxOp,
    ReduceSumOp,
    ReturnOp,
    StoreOp,
    TileTensorType,
    TileType,
)
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

KERNELS = Path(__file__).resolve().parents[2] / "filecheck" / "dialects" / "tile" / "kernels.mlir"


def _text(op) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def _kernel_from_file(name: str) -> str:
    module = parse_module(make_context(), KERNELS.read_text(), str(KERNELS))
    (kernel,) = [op for op in module.ops if isinstance(op, KernelOp) and op.sym_name.data == name]
    return _text(kernel)


def _named(value: SSAValue, name: str) -> SSAValue:
    value.name_hint = name
    return value


def test_vector_add_built_in_python_matches_the_text():
    vec = TileTensorType(f32, [DYNAMIC_INDEX])
    kernel = KernelOp("vector_add", [PartitionType(f32, [1024]), vec, vec])
    z, x, y = (_named(a, n) for a, n in zip(kernel.args, "zxy"))
    a = LoadLikeOp(x, z)
    b = LoadLikeOp(y, z)
    total = AddOp(a.result, b.result)
    for op, name in ((a, "a"), (b, "b"), (total, "sum")):
        _named(op.results[0], name)
    kernel.body.block.add_ops([a, b, total, StoreOp(total.result, z), ReturnOp()])
    verify_module(kernel)
    assert _text(kernel) == _kernel_from_file("vector_add")


def test_matmul_built_in_python_matches_the_text():
    mat = TileTensorType(f32, [DYNAMIC_INDEX, DYNAMIC_INDEX])
    kernel = KernelOp("matmul_f32", [PartitionType(f32, [128, 128]), mat, mat])
    c, a, b = (_named(v, n) for v, n in zip(kernel.args, "cab"))
    i, j = BlockIdOp(0), BlockIdOp(1)
    k = DimOp(a, 1)
    c0, c1, c16 = (arith.ConstantOp.from_int_and_width(v, IndexType()) for v in (0, 1, 16))
    ktiles = arith.CeilDivUIOp(k.result, c16.result)
    zero = ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(f32, [128, 128]), [0.0]))
    body = Block(arg_types=[IndexType(), TileType(f32, [128, 128])])
    kk, acc_in = body.args
    x = LoadOp(a, [i.result, kk], TileType(f32, [128, 16]))
    y = LoadOp(b, [kk, j.result], TileType(f32, [16, 128]))
    nxt = MmaOp(x.result, y.result, acc_in)
    body.add_ops([x, y, nxt, scf.YieldOp(nxt.result)])
    loop = scf.ForOp(c0.result, ktiles.result, c1.result, [zero.result], Region(body))
    names = [
        (i, "i"),
        (j, "j"),
        (k, "k"),
        (c0, "c0"),
        (c1, "c1"),
        (c16, "c16"),
        (ktiles, "ktiles"),
        (zero, "zero"),
        (x, "x"),
        (y, "y"),
        (nxt, "next"),
        (loop, "acc"),
    ]
    for op, name in names:
        _named(op.results[0], name)
    _named(kk, "kk")
    _named(acc_in, "sum")
    ops = [i, j, k, c0, c1, c16, ktiles, zero, loop, StoreOp(loop.results[0], c), ReturnOp()]
    kernel.body.block.add_ops(ops)
    verify_module(kernel)
    assert _text(kernel) == _kernel_from_file("matmul_f32")


def test_op_accessors():
    kernel = KernelOp(
        "k", [TileTensorType(f32, [16]), PartitionType(f32, [4, 4]), PartitionType(i32, [2, 2])]
    )
    x, out, aux = kernel.args
    assert kernel.partitions == [out, aux] and kernel.grid_rank == 2
    load = LoadOp(x, [BlockIdOp(0).result], TileType(f32, [16]))
    assert load.padding.data == Padding.ZERO
    assert LoadOp(x, [], TileType(f32, [16]), Padding.NEG_INF).padding.data == Padding.NEG_INF
    t = ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2, 4, 8]), [1.0]))
    assert PermuteOp(t.result, [2, 0, 1]).result.type == TileType(f32, [8, 2, 4])
    assert ReduceSumOp(t.result, 1).result.type == TileType(f32, [2, 8])
    keep = ReduceMaxOp(t.result, 2, keepdims=True)
    assert keep.keeps_dims and keep.result.type == TileType(f32, [2, 4, 1])
    assert CmpOp(CmpPredicate.LT, t.result, t.result).result.type == TileType(i1, [2, 4, 8])
    wide = BroadcastOp(keep.result, TileType(f32, [4, 2, 4, 8]))
    assert wide.result.type.get_shape() == (4, 2, 4, 8)


def test_types_compare_by_value_and_expose_their_shape():
    assert TileType(f32, [16, 128]) == TileType(f32, [16, 128])
    assert TileType(f32, [16, 128]) != TileType(f32, [16, 64])
    assert TileType(f32, [16]) != TileType(bf16, [16])
    assert TileType(f32, [16]) != PartitionType(f32, [16])
    t = TileTensorType(f32, [DYNAMIC_INDEX, 4096])
    assert t.get_shape() == (DYNAMIC_INDEX, 4096) and t.rank == 2 and t.element_type == f32
    assert str(t) == "!tile.tensor<f32, [?, 4096]>"
    assert TileType(f32, []).rank == 0


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: TileType(f32, [3, 128]),
            "tile shape must be static powers of two, found [3, 128]",
        ),
        (
            lambda: TileType(f32, [DYNAMIC_INDEX]),
            "tile shape must be static powers of two, found [?]",
        ),
        (lambda: PartitionType(f32, [1, 1, 1, 1]), "partition rank must be 1, 2 or 3"),
        (lambda: PartitionType(i1, [16]), "partition element type must be"),
        (lambda: TileTensorType(f32, []), "tensor rank must be at least 1"),
        (lambda: TileTensorType(f32, [0]), "tensor dimensions must be positive or ?, found [0]"),
    ],
)
def test_types_reject_bad_shapes_when_built(make, message):
    with pytest.raises(VerifyException, match=message.replace("[", r"\[").replace("?", r"\?")):
        make()
