// RUN: ferrox-opt %s --verify-diagnostics --split-input-file
// RUN: not ferrox-opt %s --split-input-file 2>&1 | filecheck %s

// A bad op reports its own file:line:col.
func.func @f(%a: i32) -> i64 {
  // CHECK: diagnostics.mlir:[[# @LINE + 1]]:3: error:
  func.return %a : i32 // expected-error {{re:.*}}
}

// -----

// A parse error is located too; xDSL reports undefined values at the end of the input.
func.func @g() {
  "func.return"(%undefined) : (i32) -> ()
}
// CHECK: diagnostics.mlir:[[# @LINE + 2]]:1: error: values used but not defined: [%undefined]
// expected-error@+1 {{values used but not defined: [%undefined]}}
