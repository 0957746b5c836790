// fuzz-signature: unlocated diagnostic: _ cannot appear at the top level of
// fuzz-config: compile
// fuzz-status: fixed
// the third campaign's finding (tests/filecheck/lowering/to_llvm/nvvm.mlir, line), written by hand: an nvvm op at the top level

nvvm.barrier0
