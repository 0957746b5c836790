// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=32}' | filecheck %s

// tile.mma with FMAs: x [16, 8] and y [8, 16] are staged in shared arrays xs and ys (bf16, as
// loaded), a barrier, then a loop over k: each thread reads its 2 rows of xs and 4 columns of
// ys, widens them exactly to f32 and does 2 x 4 fused multiply-adds into its 8 accumulators,
// which the loop carries (starting from the zero constant, made once at the kernel's start).

tile.kernel @mm(%c: !tile.partition<f32, [16, 16]>, %a: !tile.tensor<bf16, [?, ?]>, %b: !tile.tensor<bf16, [?, ?]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %z = arith.constant 0 : index
  %x = tile.load %a[%i, %z] : !tile.tensor<bf16, [?, ?]> -> !tile.tile<bf16, [16, 8]>
  %y = tile.load %b[%z, %j] : !tile.tensor<bf16, [?, ?]> -> !tile.tile<bf16, [8, 16]>
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [16, 16]>
  %r = tile.mma %x, %y, %zero : !tile.tile<bf16, [16, 8]>, !tile.tile<bf16, [8, 16]>, !tile.tile<f32, [16, 16]>
  tile.store %r, %c : !tile.tile<f32, [16, 16]>, !tile.partition<f32, [16, 16]>
  tile.return
}

// CHECK-LABEL: simt.kernel @mm(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %xs = simt.shared_alloc : !simt.shared<bf16, [128]>
// CHECK:         %ys = simt.shared_alloc : !simt.shared<bf16, [128]>
// CHECK:         simt.shared_store %{{.*}}, %xs
// CHECK:         simt.shared_store %{{.*}}, %ys
// CHECK:         simt.sync_threads
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC0:[0-9a-z_]+]] = %[[ZERO]], %{{.*}} = %[[ZERO]], {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK:           %[[X0:.*]], %[[X1:.*]], %[[Y0:.*]], %[[Y1:.*]], %[[Y2:.*]], %[[Y3:.*]] = simt.unsafe -> bf16, bf16, bf16, bf16, bf16, bf16 {
// CHECK-COUNT-2:     simt.shared_load %xs
// CHECK-COUNT-4:     simt.shared_load %ys
// CHECK:           }
// CHECK-NEXT:      %[[FX0:.*]] = arith.extf %[[X0]] : bf16 to f32
// CHECK-NEXT:      arith.extf %[[X1]] : bf16 to f32
// CHECK-NEXT:      %[[FY0:.*]] = arith.extf %[[Y0]] : bf16 to f32
// CHECK-COUNT-3:   arith.extf
// CHECK-NEXT:      %[[S0:.*]] = math.fma %[[FX0]], %[[FY0]], %[[ACC0]] : f32
// CHECK-COUNT-7:   math.fma
// CHECK-NEXT:      scf.yield %[[S0]],
// CHECK-NEXT:    }
// CHECK:         simt.store_chunk %c[%w]

// f16 (or bf16) inputs that hold whole m16n8k16 fragments run on tensor cores: per 16-wide
// step of k, each lane reads its A fragment (8 halves) of its m16 tile and its B fragment
// (4 halves) of each of its two n8 tiles, packs pairs into i32 (low half first) and issues one
// simt.mma_sync per m16n8 tile of the accumulator.
tile.kernel @tc(%c: !tile.partition<f32, [16, 16]>, %a: !tile.tensor<f16, [?, ?]>, %b: !tile.tensor<f16, [?, ?]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %z = arith.constant 0 : index
  %x = tile.load %a[%i, %z] : !tile.tensor<f16, [?, ?]> -> !tile.tile<f16, [16, 32]>
  %y = tile.load %b[%z, %j] : !tile.tensor<f16, [?, ?]> -> !tile.tile<f16, [32, 16]>
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [16, 16]>
  %r = tile.mma %x, %y, %zero : !tile.tile<f16, [16, 32]>, !tile.tile<f16, [32, 16]>, !tile.tile<f32, [16, 16]>
  tile.store %r, %c : !tile.tile<f32, [16, 16]>, !tile.partition<f32, [16, 16]>
  tile.return
}

// CHECK-LABEL: simt.kernel @tc(
// CHECK:         %xs = simt.shared_alloc : !simt.shared<f16, [528]>
// CHECK:         %ys = simt.shared_alloc : !simt.shared<f16, [512]>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK:           simt.unsafe -> f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16 {
// CHECK-COUNT-8:     simt.shared_load %xs
// CHECK-COUNT-8:     simt.shared_load %ys
// CHECK:           }
// CHECK:           %[[LO:.*]] = arith.bitcast %{{.*}} : f16 to i16
// CHECK-NEXT:      arith.extui %[[LO]] : i16 to i32
// CHECK:           arith.shli
// CHECK:           %[[A0:.*]] = arith.ori
// CHECK:           %[[D0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = simt.mma_sync f16 A[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-NEXT:      %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = simt.mma_sync f16 A[%[[A0]],
// CHECK-NEXT:      scf.yield %[[D0]],
// CHECK:         simt.store_chunk %c[%w]
