"""The lowered IR means what the SIMT IR means, checked by running it.

xDSL's interpreter runs the output of convert-simt-to-nvvm once per thread of a small launch,
with the special registers set for that thread and llvm pointer ops recorded (not executed). The
elements each thread writes through `get_mut` must be exactly those the SIMT index spaces give
(docs/dialects/simt.md), computed here with exact integers: no element written twice, none
missing, none out of bounds, also where 64-bit arithmetic would wrap. Loads out of range trap.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import pytest
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions

from ferrox.dialects import nvvm
from ferrox.lowering.simt_to_nvvm import convert_simt_to_nvvm
from ferrox.parser import parse_module
from ferrox.registry import make_context


class Trap(Exception):
    pass


@dataclass(frozen=True)
class Pointer:
    """A kernel pointer parameter, and an address in it: (name, GEP indices)."""

    name: str
    indices: tuple[int, ...] = ()


@dataclass
class Thread:
    tid: tuple[int, int, int]
    ntid: tuple[int, int, int]
    ctaid: tuple[int, int, int]
    nctaid: tuple[int, int, int] = (1, 1, 1)
    memory: dict[Pointer, int] = field(default_factory=dict)
    stores: list[tuple[Pointer, int]] = field(default_factory=list)


def _bits(t) -> int:
    return t.width.data if isinstance(t, IntegerType) else 64


def _unsigned(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def _signed(value: int, bits: int) -> int:
    value = _unsigned(value, bits)
    return value - (1 << bits) if value >> (bits - 1) else value


_REGISTERS = {
    **{
        op: ("tid", i)
        for i, op in enumerate((nvvm.ThreadIdXOp, nvvm.ThreadIdYOp, nvvm.ThreadIdZOp))
    },
    **{
        op: ("ntid", i)
        for i, op in enumerate((nvvm.BlockDimXOp, nvvm.BlockDimYOp, nvvm.BlockDimZOp))
    },
    **{
        op: ("ctaid", i) for i, op in enumerate((nvvm.BlockIdXOp, nvvm.BlockIdYOp, nvvm.BlockIdZOp))
    },
    **{
        op: ("nctaid", i)
        for i, op in enumerate((nvvm.GridDimXOp, nvvm.GridDimYOp, nvvm.GridDimZOp))
    },
}


@register_impls
class DeviceFunctions(InterpreterFunctions):
    """One thread: its special registers, and llvm memory ops on symbolic pointers."""

    def __init__(self, thread: Thread):
        self.thread = thread

    def _register(self, interpreter: Interpreter, op, args: PythonValues) -> PythonValues:
        name, i = _REGISTERS[type(op)]
        return (getattr(self.thread, name)[i],)

    for _op in _REGISTERS:
        locals()[f"run_{_op.__name__}"] = impl(_op)(_register)
    del _op

    @impl(nvvm.LaneIdOp)
    def run_lane(self, interpreter: Interpreter, op, args: PythonValues) -> PythonValues:
        return (self.thread.tid[0] % 32,)

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter: Interpreter, op: arith.ExtUIOp, args: PythonValues):
        return (_unsigned(args[0], _bits(op.input.type)),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interpreter: Interpreter, op: arith.TruncIOp, args: PythonValues):
        return (_signed(args[0], _bits(op.result.type)),)

    @impl(arith.ShRUIOp)
    def run_shrui(self, interpreter: Interpreter, op: arith.ShRUIOp, args: PythonValues):
        bits = _bits(op.result.type)
        return (_signed(_unsigned(args[0], bits) >> args[1], bits),)

    @impl(llvm.GEPOp)
    def run_gep(self, interpreter: Interpreter, op: llvm.GEPOp, args: PythonValues):
        base, *dynamic = args
        dynamic = iter(dynamic)
        indices = tuple(
            _unsigned(next(dynamic), 64) if i == llvm.GEP_USE_SSA_VAL else i
            for i in op.rawConstantIndices.get_values()
        )
        return (Pointer(base.name, base.indices + indices),)

    @impl(llvm.LoadOp)
    def run_load(self, interpreter: Interpreter, op: llvm.LoadOp, args: PythonValues):
        return (self.thread.memory.get(args[0], 0),)

    @impl(llvm.StoreOp)
    def run_store(self, interpreter: Interpreter, op: llvm.StoreOp, args: PythonValues):
        self.thread.stores.append((args[1], args[0]))
        return ()

    @impl(nvvm.AtomicRMWOp)
    def run_atomic(self, interpreter: Interpreter, op: nvvm.AtomicRMWOp, args: PythonValues):
        old = self.thread.memory.get(args[0], 0)
        assert op.bin_op.data == nvvm.AtomicBinOp.ADD
        self.thread.memory[args[0]] = old + args[1]
        self.thread.stores.append((args[0], old + args[1]))
        return (old,)

    @impl(llvm.CallIntrinsicOp)
    def run_intrinsic(self, interpreter: Interpreter, op: llvm.CallIntrinsicOp, args: PythonValues):
        assert op.intrin.data == "llvm.trap"
        raise Trap()


def lowered(text: str) -> ModuleOp:
    module = parse_module(make_context(), text, "test.mlir")
    convert_simt_to_nvvm(module)
    return module


def run(module: ModuleOp, name: str, args: tuple, thread: Thread) -> Thread:
    interpreter = Interpreter(module)
    for functions in (ArithFunctions(), ScfFunctions(), FuncFunctions(), DeviceFunctions(thread)):
        interpreter.register_implementations(functions)
    interpreter.call_op(name, args)
    return thread


def launch(grid: tuple[int, int], block: tuple[int, int]):
    for (bx, by), (tx, ty) in itertools.product(
        itertools.product(range(grid[0]), range(grid[1])),
        itertools.product(range(block[0]), range(block[1])),
    ):
        yield Thread((tx, ty, 0), (block[0], block[1], 1), (bx, by, 0), (grid[0], grid[1], 1))


def writes(module: ModuleOp, name: str, args: tuple, grid, block) -> dict[int, tuple]:
    """Element index -> the (block, thread) that wrote it; fails on a second writer."""
    owner: dict[int, tuple] = {}
    for thread in launch(grid, block):
        for address, _ in run(module, name, args, thread).stores:
            assert address.name == "out" and len(address.indices) == 1
            (index,) = address.indices
            assert index not in owner, f"element {index} written by {owner[index]} and {thread}"
            owner[index] = (thread.ctaid[:2], thread.tid[:2])
    return owner


def expected(grid, block, length: int, space: str, width: int = 0) -> dict[int, tuple]:
    """The SIMT semantics with exact integers."""
    owner = {}
    for thread in launch(grid, block):
        col = thread.ctaid[0] * thread.ntid[0] + thread.tid[0]
        row = thread.ctaid[1] * thread.ntid[1] + thread.tid[1]
        if space == "1d":
            index, ok = col, True
        elif space == "warp":
            index, ok = col // 32, col % 32 == 0
        else:
            index, ok = row * width + col, col < width
        if ok and index < length:
            owner[index] = (thread.ctaid[:2], thread.tid[:2])
    return owner


def kernel(space: str, contract: str = "unsafe") -> str:
    witness = {
        "1d": "%w = simt.thread_index_1d",
        "2d<5>": "%w = simt.index_2d : !simt.thread_index<2d<5>>",
        "2d_runtime": "%w = simt.index_2d_runtime %width",
        "warp": "%w = simt.warp_index",
    }[space]
    return f"""
simt.kernel @k(%out: !simt.disjoint_slice<i32, {space}>, %width: index) {contract} {{
  {witness}
  %one = arith.constant 1 : i32
  simt.get_mut %out[%w] : !simt.disjoint_slice<i32, {space}>, !simt.thread_index<{space}> {{
  ^bb0(%old: i32):
    %new = arith.addi %old, %one : i32
    simt.yield %new : i32
  }}
  simt.return
}}
"""


@pytest.mark.parametrize("length", [0, 7, 30, 1000])
def test_1d(length: int):
    module = lowered(kernel("1d"))
    got = writes(module, "k", (Pointer("out"), length, 0), (3, 1), (8, 1))
    assert got == expected((3, 1), (8, 1), length, "1d")


def test_1d_under_a_contract_uses_the_contract_block():
    module = lowered(kernel("1d", "contract<domain = 1, block = [8]>"))
    assert writes(module, "k", (Pointer("out"), 100, 0), (3, 1), (8, 1)) == expected(
        (3, 1), (8, 1), 100, "1d"
    )


@pytest.mark.parametrize("length", [7, 40, 1000])
def test_2d_static(length: int):
    module = lowered(kernel("2d<5>"))
    got = writes(module, "k", (Pointer("out"), length, 0), (2, 3), (4, 2))
    assert got == expected((2, 3), (4, 2), length, "2d", 5)
    # each element's writer is the thread at its (row, col), so the 3 columns past the width write
    # nothing (they would land in the next row)
    assert all(
        divmod(i, 5) == (by * 2 + ty, bx * 4 + tx) for i, ((bx, by), (tx, ty)) in got.items()
    )


@pytest.mark.parametrize(("width", "length"), [(3, 18), (6, 36), (8, 100), (1, 5), (0, 10)])
def test_2d_runtime(width: int, length: int):
    module = lowered(kernel("2d_runtime"))
    got = writes(module, "k", (Pointer("out"), length, width), (2, 2), (4, 2))
    assert got == expected((2, 2), (4, 2), length, "2d", width)


def test_2d_runtime_never_wraps_onto_another_thread():
    """row * width = 4 * 2^62 is 0 modulo 2^64: thread (row 4, col 1) would alias (row 0, col 1)."""
    module = lowered(kernel("2d_runtime"))
    width, length = 1 << 62, 8
    got = writes(module, "k", (Pointer("out"), length, width), (2, 3), (2, 2))
    assert got == expected((2, 3), (2, 2), length, "2d", width)
    assert set(got) == {0, 1, 2, 3}, "only row 0 is in bounds"


@pytest.mark.parametrize("length", [1, 3, 100])
def test_warp(length: int):
    module = lowered(kernel("warp", "contract<domain = 1, block = [64]>"))
    got = writes(module, "k", (Pointer("out"), length, 0), (2, 1), (64, 1))
    assert got == expected((2, 1), (64, 1), length, "warp")


def test_get_mut_reads_the_old_value_and_stores_the_new():
    module = lowered(kernel("1d"))
    thread = Thread((2, 0, 0), (4, 1, 1), (1, 0, 0))
    thread.memory[Pointer("out", (6,))] = 41
    run(module, "k", (Pointer("out"), 10, 0), thread)
    assert thread.stores == [(Pointer("out", (6,)), 42)]


LOAD = """
simt.kernel @k(%a: !simt.slice<i32>, %i: index, %o: !simt.ptr<i32>) unsafe {
  %x = simt.load %a[%i] : !simt.slice<i32>
  %c0 = arith.constant 0 : index
  simt.ptr_store %x, %o[%c0] : !simt.ptr<i32>
  simt.return
}
"""


@pytest.mark.parametrize(("index", "length"), [(10, 10), (11, 10), (-1, 10), (0, 0)])
def test_load_out_of_range_traps_before_reading(index: int, length: int):
    module = lowered(LOAD)
    thread = Thread((0, 0, 0), (1, 1, 1), (0, 0, 0))
    with pytest.raises(Trap):
        run(module, "k", (Pointer("a"), length, index, Pointer("o")), thread)
    assert thread.stores == []


def test_load_in_range():
    module = lowered(LOAD)
    thread = Thread((0, 0, 0), (1, 1, 1), (0, 0, 0))
    thread.memory[Pointer("a", (9,))] = 5
    run(module, "k", (Pointer("a"), 10, 9, Pointer("o")), thread)
    assert thread.stores == [(Pointer("o", (0,)), 5)]


ATOMIC = """
simt.kernel @k(%h: !simt.atomic_slice<i32>, %i: index) unsafe {
  %one = arith.constant 1 : i32
  %old = simt.atomic_add %h[%i], %one : !simt.atomic_slice<i32>
  simt.return
}
"""


@pytest.mark.parametrize(("index", "length", "traps"), [(3, 4, False), (4, 4, True), (-2, 4, True)])
def test_atomic_on_an_atomic_slice_is_range_checked(index: int, length: int, traps: bool):
    module = lowered(ATOMIC)
    thread = Thread((0, 0, 0), (1, 1, 1), (0, 0, 0))
    if traps:
        with pytest.raises(Trap):
            run(module, "k", (Pointer("h"), length, index), thread)
        assert thread.stores == []
    else:
        run(module, "k", (Pointer("h"), length, index), thread)
        assert thread.stores == [(Pointer("h", (index,)), 1)]
