"""Shared-array alignment reaches LLVM and the PTX: a static array's `{align}` is its global's
alignment (`.shared .align N`), the dynamic region's base is declared 1024-byte aligned
(`.extern .shared .align 1024`), and each dynamic array sits at its `dynamic_layout` offset."""

from __future__ import annotations

import re

from xdsl.dialects import llvm
from xdsl.dialects.builtin import i8

import ferrox
from ferrox.dialects import simt
from ferrox.lowering.simt_to_nvvm import convert_simt_to_nvvm
from ferrox.parser import parse_module
from ferrox.registry import make_context

# Each thread writes its id into the static array, the 16-byte dynamic one (the first four
# threads) and the 1024-aligned one (at offset 1024); after a barrier it adds up its neighbour's.
KERNEL = """builtin.module {
  simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [32], shared_bytes = 1152> {
    %st = simt.shared_alloc {align = 512} : !simt.shared<f32, [32]>
    %small = simt.shared_alloc {dynamic} : !simt.shared<f32, [4]>
    %stage = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<f32, [32]>
    %t = simt.thread_id x
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c31 = arith.constant 31 : index
    %first = arith.cmpi ule, %t, %c3 : index
    %t1 = arith.addi %t, %c1 : index
    %n = arith.andi %t1, %c31 : index
    %i = arith.andi %t1, %c3 : index
    %ti = arith.index_cast %t : index to i32
    %v = arith.sitofp %ti : i32 to f32
    simt.unsafe {
      simt.shared_store %v, %st[%t] : !simt.shared<f32, [32]>
      simt.shared_store %v, %stage[%t] : !simt.shared<f32, [32]>
      scf.if %first {
        simt.shared_store %v, %small[%t] : !simt.shared<f32, [4]>
      }
      simt.yield
    }
    simt.sync_threads
    %s = simt.unsafe -> f32 {
      %x = simt.shared_load %st[%n] : !simt.shared<f32, [32]>
      %y = simt.shared_load %stage[%n] : !simt.shared<f32, [32]>
      %z = simt.shared_load %small[%i] : !simt.shared<f32, [4]>
      %xy = arith.addf %x, %y : f32
      %r = arith.addf %xy, %z : f32
      simt.yield %r : f32
    }
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %s : f32
    }
    simt.return
  }
}"""  # noqa: E501


def test_the_globals_carry_the_alignment_and_the_arrays_their_offsets():
    module = parse_module(make_context(), KERNEL, "k.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, simt.KernelOp))
    offsets, total = simt.dynamic_layout(kernel)
    assert sorted(offsets.values()) == [0, 1024] and total == 1152
    convert_simt_to_nvvm(module)
    globals_ = {g.sym_name.data: g for g in module.walk() if isinstance(g, llvm.GlobalOp)}
    alignments = {name: g.alignment.value.data for name, g in globals_.items() if g.alignment}
    assert alignments == {"k_st": 512, "ferrox_dynamic_shared": 1024}
    # the aligned array's address: the dynamic base plus 1024 bytes
    geps = [op for op in module.walk() if isinstance(op, llvm.GEPOp) and op.elem_type == i8]
    assert [list(g.rawConstantIndices.get_values()) for g in geps] == [[1024]]


def test_the_alignment_reaches_the_ptx():
    ptx = ferrox.compile(KERNEL).ptx
    assert ".extern .shared .align 1024 .b8 ferrox_dynamic_shared[];" in ptx
    assert re.search(r"\.shared \.align 512 \.b8 k_st\[128\];", ptx), ptx
