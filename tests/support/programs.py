"""Host programs the runner tests share (kernels plus a `@main`), as text."""

from __future__ import annotations

from pathlib import Path

T = "!host.tensor<f32, [?]>"

DOUBLE = """
simt.kernel @double(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %v = simt.load %x[%i] : !simt.slice<f32>
    %r = arith.addf %v, %v : f32
    simt.yield %r : f32
  }
  simt.return
}
"""

ACCUMULATE = """
simt.kernel @add(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %c: !simt.disjoint_slice<f32, 1d>, %n: index) contract<domain = 1, block = [256], requires = [len(arg0) >= arg3, len(arg1) >= arg3, len(arg2) >= arg3]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %c[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<f32>
    %y = simt.load %b[%i] : !simt.slice<f32>
    %s = arith.addf %x, %y : f32
    simt.yield %s : f32
  }
  simt.return
}
"""

# A loop threads the accumulator through iter_args; one prepared launch serves every iteration.
LOOP = (
    ACCUMULATE
    + f"""
func.func @main() -> {T} {{
  %n = host.param "n" = 300 : index
  %steps = host.param "steps" = 5 : index
  %x = host.arange start 1.0 step 1.0 (%n) : {T}
  %acc = host.zeros(%n) : {T}
  %s = host.stream
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %threads = arith.constant 256 : index
  %blocks = arith.ceildivui %n, %threads : index
  %p = host.prepare @add grid(%blocks) block(%threads) args(%x, %x, %acc, %n : {T}, {T}, {T}, index)
  %r = scf.for %i = %lo to %steps step %one iter_args(%cur = %acc) -> ({T}) {{
    %fresh = host.poison(%n) : {T}
    %next = host.launch @add with %p on %s ins(%cur, %x, %n : {T}, {T}, index) outs(%fresh : {T}) -> {T}
    scf.yield %next : {T}
  }}
  host.sync_on %s
  host.check %r, "x * steps" (x = %x : {T}, steps = %steps : index) : {T}
  func.return %r : {T}
}}
"""
)

FROM_ARRAYS = (
    DOUBLE
    + f"""
func.func @main() -> {T} {{
  %x = host.from_array 0 : {T}
  %out = host.from_array 1 : {T}
  %s = host.stream
  %blocks = arith.constant 2 : index
  %threads = arith.constant 256 : index
  %p = host.prepare @double grid(%blocks) block(%threads) args(%x, %out : {T}, {T})
  %out2 = host.launch @double with %p on %s ins(%x : {T}) outs(%out : {T}) -> {T}
  host.sync_on %s
  host.check %out2, "2 * x" (x = %x : {T}) : {T}
  func.return %out2 : {T}
}}
"""
)

# Prepared for %out of n elements, launched with %other of m: the launch must refuse.
STALE = (
    DOUBLE
    + f"""
func.func @main() {{
  %n = host.param "n" = 300 : index
  %m = host.param "m" = 600 : index
  %x = host.random uniform(0.0, 1.0) seed 1 (%m) : {T}
  %out = host.poison(%n) : {T}
  %other = host.poison(%m) : {T}
  %s = host.stream
  %blocks = arith.constant 2 : index
  %threads = arith.constant 256 : index
  %p = host.prepare @double grid(%blocks) block(%threads) args(%x, %out : {T}, {T})
  %out2 = host.launch @double with %p on %s ins(%x : {T}) outs(%out : {T}) -> {T}
  %other2 = host.launch @double with %p on %s ins(%x : {T}) outs(%other : {T}) -> {T}
  host.sync_on %s
  func.return
}}
"""
)

UNSAFE_BLOCK = (
    DOUBLE
    + f"""
func.func @main() {{
  %n = host.param "n" = 300 : index
  %x = host.random uniform(0.0, 1.0) seed 1 (%n) : {T}
  %out = host.poison(%n) : {T}
  %s = host.stream
  %blocks = arith.constant 3 : index
  %threads = arith.constant 128 : index
  %out2 = host.unsafe_launch @double grid(%blocks) block(%threads) on %s ins(%x : {T}) outs(%out : {T}) -> {T}
  host.sync_on %s
  func.return
}}
"""
)

# No `requires`: a launch over a longer output reads past the end of %x and traps.
TRAPS = (
    """
simt.kernel @reads_past(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %v = simt.load %x[%i] : !simt.slice<f32>
    simt.yield %v : f32
  }
  simt.return
}
"""
    + f"""
func.func @main() {{
  %n = arith.constant 100 : index
  %m = arith.constant 200 : index
  %x = host.zeros(%n) : {T}
  %out = host.poison(%m) : {T}
  %s = host.stream
  %one = arith.constant 1 : index
  %threads = arith.constant 256 : index
  %p = host.prepare @reads_past grid(%one) block(%threads) args(%x, %out : {T}, {T})
  %out2 = host.launch @reads_past with %p on %s ins(%x : {T}) outs(%out : {T}) -> {T}
  host.sync_on %s
  func.return
}}
"""
)

CHECKS_GO_ON = f"""
func.func @main() {{
  %n = arith.constant 4 : index
  %a = host.arange (%n) : {T}
  %b = host.arange start 1.0 (%n) : {T}
  host.check %a, "a + 1" (a = %a : {T}) : {T}
  host.check %b, %b : {T}, {T}
  host.check %a, "a[:2]" (a = %a : {T}) : {T}
  host.print "b = " %b : {T}
  host.print %n : index
  func.return
}}
"""

TWO_STREAMS = (
    DOUBLE
    + f"""
func.func @main() -> ({T}, {T}) {{
  %n = host.param "n" = 300 : index
  %x = host.arange (%n) : {T}
  %o1 = host.poison(%n) : {T}
  %o2 = host.poison(%n) : {T}
  %s1 = host.stream
  %s2 = host.stream
  %blocks = arith.constant 2 : index
  %threads = arith.constant 256 : index
  %p = host.prepare @double grid(%blocks) block(%threads) args(%x, %o1 : {T}, {T})
  %r1 = host.launch @double with %p on %s1 ins(%x : {T}) outs(%o1 : {T}) -> {T}
  %r2 = host.launch @double with %p on %s2 ins(%x : {T}) outs(%o2 : {T}) -> {T}
  host.sync_on %s1
  host.sync_on %s2
  func.return %r1, %r2 : {T}, {T}
}}
"""
)

P = "!host.partition<f32, [?], [128]>"
TILE_ADD = (
    """
tile.kernel @vector_add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  %a = tile.load_like %x, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [128]> -> !tile.tile<f32, [128]>
  %b = tile.load_like %y, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [128]> -> !tile.tile<f32, [128]>
  %sum = tile.add %a, %b : !tile.tile<f32, [128]>
  tile.store %sum, %z : !tile.tile<f32, [128]>, !tile.partition<f32, [128]>
  tile.return
}
"""
    + f"""
func.func @main() -> {T} {{
  %n = host.param "n" = 1000 : index
  %x = host.random uniform(0.0, 1.0) seed 3 (%n) : {T}
  %y = host.random normal(0.0, 1.0) seed 4 (%n) : {T}
  %z = host.poison(%n) : {T}
  %s = host.stream
  %pz = host.partition %z : {T} -> {P}
  %pz2 = host.tile_launch @vector_add on %s ins(%x, %y : {T}, {T}) outs(%pz : {P}) -> {P}
  %z2 = host.unpartition %pz2 : {P} -> {T}
  host.sync_on %s
  host.check %z2, "x + y" (x = %x : {T}, y = %y : {T}) : {T}
  func.return %z2 : {T}
}}
"""
)

TILE_TWO_OUTS = (
    """
tile.kernel @copy2(%a: !tile.partition<f32, [128]>, %b: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  %t = tile.load_like %x, %a : !tile.tensor<f32, [?]>, !tile.partition<f32, [128]> -> !tile.tile<f32, [128]>
  tile.store %t, %a : !tile.tile<f32, [128]>, !tile.partition<f32, [128]>
  tile.store %t, %b : !tile.tile<f32, [128]>, !tile.partition<f32, [128]>
  tile.return
}
"""
    + f"""
func.func @main() {{
  %n = host.param "n" = 1000 : index
  %m = host.param "m" = 1000 : index
  %x = host.arange (%n) : {T}
  %a = host.poison(%n) : {T}
  %b = host.poison(%m) : {T}
  %s = host.stream
  %pa = host.partition %a : {T} -> {P}
  %pb = host.partition %b : {T} -> {P}
  %pa2, %pb2 = host.tile_launch @copy2 on %s ins(%x : {T}) outs(%pa, %pb : {P}, {P}) -> {P}, {P}
  %a2 = host.unpartition %pa2 : {P} -> {T}
  %b2 = host.unpartition %pb2 : {P} -> {T}
  host.sync_on %s
  host.check %a2, "x" (x = %x : {T}) : {T}
  host.check %b2, "x" (x = %x : {T}) : {T}
  func.return
}}
"""
)

# A tile kernel whose input has a static length, fed a host tensor of `?` length.
TILE_STATIC_INPUT = TILE_ADD.replace(
    "%x: !tile.tensor<f32, [?]>, %y", "%x: !tile.tensor<f32, [1000]>, %y"
).replace(
    "tile.load_like %x, %z : !tile.tensor<f32, [?]>",
    "tile.load_like %x, %z : !tile.tensor<f32, [1000]>",
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "simt"
