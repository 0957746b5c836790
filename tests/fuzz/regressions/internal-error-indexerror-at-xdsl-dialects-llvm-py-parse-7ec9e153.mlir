// fuzz-signature: internal error IndexError at xdsl/dialects/llvm.py:parse
// fuzz-config: compile
// fuzz-status: fixed
// written by hand from the signature's cause
llvm.func @f(%c: i32) {
  %0 = llvm.alloca %c x i32 : () -> !llvm.ptr
  llvm.return
}
