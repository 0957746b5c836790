// fuzz-signature: hang at xdsl/utils/mlir_lexer.py:_lex_string_literal
// fuzz-config: opt-llvm
// fuzz-status: fixed
// found by mutating tests/filecheck/targets/ptx-shared.mlir (truncate)
"llvm.nvvm.barrier.cta.sync.aligned.a