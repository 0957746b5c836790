// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=32}' | filecheck %s

// Control flow stays control flow: a loop-carried tile becomes its registers (here four: a
// [64] tile in chunks of 4, threads 16 and up replicas), the zero it starts from is made in
// that layout before the loop; scf.if yields registers; scalar code is copied. Constants are
// made once, at the kernel's start: the loop's zero and the else branch's are one.

tile.kernel @loop(%out: !tile.partition<f32, [64]>, %x: !tile.tensor<f32, [?]>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = tile.block_id 0
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [64]>
  %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [64]>) {
    %t = tile.load %x[%k] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [64]>
    %next = tile.add %acc, %t : !tile.tile<f32, [64]>
    scf.yield %next : !tile.tile<f32, [64]>
  }
  %first = arith.cmpi eq, %i, %c0 : index
  %r = scf.if %first -> (!tile.tile<f32, [64]>) {
    scf.yield %sum : !tile.tile<f32, [64]>
  } else {
    scf.yield %zero : !tile.tile<f32, [64]>
  }
  tile.store %r, %out : !tile.tile<f32, [64]>, !tile.partition<f32, [64]>
  tile.return
}

// CHECK-LABEL: simt.kernel @loop(
// CHECK:         %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %i = simt.block_id x
// CHECK-NEXT:    %[[S0:.*]], %[[S1:.*]], %[[S2:.*]], %[[S3:.*]] = scf.for %k = %c0 to %n step %c1 iter_args(%[[A0:[0-9]+]] = %[[Z]], %[[A1:[0-9]+]] = %[[Z]], %{{[0-9]+}} = %[[Z]], %{{[0-9]+}} = %[[Z]]) -> (f32, f32, f32, f32) {
// CHECK:           %[[T0:.*]], %[[T1:.*]], %{{.*}}, %{{.*}} = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK:             simt.unchecked_load_chunk %x[%[[FLAT:.*]]] : !simt.slice<f32> -> f32, f32, f32, f32
// CHECK:           } else {
// CHECK:             simt.load_chunk %x[%[[FLAT]]], %count, %{{.*}} : !simt.slice<f32> -> f32, f32, f32, f32
// CHECK:           }
// CHECK-NEXT:      %[[N0:.*]] = arith.addf %[[A0]], %[[T0]] : f32
// CHECK-NEXT:      %[[N1:.*]] = arith.addf %[[A1]], %[[T1]] : f32
// CHECK-COUNT-2:   arith.addf
// CHECK-NEXT:      scf.yield %[[N0]], %[[N1]], %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %first = arith.cmpi eq, %i, %c0 : index
// CHECK-NEXT:    %[[R0:.*]], %[[R1:.*]], %[[R2:.*]], %[[R3:.*]] = scf.if %first -> (f32, f32, f32, f32) {
// CHECK-NEXT:      scf.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]] : f32, f32, f32, f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[Z]], %[[Z]], %[[Z]], %[[Z]] : f32, f32, f32, f32
// CHECK-NEXT:    }
// CHECK:         simt.store_chunk %out[%w], %[[R0]], %[[R1]], %[[R2]], %[[R3]]
