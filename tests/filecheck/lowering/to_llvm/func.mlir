// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// No func op and no cast survives.
// GONE-NOT: func.
// GONE-NOT: unrealized_conversion_cast

// A kernel keeps its discardable attributes and its argument attributes; index becomes i64.
// CHECK-LABEL: llvm.func @kernel(
// CHECK-SAME: %a: !llvm.ptr {llvm.noalias, llvm.readonly}, %n: i64 {llvm.noundef})
// CHECK-SAME: attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
// CHECK-NEXT: llvm.return
func.func @kernel(%a: !llvm.ptr {llvm.noalias, llvm.readonly}, %n: index {llvm.noundef})
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  func.return
}

// A private declaration stays a private declaration, with external linkage as in MLIR.
// CHECK: llvm.func @helper(i64, f32) -> f32 attributes {sym_visibility = "private"}
func.func private @helper(index, f32) -> f32

// An explicit linkage and calling convention carry over.
// CHECK: llvm.func internal ptx_device @inner(%x: f32) -> f32 {
// CHECK-NEXT: llvm.return %x : f32
func.func @inner(%x: f32) -> f32 attributes {llvm.linkage = #llvm.linkage<internal>, llvm.cconv = #llvm.cconv<ptx_device>} {
  func.return %x : f32
}

// Calls: index operands and results are i64 on both sides, no cast in between.
// CHECK-LABEL: llvm.func @caller(
// CHECK-SAME: [[I:%[a-z0-9_]+]]: i64, [[X:%[a-z0-9_]+]]: f32) -> f32 {
// CHECK-NEXT: %y = llvm.call @helper([[I]], [[X]]) : (i64, f32) -> f32
// CHECK-NEXT: %z = llvm.call @inner(%y) : (f32) -> f32
// CHECK-NEXT: %p = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.call @kernel(%p, [[I]]) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT: llvm.return %z : f32
func.func @caller(%i: index, %x: f32) -> f32 {
  %y = func.call @helper(%i, %x) : (index, f32) -> f32
  %z = func.call @inner(%y) : (f32) -> f32
  %p = llvm.mlir.zero : !llvm.ptr
  func.call @kernel(%p, %i) : (!llvm.ptr, index) -> ()
  func.return %z : f32
}

// Returning an index returns i64; every block's arguments are converted.
// CHECK-LABEL: llvm.func @blocks(
// CHECK-SAME: [[I:%[a-z0-9_]+]]: i64) -> i64 {
// CHECK-NEXT: llvm.br ^bb1([[I]] : i64)
// CHECK-NEXT: ^bb1(%j: i64):
// CHECK-NEXT: llvm.return %j : i64
func.func @blocks(%i: index) -> index {
  cf.br ^bb1(%i : index)
^bb1(%j: index):
  func.return %j : index
}
