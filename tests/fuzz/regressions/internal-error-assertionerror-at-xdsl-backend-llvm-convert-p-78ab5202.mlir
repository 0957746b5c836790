// fuzz-signature: internal error AssertionError at xdsl/backend/llvm/convert.py:_declare_func
// fuzz-config: opt-llvm
// fuzz-status: fixed
// written by hand from the signature's cause
llvm.func @f(%p: !llvm.ptr {llvm.align = -4 : i64}) {
  llvm.return
}
