// E0425: a value that is not defined
//
// An operand names an SSA value (`%alpah`) that nothing defines: no op result, no argument of
// the enclosing function, kernel or block. Usually a misspelling; ferrox suggests the defined
// name closest to it. (xDSL notices only at the end of the input; ferrox points at the use.)
// doc:begin example
func.func @f(%alpha: f32) -> f32 {
  %beta = arith.addf %alpha, %alpah : f32
  func.return %beta : f32
}
// doc:end
// doc:begin output
// error[E0425]: cannot find value `%alpah` in this scope
//  --> E0425.mlir:2:30
//   |
// 2 |   %beta = arith.addf %alpha, %alpah : f32
//   |                              ^^^^^^ not found in this scope
//   |
//   = help: did you mean `%alpha`?
// doc:end
