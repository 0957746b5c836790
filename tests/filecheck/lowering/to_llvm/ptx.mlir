// RUN: ferrox-opt %s -p convert-to-llvm -t 'ptx{chip=sm_90}' | filecheck %s

// What LLVM 22's NVPTX backend makes of each lowering: the PTX instruction that was meant, and
// never a call (a libm symbol such as expf cannot be linked into a PTX module).
// CHECK-NOT: call

// CHECK-LABEL: {{\) exp\(}}
// CHECK: ex2.approx.f32
// CHECK-NOT: call
func.func @exp(%x: f32) -> f32 {
  %r = math.exp %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) exp2\(}}
// CHECK: ex2.approx.f32
// CHECK-NOT: call
func.func @exp2(%x: f32) -> f32 {
  %r = math.exp2 %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) log\(}}
// CHECK: lg2.approx.f32
// CHECK: mul.rn.f32
// CHECK-NOT: call
func.func @log(%x: f32) -> f32 {
  %r = math.log %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) log2\(}}
// CHECK: lg2.approx.f32
// CHECK-NOT: call
func.func @log2(%x: f32) -> f32 {
  %r = math.log2 %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) log10\(}}
// CHECK: lg2.approx.f32
// CHECK-NOT: call
func.func @log10(%x: f32) -> f32 {
  %r = math.log10 %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) rsqrt\(}}
// CHECK: rsqrt.approx.f32
// CHECK-NOT: call
func.func @rsqrt(%x: f32) -> f32 {
  %r = math.rsqrt %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) sin\(}}
// CHECK: cvt.rni.f32.f32
// CHECK: sin.approx.f32
// CHECK-NOT: call
func.func @sin(%x: f32) -> f32 {
  %r = math.sin %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) cos\(}}
// CHECK: cvt.rni.f32.f32
// CHECK: cos.approx.f32
// CHECK-NOT: call
func.func @cos(%x: f32) -> f32 {
  %r = math.cos %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) tanh\(}}
// CHECK: tanh.approx.f32
// CHECK-NOT: call
func.func @tanh(%x: f32) -> f32 {
  %r = math.tanh %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) powf\(}}
// CHECK: lg2.approx.f32
// CHECK: ex2.approx.f32
// CHECK-NOT: call
func.func @powf(%x: f32, %y: f32) -> f32 {
  %r = math.powf %x, %y : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) erf\(}}
// CHECK: ex2.approx.f32
// CHECK: copysign.f32
// CHECK-NOT: call
func.func @erf(%x: f32) -> f32 {
  %r = math.erf %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) tanh_f16\(}}
// CHECK: cvt.f32.f16
// CHECK: tanh.approx.f32
// CHECK: cvt.rn.f16.f32
// CHECK-NOT: call
func.func @tanh_f16(%x: f16) -> f16 {
  %r = math.tanh %x : f16
  func.return %r : f16
}

// CHECK-LABEL: {{\) sqrt\(}}
// CHECK: sqrt.rn.f32
// CHECK-NOT: call
func.func @sqrt(%x: f32) -> f32 {
  %r = math.sqrt %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) sqrt_f64\(}}
// CHECK: sqrt.rn.f64
// CHECK-NOT: call
func.func @sqrt_f64(%x: f64) -> f64 {
  %r = math.sqrt %x : f64
  func.return %r : f64
}

// CHECK-LABEL: {{\) rsqrt_f64\(}}
// CHECK: sqrt.rn.f64
// CHECK: rcp.rn.f64
// CHECK-NOT: call
func.func @rsqrt_f64(%x: f64) -> f64 {
  %r = math.rsqrt %x : f64
  func.return %r : f64
}

// CHECK-LABEL: {{\) absf\(}}
// CHECK: abs.f32
// CHECK-NOT: call
func.func @absf(%x: f32) -> f32 {
  %r = math.absf %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) floor\(}}
// CHECK: cvt.rmi.f32.f32
// CHECK-NOT: call
func.func @floor(%x: f32) -> f32 {
  %r = math.floor %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) ceil\(}}
// CHECK: cvt.rpi.f32.f32
// CHECK-NOT: call
func.func @ceil(%x: f32) -> f32 {
  %r = math.ceil %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) trunc\(}}
// CHECK: cvt.rzi.f32.f32
// CHECK-NOT: call
func.func @trunc(%x: f32) -> f32 {
  %r = math.trunc %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) roundeven\(}}
// CHECK: cvt.rni.f32.f32
// CHECK-NOT: call
func.func @roundeven(%x: f32) -> f32 {
  %r = math.roundeven %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) fma\(}}
// CHECK: fma.rn.f32
// CHECK-NOT: call
func.func @fma(%x: f32, %y: f32) -> f32 {
  %r = math.fma %x, %y, %x : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) copysign\(}}
// CHECK: copysign.f32
// CHECK-NOT: call
func.func @copysign(%x: f32, %y: f32) -> f32 {
  %r = math.copysign %x, %y : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) maximumf\(}}
// CHECK: max.NaN.f32
// CHECK-NOT: call
func.func @maximumf(%x: f32, %y: f32) -> f32 {
  %r = arith.maximumf %x, %y : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) minimumf\(}}
// CHECK: min.NaN.f32
// CHECK-NOT: call
func.func @minimumf(%x: f32, %y: f32) -> f32 {
  %r = arith.minimumf %x, %y : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) maxnumf\(}}
// CHECK: max.f32
// CHECK-NOT: call
func.func @maxnumf(%x: f32, %y: f32) -> f32 {
  %r = arith.maxnumf %x, %y : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) minnumf\(}}
// CHECK: min.f32
// CHECK-NOT: call
func.func @minnumf(%x: f32, %y: f32) -> f32 {
  %r = arith.minnumf %x, %y : f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) fptosi\(}}
// CHECK: cvt.rzi.s32.f32
// CHECK-NOT: call
func.func @fptosi(%x: f32) -> i32 {
  %r = arith.fptosi %x : f32 to i32
  func.return %r : i32
}

// CHECK-LABEL: {{\) fptoui\(}}
// CHECK: cvt.rzi.u32.f32
// CHECK-NOT: call
func.func @fptoui(%x: f32) -> i32 {
  %r = arith.fptoui %x : f32 to i32
  func.return %r : i32
}

// CHECK-LABEL: {{\) uitofp\(}}
// CHECK: cvt.rn.f32.u32
// CHECK-NOT: call
func.func @uitofp(%a: i32) -> f32 {
  %r = arith.uitofp %a : i32 to f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) sitofp\(}}
// CHECK: cvt.rn.f32.s32
// CHECK-NOT: call
func.func @sitofp(%a: i32) -> f32 {
  %r = arith.sitofp %a : i32 to f32
  func.return %r : f32
}

// CHECK-LABEL: {{\) maxsi\(}}
// CHECK: max.s32
// CHECK-NOT: call
func.func @maxsi(%a: i32, %b: i32) -> i32 {
  %r = arith.maxsi %a, %b : i32
  func.return %r : i32
}

// CHECK-LABEL: {{\) minui\(}}
// CHECK: min.u32
// CHECK-NOT: call
func.func @minui(%a: i32, %b: i32) -> i32 {
  %r = arith.minui %a, %b : i32
  func.return %r : i32
}

// CHECK-LABEL: {{\) absi\(}}
// CHECK: abs.s32
// CHECK-NOT: call
func.func @absi(%a: i32) -> i32 {
  %r = math.absi %a : i32
  func.return %r : i32
}

// CHECK-LABEL: {{\) ctlz\(}}
// CHECK: clz.b32
// CHECK-NOT: call
func.func @ctlz(%a: i32) -> i32 {
  %r = math.ctlz %a : i32
  func.return %r : i32
}

// CHECK-LABEL: {{\) ctpop\(}}
// CHECK: popc.b32
// CHECK-NOT: call
func.func @ctpop(%a: i32) -> i32 {
  %r = math.ctpop %a : i32
  func.return %r : i32
}

// CHECK-LABEL: {{\) floordivsi\(}}
// CHECK: div.s32
// CHECK-NOT: call
func.func @floordivsi(%a: i32, %b: i32) -> i32 {
  %r = arith.floordivsi %a, %b : i32
  func.return %r : i32
}
