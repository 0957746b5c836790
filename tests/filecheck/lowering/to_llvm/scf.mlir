// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// scf goes through xDSL's scf-to-cf patterns first, then to llvm branches.
// GONE-NOT: scf.
// GONE-NOT: cf.
// GONE-NOT: unrealized_conversion_cast

// CHECK-LABEL: llvm.func @sum_to(
// CHECK-SAME: [[N:%[a-z0-9_]+]]: i64) -> i64 {
// CHECK-NEXT: [[LB:%.+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[STEP:%.+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: llvm.br ^[[HEAD:[a-z0-9_]+]]([[LB]], [[LB]] : i64, i64)
// CHECK-NEXT: ^[[HEAD]]([[I:%[a-z0-9_]+]]: i64, [[ACC:%[a-z0-9_]+]]: i64):
// CHECK-NEXT: [[MORE:%.+]] = llvm.icmp "slt" [[I]], [[N]] : i64
// CHECK-NEXT: llvm.cond_br [[MORE]], ^[[BODY:[a-z0-9_]+]], ^[[EXIT:[a-z0-9_]+]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK-NEXT: [[NEXT:%.+]] = llvm.add [[ACC]], [[I]] : i64
// CHECK-NEXT: [[I1:%.+]] = llvm.add [[I]], [[STEP]] : i64
// CHECK-NEXT: llvm.br ^[[HEAD]]([[I1]], [[NEXT]] : i64, i64)
// CHECK-NEXT: ^[[EXIT]]:
// CHECK-NEXT: llvm.return [[ACC]] : i64
func.func @sum_to(%n: index) -> index {
  %lb = arith.constant 0 : index
  %step = arith.constant 1 : index
  %r = scf.for %i = %lb to %n step %step iter_args(%acc = %lb) -> (index) {
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  func.return %r : index
}

// CHECK-LABEL: llvm.func @clamp(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32) -> f32 {
// CHECK-NEXT: [[ZERO:%.+]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT: [[NEG:%.+]] = llvm.fcmp "olt" [[X]], [[ZERO]] : f32
// CHECK-NEXT: llvm.cond_br [[NEG]], ^[[THEN:[a-z0-9_]+]], ^[[ELSE:[a-z0-9_]+]]
// CHECK-NEXT: ^[[THEN]]:
// CHECK-NEXT: llvm.br ^[[JOIN:[a-z0-9_]+]]([[ZERO]] : f32)
// CHECK-NEXT: ^[[ELSE]]:
// CHECK-NEXT: llvm.br ^[[JOIN]]([[X]] : f32)
// CHECK-NEXT: ^[[JOIN]]([[R:%[a-z0-9_]+]]: f32):
// CHECK-NEXT: llvm.br ^[[CONT:[a-z0-9_]+]]
// CHECK-NEXT: ^[[CONT]]:
// CHECK-NEXT: llvm.return [[R]] : f32
func.func @clamp(%x: f32) -> f32 {
  %zero = arith.constant 0.0 : f32
  %neg = arith.cmpf olt, %x, %zero : f32
  %r = scf.if %neg -> (f32) {
    scf.yield %zero : f32
  } else {
    scf.yield %x : f32
  }
  func.return %r : f32
}
