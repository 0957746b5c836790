// fuzz-signature: internal error KeyError at xdsl/parser/core.py:_parse_block
// fuzz-config: opt-lower
// fuzz-status: fixed
// found by mutating tests/filecheck/lowering/to_llvm/cf.mlir (truncate, nesting, name)
func.func@loop(%n:index, %x: f32)  {
  cf.br ^head(%zero, %x : index, f32)
^head(%i: index, %acc: f32):
^head