// fuzz-signature: internal error ValueError at xdsl/dialects/builtin.py:get_normalized_value
// fuzz-config: opt-ownership
// fuzz-status: fixed
// found by mutating tests/filecheck/targets/ptxas.mlir (number)
llvm.getelementptr%stage[18446744073709551616,%tid]:(!llvm.ptr<3>,i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>