// fuzz-signature: internal error ValueError at xdsl/ir/core.py:ops
// fuzz-config: compile
// fuzz-status: fixed
// found by mutating tests/filecheck/lowering/to_llvm/cf.mlir (number, line)
  cf.assert %ok, "index out of range"
func.func @loop(%n: index, %x: f32) -> f32 {
  %zero = arith.constant 0 : index
  cf.br ^head(%zero, %x : index, f32)
^head(%i: index, %acc: f32):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body(%i : index), ^exit(%acc : f32)
^body(%j: index):
  %one = arith.constant 1 : index
  %next = arith.addi %j, %one : index
  %twice = arith.addf %acc, %acc : f32
  cf.br ^head(%next, %twice : index, f32)
^exit(%r: f32):
}
func.func @checked(%ok: i1, %v: i32) -> i32 {
}
