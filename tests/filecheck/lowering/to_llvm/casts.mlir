// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// Every cast the conversion needs folds away, and so do inverse pairs already in the input.
// GONE-NOT: unrealized_conversion_cast

// An llvm op already in the input uses an index value: the cast inserted for it folds with the
// one the conversion of its producer leaves.
// CHECK-LABEL: llvm.func @mixed(
// CHECK-SAME: [[I:%[a-z0-9_]+]]: i64) -> i64
// CHECK-NEXT: [[ONE:%.+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[J:%.+]] = llvm.add [[I]], [[ONE]] : i64
// CHECK-NEXT: [[K:%.+]] = llvm.mul [[J]], [[J]] : i64
// CHECK-NEXT: llvm.return [[K]] : i64
func.func @mixed(%i: index) -> i64 {
  %one = arith.constant 1 : index
  %j = arith.addi %i, %one : index
  %ji = builtin.unrealized_conversion_cast %j : index to i64
  %k = llvm.mul %ji, %ji : i64
  func.return %k : i64
}

// An inverse pair from an earlier conversion folds to its input.
// CHECK-LABEL: llvm.func @pair(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: i64) -> i64
// CHECK-NEXT: llvm.return [[X]] : i64
func.func @pair(%x: i64) -> i64 {
  %a = builtin.unrealized_conversion_cast %x : i64 to index
  %b = builtin.unrealized_conversion_cast %a : index to i64
  func.return %b : i64
}
