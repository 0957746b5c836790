// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// GONE-NOT: memref.
// GONE-NOT: unrealized_conversion_cast

// A static memref is a bare pointer; an access is a GEP at the row-major linear index.
// CHECK-LABEL: llvm.func @tile(
// CHECK-SAME: [[G:%[a-z0-9_]+]]: !llvm.ptr<1>, [[I:%[a-z0-9_]+]]: i64, [[J:%[a-z0-9_]+]]: i64) -> f32
func.func @tile(%g: memref<16xf32, 1>, %i: index, %j: index) -> f32 {
  // CHECK-NEXT: [[N:%.+]] = llvm.mlir.constant(32) : i64
  // CHECK-NEXT: [[BUF:%.+]] = llvm.alloca [[N]] x f32 {alignment = 4 : i64} : (i64) -> !llvm.ptr
  %buf = memref.alloca() : memref<4x8xf32>
  // CHECK-NEXT: [[GP:%.+]] = llvm.getelementptr inbounds [[G]][[[J]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  // CHECK-NEXT: [[V:%.+]] = llvm.load [[GP]] : !llvm.ptr<1> -> f32
  %v = memref.load %g[%j] : memref<16xf32, 1>
  // CHECK-NEXT: [[STRIDE:%.+]] = llvm.mlir.constant(8) : i64
  // CHECK-NEXT: [[ROW:%.+]] = llvm.mul [[I]], [[STRIDE]] : i64
  // CHECK-NEXT: [[LIN:%.+]] = llvm.add [[ROW]], [[J]] : i64
  // CHECK-NEXT: [[P:%.+]] = llvm.getelementptr inbounds [[BUF]][[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.store [[V]], [[P]] : f32, !llvm.ptr
  memref.store %v, %buf[%i, %j] : memref<4x8xf32>
  // CHECK: [[Q:%.+]] = llvm.getelementptr inbounds [[BUF]][{{%.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK-NEXT: [[W:%.+]] = llvm.load [[Q]] : !llvm.ptr -> f32
  // CHECK-NEXT: llvm.return [[W]] : f32
  %w = memref.load %buf[%j, %i] : memref<4x8xf32>
  func.return %w : f32
}

// A rank-0 memref needs no GEP; an explicit alignment is kept.
// CHECK-LABEL: llvm.func @scalar(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: i32)
// CHECK-NEXT: [[ONE:%.+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[S:%.+]] = llvm.alloca [[ONE]] x i32 {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: llvm.store [[X]], [[S]] : i32, !llvm.ptr
// CHECK-NEXT: llvm.load [[S]] : !llvm.ptr -> i32
func.func @scalar(%x: i32) -> i32 {
  %s = memref.alloca() {alignment = 16 : i64} : memref<i32>
  memref.store %x, %s[] : memref<i32>
  %y = memref.load %s[] : memref<i32>
  func.return %y : i32
}
