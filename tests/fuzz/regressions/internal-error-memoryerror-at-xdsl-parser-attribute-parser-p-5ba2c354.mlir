// fuzz-signature: internal error MemoryError at xdsl/parser/attribute_parser.py:parse_dense_int_or_fp_elements_attr
// fuzz-config: compile
// fuzz-status: fixed
// written by hand from the signature's cause
func.func @f() {
  %c = arith.constant dense<1.0> : tensor<99999999999xf32>
  func.return
}
