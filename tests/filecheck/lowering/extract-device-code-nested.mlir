// extract-device-code drops host functions in a module nested in the module too: left there,
// convert-to-llvm lowered them as device code (their index constants became i64) and broke their
// host ops, an internal error (tests/fuzz/regressions/invalid-output-of-pass-convert-to-llvm-*).
// RUN: ferrox-opt %s -p extract-device-code | filecheck %s
// RUN: ferrox-opt %s -p lower-to-llvm | filecheck %s --check-prefix=LLVM

// CHECK:      builtin.module {
// CHECK-NEXT:   builtin.module {
// CHECK-NEXT:     simt.kernel @copy
// CHECK-NOT:  func.func @main
// CHECK-NOT:  host.
// LLVM:       llvm.func @copy
// LLVM-NOT:   host.

builtin.module {
  builtin.module {
    simt.kernel @copy(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128], requires = [len(arg0) >= len(arg1)]> {
      %w = simt.thread_index_1d
      %i = simt.witness_value %w : !simt.thread_index<1d>
      simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
      ^bb0(%old: f32):
        %x = simt.load %a[%i] : !simt.slice<f32>
        simt.yield %x : f32
      }
      simt.return
    }
    func.func @main() {
      %a = host.random uniform(-1.0, 1.0) seed 1 : !host.tensor<f32, [256]>
      %c = host.poison : !host.tensor<f32, [256]>
      %s = host.stream
      %grid = arith.constant 2 : index
      %block = arith.constant 128 : index
      %p = host.prepare @copy grid(%grid) block(%block) args(%a, %c : !host.tensor<f32, [256]>, !host.tensor<f32, [256]>)
      %c2 = host.launch @copy with %p on %s ins(%a : !host.tensor<f32, [256]>) outs(%c : !host.tensor<f32, [256]>) -> !host.tensor<f32, [256]>
      host.sync_on %s
      func.return
    }
  }
}
