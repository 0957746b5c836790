"""A kernel built with xDSL's op classes (func, scf, arith, math, memref) goes through
`convert-to-llvm`, the LLVM IR export and llvmlite's NVPTX backend to PTX for sm_90, and, where
NVIDIA's assembler is installed, to a cubin."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    UnitAttr,
    f32,
)
from xdsl.ir import Block, Region

from ferrox.lowering.to_llvm import convert_to_llvm

N = 256


def build_kernel() -> ModuleOp:
    """y[i] = x[i] < 0 ? exp(x[i]) : tanh(x[i]) + sqrt(|x[i]|), for i < n, in an scf.for."""
    buffer = MemRefType(f32, [N], memory_space=IntegerAttr(1, 64))
    entry = Block(arg_types=[buffer, buffer, IndexType()])
    x, y, n = entry.args
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    fzero = arith.ConstantOp(FloatAttr(0.0, f32))

    body = Block(arg_types=[IndexType()])
    (i,) = body.args
    v = memref.LoadOp.get(x, [i])
    negative = arith.CmpfOp(v, fzero, "olt")
    then = Block()
    e = xmath.ExpOp(v)
    then.add_ops([e, scf.YieldOp(e)])
    other = Block()
    t = xmath.TanhOp(v)
    a = xmath.AbsFOp(v)
    s = xmath.SqrtOp(a)
    total = arith.AddfOp(t, s)
    other.add_ops([t, a, s, total, scf.YieldOp(total)])
    pick = scf.IfOp(negative, [f32], Region(then), Region(other))
    store = memref.StoreOp.get(pick, y, [i])
    body.add_ops([v, negative, pick, store, scf.YieldOp()])

    loop = scf.ForOp(zero, n, one, [], body)
    entry.add_ops([zero, one, fzero, loop, func.ReturnOp()])
    kernel = func.FuncOp("transform", ([buffer, buffer, IndexType()], []), Region(entry))
    kernel.attributes["nvvm.kernel"] = UnitAttr()
    noalias = DictionaryAttr({"llvm.noalias": UnitAttr()})
    kernel.arg_attrs = ArrayAttr([noalias, noalias, DictionaryAttr({})])
    return ModuleOp([kernel])


def export(module: ModuleOp) -> str:
    """LLVM IR text: ferrox's exporter where it exists, xDSL's otherwise."""
    try:
        from ferrox.targets.llvm_export import to_llvm_ir
    except ImportError:
        from xdsl.backend.llvm.convert import convert_module

        return str(convert_module(module, fallback_target_triple="nvptx64-nvidia-cuda"))
    return to_llvm_ir(module)


COMPILE = r"""
import sys
import llvmlite.binding as llvm
llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
module = llvm.parse_assembly(sys.stdin.read())
module.verify()
target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
machine = target.create_target_machine(cpu="sm_90", features="+ptx80", opt=3)
print(machine.emit_assembly(module))
"""


def to_ptx(ir: str) -> str:
    """PTX from llvmlite, in a child process: NVPTX aborts the process on what it cannot select."""
    done = subprocess.run(
        [sys.executable, "-c", COMPILE], input=ir, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def lowered() -> ModuleOp:
    module = build_kernel()
    module.verify()
    convert_to_llvm(module)
    module.verify()
    return module


@pytest.fixture(scope="module")
def ptx(lowered: ModuleOp) -> str:
    return to_ptx(export(lowered))


def test_only_llvm_ops_remain(lowered: ModuleOp) -> None:
    names = {op.name for op in lowered.walk()} - {"builtin.module"}
    assert names and all(name.startswith("llvm.") for name in names), names
    (kernel,) = lowered.ops
    assert isinstance(kernel, llvm.FuncOp)
    assert "nvvm.kernel" in kernel.attributes
    assert [str(t) for t in kernel.function_type.inputs] == ["!llvm.ptr<1>", "!llvm.ptr<1>", "i64"]


def test_ptx_has_the_math_and_the_loop(ptx: str) -> None:
    for instruction in ("ex2.approx.f32", "tanh.approx.f32", "sqrt.rn.f32", "abs.f32"):
        assert instruction in ptx, instruction
    assert re.search(r"ld\.global(\.\w+)*\.[bf]32", ptx)
    assert re.search(r"st\.global(\.\w+)*\.[bf]32", ptx)
    assert re.search(r"setp\.\w+\.[su]64", ptx), "the loop's i64 bound check"
    assert "bra" in ptx
    assert "call" not in ptx, "no external calls (libm) may remain"


def test_kernel_is_a_ptx_entry(ptx: str) -> None:
    pytest.importorskip("ferrox.targets.llvm_export", reason="xDSL's own exporter marks no entry")
    assert re.search(r"\.visible \.entry transform\(", ptx)


def test_ptxas_accepts_it(ptx: str, tmp_path) -> None:
    from ferrox.targets.toolchain import find_ptxas

    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("needs ptxas (not on PATH and no nvidia-cuda-nvcc wheel)")
    source = tmp_path / "kernel.ptx"
    source.write_text(ptx)
    done = subprocess.run(
        [ptxas, "-arch=sm_90", "-v", str(source), "-o", str(tmp_path / "kernel.cubin")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "0 bytes spill stores" in done.stderr
