// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// GONE-NOT: arith.
// GONE-NOT: unrealized_conversion_cast

// CHECK-LABEL: llvm.func @constants()
func.func @constants() -> (i32) {
  // CHECK-NEXT: %c = llvm.mlir.constant(7) : i64
  %c = arith.constant 7 : index
  // CHECK-NEXT: %i = llvm.mlir.constant(-3 : i32) : i32
  %i = arith.constant -3 : i32
  // CHECK-NEXT: %f = llvm.mlir.constant(2.500000e+00 : f32) : f32
  %f = arith.constant 2.5 : f32
  // CHECK-NEXT: %t = llvm.mlir.constant(true) : i1
  %t = arith.constant true
  // CHECK-NEXT: %v = llvm.mlir.constant(dense<1.000000e+00> : vector<4xf32>) : vector<4xf32>
  %v = arith.constant dense<1.0> : vector<4xf32>
  // CHECK-NEXT: %vi = llvm.mlir.constant(dense<[0, 1]> : vector<2xi64>) : vector<2xi64>
  %vi = arith.constant dense<[0, 1]> : vector<2xindex>
  func.return %i : i32
}

// CHECK-LABEL: llvm.func @integers(
// CHECK-SAME: [[A:%[a-z0-9_]+]]: i32, [[B:%[a-z0-9_]+]]: i32)
func.func @integers(%a: i32, %b: i32) {
  // CHECK-NEXT: llvm.add [[A]], [[B]] : i32
  %0 = arith.addi %a, %b : i32
  // CHECK-NEXT: llvm.add [[A]], [[B]] overflow<nsw,nuw> : i32
  %1 = arith.addi %a, %b overflow<nsw, nuw> : i32
  // CHECK-NEXT: llvm.sub [[A]], [[B]] overflow<nsw> : i32
  %2 = arith.subi %a, %b overflow<nsw> : i32
  // CHECK-NEXT: llvm.mul [[A]], [[B]] : i32
  %3 = arith.muli %a, %b : i32
  // CHECK-NEXT: llvm.sdiv [[A]], [[B]] : i32
  %4 = arith.divsi %a, %b : i32
  // CHECK-NEXT: llvm.udiv [[A]], [[B]] : i32
  %5 = arith.divui %a, %b : i32
  // CHECK-NEXT: llvm.srem [[A]], [[B]] : i32
  %6 = arith.remsi %a, %b : i32
  // CHECK-NEXT: llvm.urem [[A]], [[B]] : i32
  %7 = arith.remui %a, %b : i32
  // CHECK-NEXT: llvm.and [[A]], [[B]] : i32
  %8 = arith.andi %a, %b : i32
  // CHECK-NEXT: llvm.or [[A]], [[B]] : i32
  %9 = arith.ori %a, %b : i32
  // CHECK-NEXT: llvm.xor [[A]], [[B]] : i32
  %10 = arith.xori %a, %b : i32
  // CHECK-NEXT: llvm.shl [[A]], [[B]] : i32
  %11 = arith.shli %a, %b : i32
  // CHECK-NEXT: llvm.lshr [[A]], [[B]] : i32
  %12 = arith.shrui %a, %b : i32
  // CHECK-NEXT: llvm.ashr [[A]], [[B]] : i32
  %13 = arith.shrsi %a, %b : i32
  // CHECK-NEXT: llvm.intr.smax([[A]], [[B]]) : (i32, i32) -> i32
  %14 = arith.maxsi %a, %b : i32
  // CHECK-NEXT: llvm.intr.smin([[A]], [[B]]) : (i32, i32) -> i32
  %15 = arith.minsi %a, %b : i32
  // CHECK-NEXT: llvm.intr.umax([[A]], [[B]]) : (i32, i32) -> i32
  %16 = arith.maxui %a, %b : i32
  // CHECK-NEXT: llvm.intr.umin([[A]], [[B]]) : (i32, i32) -> i32
  %17 = arith.minui %a, %b : i32
  // CHECK-NEXT: llvm.return
  func.return
}

// Index arithmetic is i64 arithmetic.
// CHECK-LABEL: llvm.func @index_math(
// CHECK-SAME: [[I:%[a-z0-9_]+]]: i64, [[J:%[a-z0-9_]+]]: i64) -> i64
// CHECK-NEXT: [[S:%[a-z0-9_]+]] = llvm.add [[I]], [[J]] : i64
// CHECK-NEXT: [[P:%[a-z0-9_]+]] = llvm.mul [[S]], [[J]] : i64
// CHECK-NEXT: llvm.return [[P]] : i64
func.func @index_math(%i: index, %j: index) -> index {
  %s = arith.addi %i, %j : index
  %p = arith.muli %s, %j : index
  func.return %p : index
}

// floor division: q - 1 when the remainder is non-zero and its sign differs from the divisor's.
// CHECK-LABEL: llvm.func @floordivsi(
// CHECK-SAME: [[A:%[a-z0-9_]+]]: i32, [[B:%[a-z0-9_]+]]: i32)
// CHECK-NEXT: [[Q:%.+]] = llvm.sdiv [[A]], [[B]] : i32
// CHECK-NEXT: [[R:%.+]] = llvm.srem [[A]], [[B]] : i32
// CHECK-NEXT: [[ZERO:%.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: [[ONE:%.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: [[INEXACT:%.+]] = llvm.icmp "ne" [[R]], [[ZERO]] : i32
// CHECK-NEXT: [[RNEG:%.+]] = llvm.icmp "slt" [[R]], [[ZERO]] : i32
// CHECK-NEXT: [[BNEG:%.+]] = llvm.icmp "slt" [[B]], [[ZERO]] : i32
// CHECK-NEXT: [[DIFFER:%.+]] = llvm.icmp "ne" [[RNEG]], [[BNEG]] : i1
// CHECK-NEXT: [[ADJUST:%.+]] = llvm.and [[INEXACT]], [[DIFFER]] : i1
// CHECK-NEXT: [[QM1:%.+]] = llvm.sub [[Q]], [[ONE]] : i32
// CHECK-NEXT: [[F:%.+]] = llvm.select [[ADJUST]], [[QM1]], [[Q]] : i1, i32
// CHECK-NEXT: llvm.return [[F]] : i32
func.func @floordivsi(%a: i32, %b: i32) -> i32 {
  %0 = arith.floordivsi %a, %b : i32
  func.return %0 : i32
}

// ceil division: q + 1 when inexact and the signs agree.
// CHECK-LABEL: llvm.func @ceildivsi(
// CHECK: [[Q:%.+]] = llvm.sdiv
// CHECK: [[SAME:%.+]] = llvm.icmp "eq"
// CHECK-NEXT: [[ADJUST:%.+]] = llvm.and {{%.+}}, [[SAME]] : i1
// CHECK-NEXT: [[QP1:%.+]] = llvm.add [[Q]], {{%.+}} : i32
// CHECK-NEXT: llvm.select [[ADJUST]], [[QP1]], [[Q]] : i1, i32
func.func @ceildivsi(%a: i32, %b: i32) -> i32 {
  %0 = arith.ceildivsi %a, %b : i32
  func.return %0 : i32
}

// unsigned ceil division: q + 1 when inexact.
// CHECK-LABEL: llvm.func @ceildivui(
// CHECK-NEXT: [[Q:%.+]] = llvm.udiv
// CHECK-NEXT: [[R:%.+]] = llvm.urem
// CHECK-NEXT: [[ZERO:%.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: [[ONE:%.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: [[INEXACT:%.+]] = llvm.icmp "ne" [[R]], [[ZERO]] : i32
// CHECK-NEXT: [[QP1:%.+]] = llvm.add [[Q]], [[ONE]] : i32
// CHECK-NEXT: llvm.select [[INEXACT]], [[QP1]], [[Q]] : i1, i32
func.func @ceildivui(%a: i32, %b: i32) -> i32 {
  %0 = arith.ceildivui %a, %b : i32
  func.return %0 : i32
}

// CHECK-LABEL: llvm.func @floats(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32, [[Y:%[a-z0-9_]+]]: f32)
func.func @floats(%x: f32, %y: f32) {
  // CHECK-NEXT: llvm.fadd [[X]], [[Y]] : f32
  %0 = arith.addf %x, %y : f32
  // CHECK-NEXT: llvm.fsub [[X]], [[Y]] {fastmathFlags = #llvm.fastmath<fast>} : f32
  %1 = arith.subf %x, %y fastmath<fast> : f32
  // CHECK-NEXT: llvm.fmul [[X]], [[Y]] {fastmathFlags = #llvm.fastmath<contract>} : f32
  %2 = arith.mulf %x, %y fastmath<contract> : f32
  // CHECK-NEXT: llvm.fdiv [[X]], [[Y]] {fastmathFlags = #llvm.fastmath<arcp>} : f32
  %3 = arith.divf %x, %y fastmath<arcp> : f32
  // CHECK-NEXT: llvm.fneg [[X]] : f32
  %4 = arith.negf %x : f32
  // CHECK-NEXT: llvm.intr.maximum([[X]], [[Y]]) : (f32, f32) -> f32
  %5 = arith.maximumf %x, %y : f32
  // CHECK-NEXT: llvm.intr.minimum([[X]], [[Y]]) : (f32, f32) -> f32
  %6 = arith.minimumf %x, %y : f32
  // CHECK-NEXT: llvm.intr.maxnum([[X]], [[Y]]) : (f32, f32) -> f32
  %7 = arith.maxnumf %x, %y : f32
  // CHECK-NEXT: llvm.intr.minnum([[X]], [[Y]]) : (f32, f32) -> f32
  %8 = arith.minnumf %x, %y : f32
  // CHECK-NEXT: llvm.return
  func.return
}

// An f32 division without fast-math flags is correctly rounded through f64 (lowering/to_llvm/
// divf.py): no `llvm.fdiv`, so no `div.rn.f32` for ptxas to expand; f64 ones stay `llvm.fdiv`.
// The divisor's reciprocal is made at its first division and shared by the later divisions
// by it in the block; the constants are made once a function, at its entry.
// CHECK-LABEL: llvm.func @divf(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32, [[Y:%[a-z0-9_]+]]: f32, [[U:%[a-z0-9_]+]]: f64, [[V:%[a-z0-9_]+]]: f64)
// CHECK-NEXT: [[ONE:%.+]] = llvm.mlir.constant(1.000000e+00 : f64) : f64
// CHECK-NEXT: [[ZERO:%.+]] = llvm.mlir.constant(0.000000e+00 : f64) : f64
// CHECK-NEXT: [[B:%.+]] = llvm.fpext [[Y]] : f32 to f64
// CHECK-NEXT: [[NB:%.+]] = llvm.fneg [[B]] : f64
// CHECK-NEXT: [[R0:%.+]] = llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.d"([[B]]) : (f64) -> f64
// CHECK-NEXT: [[E1:%.+]] = llvm.intr.fma([[NB]], [[R0]], [[ONE]])
// CHECK-NEXT: [[R1:%.+]] = llvm.intr.fma([[R0]], [[E1]], [[R0]])
// CHECK-NEXT: [[E2:%.+]] = llvm.intr.fma([[NB]], [[R1]], [[ONE]])
// CHECK-NEXT: [[R2:%.+]] = llvm.intr.fma([[R1]], [[E2]], [[R1]])
// CHECK-NEXT: [[E3:%.+]] = llvm.intr.fma([[NB]], [[R2]], [[ONE]])
// CHECK-NEXT: [[R3:%.+]] = llvm.intr.fma([[R2]], [[E3]], [[R2]])
// CHECK-NEXT: [[A:%.+]] = llvm.fpext [[X]] : f32 to f64
// CHECK-NEXT: [[Q:%.+]] = llvm.fmul [[A]], [[R3]] : f64
// CHECK-NEXT: [[RES:%.+]] = llvm.intr.fma([[NB]], [[Q]], [[A]])
// CHECK-NEXT: [[Q2:%.+]] = llvm.intr.fma([[R3]], [[RES]], [[Q]])
// CHECK-NEXT: [[S:%.+]] = llvm.fmul [[A]], [[R0]] : f64
// CHECK-NEXT: [[OK:%.+]] = llvm.fcmp "one" [[Q2]], [[ZERO]] : f64
// CHECK-NEXT: [[SEL:%.+]] = llvm.select [[OK]], [[Q2]], [[S]] : i1, f64
// CHECK-NEXT: [[QUOTIENT:%.+]] = llvm.fptrunc [[SEL]] : f64 to f32
// CHECK-NEXT: [[A2:%.+]] = llvm.fpext [[QUOTIENT]] : f32 to f64
// CHECK-NEXT: llvm.fmul [[A2]], [[R3]] : f64
// CHECK-NOT:  llvm.nvvm.rcp
// CHECK-NOT:  llvm.fdiv {{.*}} : f32
// CHECK:      llvm.fdiv [[U]], [[V]] : f64
// CHECK-NEXT: llvm.return
func.func @divf(%x: f32, %y: f32, %u: f64, %v: f64) {
  %0 = arith.divf %x, %y : f32
  %1 = arith.divf %0, %y : f32
  %2 = arith.divf %u, %v : f64
  func.return
}

// CHECK-LABEL: llvm.func @vectors(
// CHECK-SAME: [[V:%[a-z0-9_]+]]: vector<4xf32>, [[W:%[a-z0-9_]+]]: vector<4xi32>)
// CHECK-NEXT: llvm.fadd [[V]], [[V]] : vector<4xf32>
// CHECK-NEXT: llvm.add [[W]], [[W]] : vector<4xi32>
// CHECK-NEXT: llvm.icmp "slt" [[W]], [[W]] : vector<4xi32>
func.func @vectors(%v: vector<4xf32>, %w: vector<4xi32>) {
  %0 = arith.addf %v, %v : vector<4xf32>
  %1 = arith.addi %w, %w : vector<4xi32>
  %2 = arith.cmpi slt, %w, %w : vector<4xi32>
  func.return
}

// Every cmpi predicate keeps its meaning.
// CHECK-LABEL: llvm.func @cmpi(
// CHECK-SAME: [[A:%[a-z0-9_]+]]: i32, [[B:%[a-z0-9_]+]]: i32, [[I:%[a-z0-9_]+]]: i64, [[J:%[a-z0-9_]+]]: i64)
func.func @cmpi(%a: i32, %b: i32, %i: index, %j: index) {
  // CHECK-NEXT: llvm.icmp "eq" [[A]], [[B]] : i32
  %0 = arith.cmpi eq, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "ne" [[A]], [[B]] : i32
  %1 = arith.cmpi ne, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "slt" [[A]], [[B]] : i32
  %2 = arith.cmpi slt, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "sle" [[A]], [[B]] : i32
  %3 = arith.cmpi sle, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "sgt" [[A]], [[B]] : i32
  %4 = arith.cmpi sgt, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "sge" [[A]], [[B]] : i32
  %5 = arith.cmpi sge, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "ult" [[A]], [[B]] : i32
  %6 = arith.cmpi ult, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "ule" [[A]], [[B]] : i32
  %7 = arith.cmpi ule, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "ugt" [[A]], [[B]] : i32
  %8 = arith.cmpi ugt, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "uge" [[A]], [[B]] : i32
  %9 = arith.cmpi uge, %a, %b : i32
  // CHECK-NEXT: llvm.icmp "ult" [[I]], [[J]] : i64
  %10 = arith.cmpi ult, %i, %j : index
  func.return
}

// Every cmpf predicate keeps its meaning; false and true are constants.
// CHECK-LABEL: llvm.func @cmpf(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32, [[Y:%[a-z0-9_]+]]: f32)
func.func @cmpf(%x: f32, %y: f32) {
  // CHECK-NEXT: llvm.mlir.constant(false) : i1
  %0 = arith.cmpf false, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "oeq" [[X]], [[Y]] : f32
  %1 = arith.cmpf oeq, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "ogt" [[X]], [[Y]] : f32
  %2 = arith.cmpf ogt, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "oge" [[X]], [[Y]] : f32
  %3 = arith.cmpf oge, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "olt" [[X]], [[Y]] : f32
  %4 = arith.cmpf olt, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "ole" [[X]], [[Y]] : f32
  %5 = arith.cmpf ole, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "one" [[X]], [[Y]] : f32
  %6 = arith.cmpf one, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "ord" [[X]], [[Y]] : f32
  %7 = arith.cmpf ord, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "ueq" [[X]], [[Y]] : f32
  %8 = arith.cmpf ueq, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "ugt" [[X]], [[Y]] : f32
  %9 = arith.cmpf ugt, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "uge" [[X]], [[Y]] : f32
  %10 = arith.cmpf uge, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "ult" [[X]], [[Y]] : f32
  %11 = arith.cmpf ult, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "ule" [[X]], [[Y]] : f32
  %12 = arith.cmpf ule, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "une" [[X]], [[Y]] : f32
  %13 = arith.cmpf une, %x, %y : f32
  // CHECK-NEXT: llvm.fcmp "uno" [[X]], [[Y]] : f32
  %14 = arith.cmpf uno, %x, %y : f32
  // CHECK-NEXT: llvm.mlir.constant(true) : i1
  %15 = arith.cmpf true, %x, %y : f32
  func.return
}

// CHECK-LABEL: llvm.func @select(
// CHECK-SAME: [[C:%[a-z0-9_]+]]: i1, [[I:%[a-z0-9_]+]]: i64, [[J:%[a-z0-9_]+]]: i64)
// CHECK-NEXT: [[S:%[a-z0-9_]+]] = llvm.select [[C]], [[I]], [[J]] : i1, i64
// CHECK-NEXT: llvm.return [[S]] : i64
func.func @select(%c: i1, %i: index, %j: index) -> index {
  %s = arith.select %c, %i, %j : index
  func.return %s : index
}

// CHECK-LABEL: llvm.func @casts(
// CHECK-SAME: [[A:%[a-z0-9_]+]]: i32, [[X:%[a-z0-9_]+]]: f32, [[H:%[a-z0-9_]+]]: f16, [[I:%[a-z0-9_]+]]: i64)
func.func @casts(%a: i32, %x: f32, %h: f16, %i: index) {
  // CHECK-NEXT: llvm.sext [[A]] : i32 to i64
  %0 = arith.extsi %a : i32 to i64
  // CHECK-NEXT: llvm.zext [[A]] : i32 to i64
  %1 = arith.extui %a : i32 to i64
  // CHECK-NEXT: llvm.trunc [[A]] : i32 to i8
  %2 = arith.trunci %a : i32 to i8
  // CHECK-NEXT: llvm.sitofp [[A]] : i32 to f32
  %3 = arith.sitofp %a : i32 to f32
  // CHECK-NEXT: llvm.uitofp [[A]] : i32 to f32
  %4 = arith.uitofp %a : i32 to f32
  // CHECK-NEXT: llvm.fptosi [[X]] : f32 to i32
  %5 = arith.fptosi %x : f32 to i32
  // CHECK-NEXT: llvm.fptoui [[X]] : f32 to i32
  %6 = arith.fptoui %x : f32 to i32
  // CHECK-NEXT: llvm.fpext [[H]] : f16 to f32
  %7 = arith.extf %h : f16 to f32
  // CHECK-NEXT: llvm.fptrunc [[X]] : f32 to f16
  %8 = arith.truncf %x : f32 to f16
  // CHECK-NEXT: llvm.bitcast [[X]] : f32 to i32
  %9 = arith.bitcast %x : f32 to i32
  // index is i64: casts to i32 truncate, from i32 sign-extend, to i64 vanish
  // CHECK-NEXT: llvm.trunc [[I]] : i64 to i32
  %10 = arith.index_cast %i : index to i32
  // CHECK-NEXT: [[W:%.+]] = llvm.sext [[A]] : i32 to i64
  %11 = arith.index_cast %a : i32 to index
  // CHECK-NEXT: llvm.add [[W]], [[I]] : i64
  %12 = arith.addi %11, %i : index
  %13 = arith.index_cast %i : index to i64
  // CHECK-NEXT: llvm.mul [[I]], [[I]] : i64
  %14 = arith.muli %13, %13 : i64
  // CHECK-NEXT: llvm.return
  func.return
}
