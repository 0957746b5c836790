// fuzz-signature: internal error NotImplementedError at xdsl/dialects/builtin.py:format
// fuzz-config: opt-disjoint
// fuzz-status: fixed
// the fourth campaign's finding (examples/simt/piecewise.mlir, type, type), written by hand: cf.switch on i128
func.func @f(%k: i128) {
  cf.switch %k : i128, [
    default: ^d,
    1: ^d
  ]
^d:
  func.return
}
