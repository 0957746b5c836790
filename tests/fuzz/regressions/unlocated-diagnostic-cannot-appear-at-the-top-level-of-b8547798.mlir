// fuzz-signature: unlocated diagnostic: _ cannot appear at the top level of
// fuzz-config: opt-ptx
// fuzz-status: fixed
// found by mutating tests/filecheck/lowering/simt_to_nvvm/shared.mlir (line); minimised, with terminators added by hand
    simt.sync_threads
builtin.module {
  simt.kernel @tiles(%out: !simt.ptr<f32>) unsafe {
    simt.return
  }
}
