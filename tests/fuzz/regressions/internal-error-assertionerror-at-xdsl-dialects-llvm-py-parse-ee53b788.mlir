// fuzz-signature: internal error AssertionError at xdsl/dialects/llvm.py:parse
// fuzz-config: compile
// fuzz-status: fixed
// found by mutating tests/filecheck/targets/ptxas.mlir (type, truncate, name)
llvm.mlir.global@stage(){addr_space=3:f64,alignment = 16 : i64} : !llvm.array<256 x f32>
