// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=32}' | filecheck %s

// Elementwise ops run register by register (four registers: a [128] tile over 32 threads);
// tile.full is the scalar itself in every register; cmp ne on floats is une (true on NaN),
// lt on integers slt; astype f32 -> i32 saturates and maps NaN to 0 around an fptosi that only
// sees values in range; neg of an integer is 0 - x. Each constant is made once, at the kernel's
// start (the i32 zero pads the load of %k, maps NaN to 0 and negates).

tile.kernel @ew(%out: !tile.partition<i32, [128]>, %x: !tile.tensor<f32, [?]>, %k: !tile.tensor<i32, [?]>, %s: f32) {
  %a = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<i32, [128]> -> !tile.tile<f32, [128]>
  %n = tile.load_like %k, %out : !tile.tensor<i32, [?]>, !tile.partition<i32, [128]> -> !tile.tile<i32, [128]>
  %f = tile.full %s : f32 -> !tile.tile<f32, [128]>
  %m = tile.maximum %a, %f : !tile.tile<f32, [128]>
  %e = tile.exp %m : !tile.tile<f32, [128]>
  %ne = tile.cmp ne, %a, %e : !tile.tile<f32, [128]> -> !tile.tile<i1, [128]>
  %lt = tile.cmp lt, %n, %n : !tile.tile<i32, [128]> -> !tile.tile<i1, [128]>
  %c = tile.select %ne, %e, %a : !tile.tile<i1, [128]>, !tile.tile<f32, [128]>
  %i = tile.astype %c : !tile.tile<f32, [128]> -> !tile.tile<i32, [128]>
  %neg = tile.neg %i : !tile.tile<i32, [128]>
  tile.store %neg, %out : !tile.tile<i32, [128]>, !tile.partition<i32, [128]>
  tile.return
}

// CHECK-LABEL: simt.kernel @ew(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[IZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant -2.14748365e+09 : f32
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 2.14748365e+09 : f32
// CHECK-NEXT:    %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:    %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:         %[[A0:.*]], %[[A1:.*]], %[[A2:.*]], %[[A3:.*]] = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK:           simt.unchecked_load_chunk %x
// CHECK:           simt.load_chunk %x
// CHECK:         }
// CHECK:         %[[N0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = scf.if %{{.*}} -> (i32, i32, i32, i32) {
// CHECK:           simt.unchecked_load_chunk %k
// CHECK:           simt.load_chunk %k
// CHECK:         }
// CHECK-NEXT:    %[[M0:.*]] = arith.maximumf %[[A0]], %s : f32
// CHECK-NEXT:    arith.maximumf %[[A1]], %s : f32
// CHECK-NEXT:    arith.maximumf %[[A2]], %s : f32
// CHECK-NEXT:    arith.maximumf %[[A3]], %s : f32
// CHECK-NEXT:    %[[E0:.*]] = math.exp %[[M0]] : f32
// CHECK-COUNT-3: math.exp
// CHECK-NEXT:    %[[NE0:.*]] = arith.cmpf une, %[[A0]], %[[E0]] : f32
// CHECK-COUNT-3: arith.cmpf une
// CHECK-NEXT:    arith.cmpi slt, %[[N0]], %[[N0]] : i32
// CHECK-COUNT-3: arith.cmpi slt
// CHECK-NEXT:    %[[C0:.*]] = arith.select %[[NE0]], %[[E0]], %[[A0]] : f32
// CHECK-COUNT-3: arith.select
// CHECK-NEXT:    %[[GE:.*]] = arith.cmpf oge, %[[C0]], %[[LO]] : f32
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpf olt, %[[C0]], %[[HI]] : f32
// CHECK-NEXT:    %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[IN]], %[[C0]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[CONV:.*]] = arith.fptosi %[[SAFE]] : f32 to i32
// CHECK-NEXT:    %[[OVER:.*]] = arith.cmpf oge, %[[C0]], %[[HI]] : f32
// CHECK-NEXT:    %[[R1:.*]] = arith.select %[[OVER]], %[[MAX]], %[[CONV]] : i32
// CHECK-NEXT:    %[[UNDER:.*]] = arith.cmpf olt, %[[C0]], %[[LO]] : f32
// CHECK-NEXT:    %[[R2:.*]] = arith.select %[[UNDER]], %[[MIN]], %[[R1]] : i32
// CHECK-NEXT:    %[[NAN:.*]] = arith.cmpf uno, %[[C0]], %[[C0]] : f32
// CHECK-NEXT:    %[[I0:.*]] = arith.select %[[NAN]], %[[IZERO]], %[[R2]] : i32
// CHECK:         %[[NEG0:.*]] = arith.subi %[[IZERO]], %[[I0]] : i32
// CHECK:         simt.store_chunk %out[%w], %[[NEG0]], %{{.*}}, %{{.*}}, %{{.*}} : !simt.disjoint_slice<i32, tile<[128], 4, arg1>>
