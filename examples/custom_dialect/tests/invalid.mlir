// The verifier's error, pinned where it is reported.
// RUN: ferrox-opt %s --verify-diagnostics

// doc:begin invalid
func.func @bad(%x: f32) -> f32 {
  // expected-error@+1 {{empty clamp range: lower bound 6.0 exceeds upper bound 0.0}}
  %y = sat.clamp %x to [6.000000e+00 : f32, 0.000000e+00 : f32] : f32
  func.return %y : f32
}
// doc:end
