// RUN: ferrox-opt %s -t llvm --split-input-file --verify-diagnostics

// Input that is not GPU code goes to xDSL's exporter (llvm-export-host.mlir); an op it cannot
// convert is a located error, where xdsl-opt stops with a traceback.

llvm.func @add(%a: i32) -> i32 {
  // expected-error@+1 {{'arith.addi' has no LLVM IR form in xDSL's exporter, which -t llvm uses on input that is not GPU code: lower it to the llvm dialect first (-p convert-to-llvm)}}
  %0 = arith.addi %a, %a : i32
  llvm.return %0 : i32
}

// -----

// expected-error@+1 {{'func.func' has no LLVM IR form in xDSL's exporter, which -t llvm uses on input that is not GPU code: lower it to the llvm dialect first (-p convert-to-llvm)}}
func.func @f() {
  func.return
}
