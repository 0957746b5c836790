// The conversions check the verify-disjoint rules themselves: a pipeline that leaves out
// verify-disjoint still refuses an unsafe kernel, with the same diagnostic, and prints no PTX.
// RUN: not ferrox-opt %s -p convert-simt-to-nvvm,convert-to-llvm -t ptx 2>&1 | filecheck %s
// RUN: not ferrox-opt %s -p convert-tile-to-simt 2>&1 | filecheck %s
// RUN: not ferrox-opt %s -p verify-disjoint 2>&1 | filecheck %s

// Rule 4: the kernel casts its disjoint output to a shared slice and reads it.
// CHECK: refuse-unverified.mlir:[[# @LINE + 5]]:3: error[E1004]: disjoint slice `%out` cannot be used by 'builtin.unrealized_conversion_cast': it is written only through simt.get_mut
// CHECK-NOT: .entry
simt.kernel @read_own_output(%out: !simt.disjoint_slice<f32, 1d>, %r: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  %s = builtin.unrealized_conversion_cast %out : !simt.disjoint_slice<f32, 1d> to !simt.slice<f32>
  simt.get_mut %r[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %s[%i] : !simt.slice<f32>
    simt.yield %x : f32
  }
  simt.return
}
