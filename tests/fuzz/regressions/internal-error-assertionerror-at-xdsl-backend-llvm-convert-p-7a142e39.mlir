// fuzz-signature: internal error AssertionError at xdsl/backend/llvm/convert.py:_convert_global
// fuzz-config: opt-ptx
// fuzz-status: fixed
// found by mutating tests/filecheck/lowering/llvm-export.mlir (truncate, type); a terminator added by hand, so that it gets past the verifier
llvm.mlir.global internal constant @table(dense<[1, 2]> : tensor<2xi32>) {addr_space = 4 : i32, alignment = 8 : i64} : none
llvm.func @vecadd(%a: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.nocapture, llvm.align = 16 : i64},
                  %c: !llvm.ptr<1> {llvm.noalias, llvm.writeonly}, %n: i32)
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>, nvvm.minctasm = 2 : i32} {
  llvm.return
}
