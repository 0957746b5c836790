// The mlir-opt spellings for watching a pipeline: IR dumps before/after each pass, pass timing.
// RUN: ferrox-opt %s -p verify-disjoint,convert-simt-to-nvvm --print-ir-before-all --print-ir-after-all -o /dev/null 2>&1 | filecheck %s --check-prefix=DUMP
// RUN: ferrox-opt %s -p verify-disjoint,convert-simt-to-nvvm --time-passes -o /dev/null 2>&1 | filecheck %s --check-prefix=TIME
// RUN: ferrox-opt %s -p 'verify-disjoint,convert-simt-to-nvvm' --print-op-generic | filecheck %s --check-prefix=GENERIC

// DUMP:      // -----// IR Dump Before verify-disjoint //----- //
// DUMP:      simt.kernel @copy
// DUMP:      // -----// IR Dump After verify-disjoint //----- //
// DUMP:      simt.kernel @copy
// DUMP:      // -----// IR Dump Before convert-simt-to-nvvm //----- //
// DUMP:      // -----// IR Dump After convert-simt-to-nvvm //----- //
// DUMP-NOT:  simt.kernel
// DUMP:      func.func @copy

// TIME: {{[0-9.]+}} ms  verify-disjoint
// TIME: {{[0-9.]+}} ms  convert-simt-to-nvvm

// GENERIC: "func.func"() <{{.*}}sym_name = "copy"

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
