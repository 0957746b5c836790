// fuzz-signature: internal error NotImplementedError at xdsl/dialects/builtin.py:format
// fuzz-config: opt-ownership
// fuzz-status: fixed
// written by hand from the signature's cause
func.func @f() {
  %c = arith.constant dense<[1, 2]> : tensor<2xi128>
  func.return
}
