// The op's textual form, its lowering to arith, and the whole lowering to the llvm dialect.
// doc:begin test
// RUN: ferrox-opt %s | ferrox-opt | filecheck %s --check-prefix=ROUNDTRIP
// RUN: ferrox-opt %s -p lower-sat-to-arith | filecheck %s --check-prefix=LOWER
// RUN: ferrox-opt %s -p lower-sat-to-arith,convert-to-llvm | filecheck %s --check-prefix=LLVM

func.func @relu6(%x: f32) -> f32 {
  %y = sat.clamp %x to [0.000000e+00 : f32, 6.000000e+00 : f32] : f32
  func.return %y : f32
}

// ROUNDTRIP: %{{.*}} = sat.clamp %{{.*}} to [0.000000e+00 : f32, 6.000000e+00 : f32] : f32
// LOWER:      %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// LOWER-NEXT: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// LOWER-NEXT: %[[A:.*]] = arith.maximumf %{{.*}}, %[[LO]] : f32
// LOWER-NEXT: %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
// LOWER-NEXT: func.return %[[B]] : f32
// LLVM:       llvm.func @relu6
// LLVM:       llvm.intr.maximum
// LLVM-NEXT:  llvm.intr.minimum
// doc:end
