// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// GONE-NOT: cf.
// GONE-NOT: unrealized_conversion_cast

// Branches keep their block arguments; index arguments become i64 on both sides.
// CHECK-LABEL: llvm.func @loop(
// CHECK-SAME: [[N:%[a-z0-9_]+]]: i64, [[X:%[a-z0-9_]+]]: f32) -> f32 {
// CHECK-NEXT: [[ZERO:%.+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: llvm.br ^[[HEAD:[a-z0-9_]+]]([[ZERO]], [[X]] : i64, f32)
// CHECK-NEXT: ^[[HEAD]]([[I:%[a-z0-9_]+]]: i64, [[ACC:%[a-z0-9_]+]]: f32):
// CHECK-NEXT: [[MORE:%.+]] = llvm.icmp "slt" [[I]], [[N]] : i64
// CHECK-NEXT: llvm.cond_br [[MORE]], ^[[BODY:[a-z0-9_]+]]([[I]] : i64), ^[[EXIT:[a-z0-9_]+]]([[ACC]] : f32)
// CHECK-NEXT: ^[[BODY]]([[J:%[a-z0-9_]+]]: i64):
// CHECK-NEXT: [[ONE:%.+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[NEXT:%.+]] = llvm.add [[J]], [[ONE]] : i64
// CHECK-NEXT: [[TWICE:%.+]] = llvm.fadd [[ACC]], [[ACC]] : f32
// CHECK-NEXT: llvm.br ^[[HEAD]]([[NEXT]], [[TWICE]] : i64, f32)
// CHECK-NEXT: ^[[EXIT]]([[R:%[a-z0-9_]+]]: f32):
// CHECK-NEXT: llvm.return [[R]] : f32
func.func @loop(%n: index, %x: f32) -> f32 {
  %zero = arith.constant 0 : index
  cf.br ^head(%zero, %x : index, f32)
^head(%i: index, %acc: f32):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body(%i : index), ^exit(%acc : f32)
^body(%j: index):
  %one = arith.constant 1 : index
  %next = arith.addi %j, %one : index
  %twice = arith.addf %acc, %acc : f32
  cf.br ^head(%next, %twice : index, f32)
^exit(%r: f32):
  func.return %r : f32
}

// A failed cf.assert traps: the kernel stops instead of running on.
// CHECK-LABEL: llvm.func @checked(
// CHECK-SAME: [[OK:%[a-z0-9_]+]]: i1, [[V:%[a-z0-9_]+]]: i32) -> i32 {
// CHECK-NEXT: llvm.cond_br [[OK]], ^[[REST:[a-z0-9_]+]], ^[[TRAP:[a-z0-9_]+]]
// CHECK-NEXT: ^[[REST]]:
// CHECK-NEXT: llvm.return [[V]] : i32
// CHECK-NEXT: ^[[TRAP]]:
// CHECK-NEXT: llvm.call_intrinsic "llvm.trap"() : () -> ()
// CHECK-NEXT: llvm.unreachable
func.func @checked(%ok: i1, %v: i32) -> i32 {
  cf.assert %ok, "index out of range"
  func.return %v : i32
}
