// fuzz-signature: internal error ValueError at xdsl/ir/core.py:block
// fuzz-config: opt-parse
// fuzz-status: fixed
// found by campaign 8 (seed 24), mutating tests/filecheck/dialects/simt/docs.mlir (line, line): a block label moved to the module's body; minimised by hand
builtin.module {
  simt.func @one(%a: f32) -> f32 {
    simt.return %a : f32
  }
  simt.func @two(%a: f32) -> f32 {
    %r = simt.call @one(%a) : (f32) -> f32
    simt.return %r : f32
  }
^bb0(%old: f32):
}
