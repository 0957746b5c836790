// RUN: ferrox-opt %s --verify-diagnostics --split-input-file
// RUN: not ferrox-opt %s --split-input-file 2>&1 | filecheck %s

// A bad op reports its own file:line:col.
func.func @f(%a: i32) -> i64 {
  // CHECK: diagnostics.mlir:[[# @LINE + 1]]:3: error:
  func.return %a : i32 // expected-error {{re:.*}}
}

// -----

// A parse error is located too; xDSL reports undefined values at the end of the input, ferrox
// at the use.
func.func @g() {
  // CHECK: diagnostics.mlir:[[# @LINE + 1]]:17: error[E0425]: cannot find value `%undefined` in this scope
  "func.return"(%undefined) : (i32) -> ()
}
// expected-error@+1 {{values used but not defined: [%undefined]}}
