// fuzz-signature: unlocated diagnostic: Type not supported: _ : i_
// fuzz-config: opt-ptx
// fuzz-status: fixed
// written by hand from the signature's cause
llvm.func @f(%p: !llvm.ptr {llvm.byval = 3}) {
  llvm.return
}
