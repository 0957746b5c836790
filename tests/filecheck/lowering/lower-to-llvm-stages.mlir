// lower-to-llvm is a pipeline of named passes: ferrox-opt dumps and times each stage.
// RUN: ferrox-opt %s -p lower-to-llvm --print-ir-after-all -o /dev/null 2>&1 | filecheck %s
// RUN: ferrox-opt %s -p lower-to-llvm --time-passes -o /dev/null 2>&1 | filecheck %s --check-prefix=TIME

// CHECK:      // -----// IR Dump After verify-disjoint //----- //
// CHECK:      simt.kernel @copy
// CHECK:      func.func @main
// CHECK:      // -----// IR Dump After extract-device-code //----- //
// CHECK-NOT:  func.func @main
// CHECK:      simt.kernel @copy
// CHECK:      // -----// IR Dump After convert-simt-to-nvvm //----- //
// CHECK-NOT:  simt.kernel
// CHECK:      func.func @copy
// CHECK:      // -----// IR Dump After canonicalize //----- //
// CHECK:      // -----// IR Dump After cse //----- //
// CHECK:      // -----// IR Dump After convert-to-llvm //----- //
// CHECK-NOT:  func.func
// CHECK:      llvm.func @copy
// CHECK-NOT:  IR Dump

// TIME:      {{[0-9.]+}} ms  verify-disjoint
// TIME-NEXT: {{[0-9.]+}} ms  extract-device-code
// TIME-NEXT: {{[0-9.]+}} ms  convert-simt-to-nvvm
// TIME-NEXT: {{[0-9.]+}} ms  canonicalize
// TIME-NEXT: {{[0-9.]+}} ms  cse
// TIME-NEXT: {{[0-9.]+}} ms  convert-to-llvm

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
  func.return
}
