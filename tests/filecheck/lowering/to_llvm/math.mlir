// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// GONE-NOT: math.
// GONE-NOT: unrealized_conversion_cast
// No libm call: only NVVM approximate intrinsics and llvm.trap are called by name.
// GONE-NOT: llvm.call_intrinsic "llvm.{{(exp|log|sin|cos|pow|tanh)}}

// Ops NVPTX selects for every float type lower one to one, f64 and vectors included.
// CHECK-LABEL: llvm.func @direct(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32, [[D:%[a-z0-9_]+]]: f64, [[V:%[a-z0-9_]+]]: vector<4xf32>, [[A:%[a-z0-9_]+]]: i32)
func.func @direct(%x: f32, %d: f64, %v: vector<4xf32>, %a: i32) {
  // CHECK-NEXT: llvm.intr.fabs([[X]]) : (f32) -> f32
  %0 = math.absf %x : f32
  // CHECK-NEXT: llvm.intr.sqrt([[D]]) : (f64) -> f64
  %1 = math.sqrt %d : f64
  // CHECK-NEXT: llvm.intr.floor([[V]]) : (vector<4xf32>) -> vector<4xf32>
  %2 = math.floor %v : vector<4xf32>
  // CHECK-NEXT: llvm.intr.ceil([[X]]) : (f32) -> f32
  %3 = math.ceil %x : f32
  // CHECK-NEXT: llvm.intr.trunc([[X]]) : (f32) -> f32
  %4 = math.trunc %x : f32
  // CHECK-NEXT: llvm.intr.round([[X]]) : (f32) -> f32
  %5 = math.round %x : f32
  // CHECK-NEXT: llvm.intr.roundeven([[D]]) : (f64) -> f64
  %6 = math.roundeven %d : f64
  // CHECK-NEXT: llvm.intr.fma([[X]], [[X]], [[X]]) : (f32, f32, f32) -> f32
  %7 = math.fma %x, %x, %x : f32
  // CHECK-NEXT: llvm.intr.copysign([[X]], [[X]]) : (f32, f32) -> f32
  %8 = math.copysign %x, %x : f32
  // CHECK-NEXT: llvm.intr.abs([[A]]) {is_int_min_poison = false} : (i32) -> i32
  %9 = math.absi %a : i32
  // CHECK-NEXT: llvm.intr.ctlz([[A]]) {is_zero_poison = false} : (i32) -> i32
  %10 = math.ctlz %a : i32
  // CHECK-NEXT: llvm.intr.cttz([[A]]) {is_zero_poison = false} : (i32) -> i32
  %11 = math.cttz %a : i32
  // CHECK-NEXT: llvm.intr.ctpop([[A]]) : (i32) -> i32
  %12 = math.ctpop %a : i32
  // f64 rsqrt: 1 / sqrt(x), both correctly rounded
  // CHECK-NEXT: [[ONE:%.+]] = llvm.mlir.constant(1.000000e+00 : f64) : f64
  // CHECK-NEXT: [[ROOT:%.+]] = llvm.intr.sqrt([[D]]) : (f64) -> f64
  // CHECK-NEXT: llvm.fdiv [[ONE]], [[ROOT]] : f64
  %13 = math.rsqrt %d : f64
  // CHECK-NEXT: llvm.return
  func.return
}

// exp2, log2 and rsqrt are one approximate instruction each.
// CHECK-LABEL: llvm.func @single_instruction(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32)
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"([[X]]) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"([[X]]) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"([[X]]) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.tanh.approx.f32"([[X]]) : (f32) -> f32
// CHECK-NEXT: llvm.return
func.func @single_instruction(%x: f32) {
  %0 = math.exp2 %x : f32
  %1 = math.log2 %x : f32
  %2 = math.rsqrt %x : f32
  %3 = math.tanh %x : f32
  func.return
}

// exp(x) = 2^hi * max(1 + lo*ln2, 0.5), hi + lo = x*log2(e) to ~48 bits. The expansions'
// constants are made once a function, at its entry, in the order of their first use.
// CHECK-LABEL: llvm.func @exp(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32) -> f32
// CHECK-NEXT: [[L:%.+]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT: [[LLO:%.+]] = llvm.mlir.constant(1.92596303e-08 : f32) : f32
// CHECK-NEXT: [[LN2:%.+]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK-NEXT: [[ONE:%.+]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT: [[HALF:%.+]] = llvm.mlir.constant(5.000000e-01 : f32) : f32
// CHECK-NEXT: [[HI:%.+]] = llvm.fmul [[X]], [[L]] : f32
// CHECK-NEXT: [[NHI:%.+]] = llvm.fneg [[HI]] : f32
// CHECK-NEXT: [[ERR:%.+]] = llvm.intr.fma([[X]], [[L]], [[NHI]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: [[LO:%.+]] = llvm.intr.fma([[X]], [[LLO]], [[ERR]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: [[SCALE:%.+]] = llvm.intr.fma([[LO]], [[LN2]], [[ONE]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: [[SAFE:%.+]] = llvm.intr.maxnum([[SCALE]], [[HALF]]) : (f32, f32) -> f32
// CHECK-NEXT: [[P:%.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"([[HI]]) : (f32) -> f32
// CHECK-NEXT: [[R:%.+]] = llvm.fmul [[P]], [[SAFE]] : f32
// CHECK-NEXT: llvm.return [[R]] : f32
func.func @exp(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  func.return %0 : f32
}

// log(x) = lg2(x) * ln2, log10(x) = lg2(x) * log10(2).
// CHECK-LABEL: llvm.func @logs(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32)
// CHECK-NEXT: [[LN2:%.+]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK-NEXT: [[LG2:%.+]] = llvm.mlir.constant(3.010300e-01 : f32) : f32
// CHECK-NEXT: [[A:%.+]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"([[X]]) : (f32) -> f32
// CHECK-NEXT: llvm.fmul [[A]], [[LN2]] : f32
// CHECK-NEXT: [[B:%.+]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"([[X]]) : (f32) -> f32
// CHECK-NEXT: llvm.fmul [[B]], [[LG2]] : f32
func.func @logs(%x: f32) {
  %0 = math.log %x : f32
  %1 = math.log10 %x : f32
  func.return
}

// sin and cos reduce the argument by k*2pi (two fma) before the approximate instruction.
// CHECK-LABEL: llvm.func @trig(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32)
// CHECK-NEXT: [[INV:%.+]] = llvm.mlir.constant(0.159154937 : f32) : f32
// CHECK-NEXT: [[HI:%.+]] = llvm.mlir.constant(-6.28318548 : f32) : f32
// CHECK-NEXT: [[LO:%.+]] = llvm.mlir.constant(1.74845553e-07 : f32) : f32
// CHECK-NEXT: [[Q:%.+]] = llvm.fmul [[X]], [[INV]] : f32
// CHECK-NEXT: [[K:%.+]] = llvm.intr.roundeven([[Q]]) : (f32) -> f32
// CHECK-NEXT: [[R1:%.+]] = llvm.intr.fma([[K]], [[HI]], [[X]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: [[R:%.+]] = llvm.intr.fma([[K]], [[LO]], [[R1]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.sin.approx.f"([[R]]) : (f32) -> f32
// CHECK-NEXT: [[Q2:%.+]] = llvm.fmul [[X]], [[INV]] : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
func.func @trig(%x: f32) {
  %0 = math.sin %x : f32
  %1 = math.cos %x : f32
  func.return
}

// powf(x, y) = 2^(y*lg2|x|) with C's sign, NaN and unit cases.
// CHECK-LABEL: llvm.func @powf(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32, [[Y:%[a-z0-9_]+]]: f32) -> f32
// CHECK-COUNT-3: llvm.mlir.constant
// CHECK-NEXT: [[AX:%.+]] = llvm.intr.fabs([[X]]) : (f32) -> f32
// CHECK-NEXT: [[LG:%.+]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"([[AX]]) : (f32) -> f32
// CHECK-NEXT: [[T:%.+]] = llvm.fmul [[Y]], [[LG]] : f32
// CHECK-NEXT: [[P:%.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"([[T]]) : (f32) -> f32
// CHECK: [[YI:%.+]] = llvm.fcmp "oeq" {{%.+}}, [[Y]] : f32
// CHECK: [[NEG:%.+]] = llvm.fcmp "olt" [[X]], {{%.+}} : f32
// CHECK: llvm.fneg [[P]] : f32
// CHECK: llvm.mlir.constant(0x7fc00000 : f32) : f32
// CHECK: [[Y0:%.+]] = llvm.fcmp "oeq" [[Y]], {{%.+}} : f32
// CHECK-NEXT: [[X1:%.+]] = llvm.fcmp "oeq" [[X]], {{%.+}} : f32
// CHECK-NEXT: [[UNIT:%.+]] = llvm.or [[Y0]], [[X1]] : i1
// CHECK-NEXT: [[R:%.+]] = llvm.select [[UNIT]], {{%.+}}, {{%.+}} : i1, f32
// CHECK-NEXT: llvm.return [[R]] : f32
func.func @powf(%x: f32, %y: f32) -> f32 {
  %0 = math.powf %x, %y : f32
  func.return %0 : f32
}

// erf: series below |x| = 0.5, Abramowitz & Stegun 7.1.26 (with exp) above, selected.
// CHECK-LABEL: llvm.func @erf(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32) -> f32
// CHECK: [[C0:%.+]] = llvm.mlir.constant(1.12837923 : f32) : f32
// CHECK: llvm.mlir.constant(0.327591091 : f32) : f32
// CHECK: [[AX:%.+]] = llvm.intr.fabs([[X]]) : (f32) -> f32
// CHECK: [[P:%.+]] = llvm.intr.fma({{%.+}}, {{%.+}}, [[C0]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: [[SMALL:%.+]] = llvm.fmul [[X]], [[P]] : f32
// CHECK: llvm.fdiv
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
// CHECK: [[LARGE:%.+]] = llvm.intr.copysign({{%.+}}, [[X]]) : (f32, f32) -> f32
// CHECK-NEXT: [[SPLIT:%.+]] = llvm.fcmp "olt" [[AX]], {{%.+}} : f32
// CHECK-NEXT: [[R:%.+]] = llvm.select [[SPLIT]], [[SMALL]], [[LARGE]] : i1, f32
// CHECK-NEXT: llvm.return [[R]] : f32
func.func @erf(%x: f32) -> f32 {
  %0 = math.erf %x : f32
  func.return %0 : f32
}

// f16 and bf16 are computed in f32 and rounded back.
// CHECK-LABEL: llvm.func @narrow(
// CHECK-SAME: [[H:%[a-z0-9_]+]]: f16, [[B:%[a-z0-9_]+]]: bf16)
// CHECK-NEXT: [[W:%.+]] = llvm.fpext [[H]] : f16 to f32
// CHECK-NEXT: [[T:%.+]] = llvm.call_intrinsic "llvm.nvvm.tanh.approx.f32"([[W]]) : (f32) -> f32
// CHECK-NEXT: llvm.fptrunc [[T]] : f32 to f16
// CHECK-NEXT: [[WB:%.+]] = llvm.fpext [[B]] : bf16 to f32
// CHECK-NEXT: [[E:%.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"([[WB]]) : (f32) -> f32
// CHECK-NEXT: llvm.fptrunc [[E]] : f32 to bf16
func.func @narrow(%h: f16, %b: bf16) {
  %0 = math.tanh %h : f16
  %1 = math.exp2 %b : bf16
  func.return
}

// exp2 with the afn flag (`tile.exp2 {ftz}`'s form: results below 2^-126 are +0) is
// ex2.approx.ftz.f32, which needs none of the fix-ups ptxas wraps around ex2.approx.f32 to keep
// subnormal results; bf16 through f32 as above.
// CHECK-LABEL: llvm.func @exp2_ftz(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: f32, [[B:%[a-z0-9_]+]]: bf16)
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"([[X]]) : (f32) -> f32
// CHECK-NEXT: [[WB:%.+]] = llvm.fpext [[B]] : bf16 to f32
// CHECK-NEXT: [[E:%.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"([[WB]]) : (f32) -> f32
// CHECK-NEXT: llvm.fptrunc [[E]] : f32 to bf16
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"([[X]]) : (f32) -> f32
func.func @exp2_ftz(%x: f32, %b: bf16) {
  %0 = math.exp2 %x fastmath<afn> : f32
  %1 = math.exp2 %b fastmath<afn> : bf16
  %2 = math.exp2 %x : f32
  func.return
}
