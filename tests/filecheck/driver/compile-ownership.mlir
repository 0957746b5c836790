// ferrox compile verifies the whole file, the host program included: a launch that reads the
// tensor it writes (%out is both an input and the output) is refused with verify-ownership's
// diagnostic, and no PTX is written.
// RUN: rm -f %t.ptx
// RUN: not ferrox compile %s --no-cache -o %t.ptx 2>&1 | filecheck %s
// RUN: not test -e %t.ptx

// CHECK: compile-ownership.mlir:38:5: error[E0502]: cannot borrow %out as immutable because it is also borrowed as mutable
// CHECK-NEXT: compile-ownership.mlir:38:5: note: mutable borrow occurs here
// CHECK-NEXT: compile-ownership.mlir:38:5: note: immutable borrow occurs here
// CHECK-NOT: error
builtin.module {
  // doc:begin vecadd
  simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %s = arith.addf %x, %y : f32
      simt.yield %s : f32
    }
    simt.return
  }
  // doc:end

  // The host program: `ferrox run examples/simt/vecadd.mlir [--param n=16777216]`.
  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 1000 : index
    %a = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %b = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @vecadd grid(%blocks) block(%threads) args(%out, %b, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
    %out2 = host.launch @vecadd with %p on %s ins(%out, %b : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "a + b" (a = %a : !host.tensor<f32, [?]>, b = %b : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return %out2 : !host.tensor<f32, [?]>
  }
}
