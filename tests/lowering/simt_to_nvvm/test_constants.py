"""convert-simt-to-nvvm makes each integer constant once a function, at its entry block's start
(lowering/simt_to_nvvm/constants.py), and keeps no pool once it returns (a pooled constant refers
to its block: a pool kept past the walk would keep every lowered module alive). So do
convert-to-llvm's expansions (`math.exp`, f32 division) with their float constants."""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import BlockArgument

from ferrox.lowering.pipeline import extract_device_code
from ferrox.lowering.simt_to_nvvm import constants
from ferrox.lowering.simt_to_nvvm.convert import convert_simt_to_nvvm
from ferrox.lowering.to_llvm.convert import convert_to_llvm
from ferrox.parser import parse_module
from ferrox.registry import make_context

ROOT = Path(__file__).resolve().parents[3]


def _lowered(name: str):
    path = ROOT / "examples" / "tile" / f"{name}.mlir"
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), str(path))
    extract_device_code(module, ctx)
    convert_simt_to_nvvm(module)
    return module


def test_integer_constants_are_made_once_at_each_function_entry():
    module = _lowered("layernorm")
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    assert functions
    for fn in functions:
        entry = fn.body.blocks[0]
        ops = list(entry.ops)
        leading = 0
        while isinstance(ops[leading], arith.ConstantOp):
            leading += 1
        pooled = [
            (op.value.value.data, op.result.type)
            for op in ops[:leading]
            if isinstance(op.value, IntegerAttr)
        ]
        assert len(pooled) == len(set(pooled)), fn.sym_name.data
        # None made again inside a branch (the source's own constants, at the entry, stay).
        for op in fn.walk():
            if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
                key = (op.value.value.data, op.result.type)
                assert op.parent is entry or key not in pooled, (fn.sym_name.data, key)


def test_no_pool_outlives_the_conversion():
    _lowered("softmax")
    assert constants._POOLS.get() is None


def test_float_constants_of_the_llvm_expansions_are_made_once_a_function():
    """softmax: eight `math.exp` and eight divisions, their constants made once each (105
    `llvm.mlir.constant`s in the kernel when each op made its own)."""
    module = _lowered("softmax")
    convert_to_llvm(module)
    assert constants._POOLS.get() is None
    functions = [op for op in module.ops if isinstance(op, llvm.FuncOp)]
    assert functions
    for fn in functions:
        entry = fn.body.blocks[0]
        made = [
            (op, (op.value, op.results[0].type))
            for op in fn.walk()
            if isinstance(op, llvm.ConstantOp) and isinstance(op.value, FloatAttr)
        ]
        keys = [key for _, key in made]
        assert len(keys) == len(set(keys)), fn.sym_name.data
        assert all(op.parent is entry for op, _ in made), fn.sym_name.data
    kernel = next(fn for fn in functions if fn.sym_name.data == "softmax")
    assert sum(isinstance(op, llvm.ConstantOp) for op in kernel.walk()) < 70


def _kernel_ops(module, name: str):
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    return list(fn.walk())


def test_a_special_register_is_read_once_where_the_first_read_dominates():
    """SIMT transpose reads tid.x/y and ctaid.x/y for `%tx`... and again for its 2-D witness:
    each is read once. Each index parameter is cast to i64 once (LLVM IR writes no instruction
    for it). The LLVM IR is the same less the repeated reads; the PTX of every
    example is byte-identical (`benchmarks/artifacts_identical.py`)."""
    path = ROOT / "examples" / "simt" / "transpose.mlir"
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), str(path))
    extract_device_code(module, ctx)
    convert_simt_to_nvvm(module)
    assert constants._REUSED.get() is None
    ops = _kernel_ops(module, "transpose")
    reads = [type(op).__name__ for op in ops if op.name.startswith("nvvm.read.ptx.sreg")]
    assert sorted(reads) == sorted(set(reads)) and len(reads) == 4
    casts = [
        op for op in ops if isinstance(op, arith.IndexCastOp) and op.result.type != op.input.type
    ]
    params = [c.input for c in casts if isinstance(c.input, BlockArgument)]
    assert len(params) == 2 and len(set(params)) == 2  # %rows and %cols


NESTED = """
builtin.module {
  simt.kernel @k(%out: !simt.disjoint_slice<i64, 1d>, %n: i32) contract<domain = 1, block = [256]> {
    %zero = arith.constant 0 : i32
    %flag = arith.cmpi sgt, %n, %zero : i32
    scf.if %flag {
      %t = simt.thread_id x
      scf.yield
    }
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<i64, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: i64):
      %v = arith.index_cast %i : index to i64
      simt.yield %v : i64
    }
    simt.return
  }
}
"""


def test_a_read_inside_a_region_is_not_used_after_it():
    """tid.x read inside an `scf.if` does not dominate the witness after it: read again there."""
    from ferrox.verify import verify_module

    ctx = make_context()
    module = parse_module(ctx, NESTED, "<nested>")
    verify_module(module)
    extract_device_code(module, ctx)
    convert_simt_to_nvvm(module)
    module.verify()
    reads = [op for op in _kernel_ops(module, "k") if op.name == "nvvm.read.ptx.sreg.tid.x"]
    assert len(reads) == 2 and reads[0].parent is not reads[1].parent
