// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=32}' | filecheck %s

// tile.exp2 {ftz} (the opt-in: results below 2^-126 are +0) is math.exp2 with the afn flag,
// register by register (to_llvm/math.mlir: ex2.approx.ftz.f32); the default exp2 stays
// math.exp2 without flags (ex2.approx.f32: subnormal results kept).

tile.kernel @ftz(%out: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  %a = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [128]> -> !tile.tile<f32, [128]>
  %e = tile.exp2 %a {ftz} : !tile.tile<f32, [128]>
  %k = tile.exp2 %a : !tile.tile<f32, [128]>
  %s = tile.add %e, %k : !tile.tile<f32, [128]>
  tile.store %s, %out : !tile.tile<f32, [128]>, !tile.partition<f32, [128]>
  tile.return
}

// CHECK:         %[[E0:.*]] = math.exp2 %[[A0:.*]] fastmath<afn> : f32
// CHECK-COUNT-3: math.exp2 %{{.*}} fastmath<afn> : f32
// CHECK-NEXT:    %[[K0:.*]] = math.exp2 %[[A0]] : f32
// CHECK-COUNT-3: math.exp2 %{{[a-z0-9_]+}} : f32
// CHECK-NEXT:    arith.addf %[[E0]], %[[K0]] : f32
