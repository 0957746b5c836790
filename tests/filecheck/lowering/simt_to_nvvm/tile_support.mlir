// RUN: ferrox-opt %s -p convert-simt-to-nvvm --split-input-file | filecheck %s
// RUN: ferrox-opt %s -p convert-simt-to-nvvm,convert-to-llvm --split-input-file | filecheck %s --check-prefix=LLVM

// The tile track's SIMT ops (lowering/simt_to_nvvm/tile_support.py).
// simt.tile_index + simt.store_chunk: chunk c = k * 64 + tid (the contract's 64 threads), its
// tile coordinates from the bits of c * 4, tensor coordinates ctaid * T + e (x for dim 0, y for
// dim 1, z must be 0), the row-major index exact in 128 bits, count = the in-bounds prefix;
// one aligned 16-byte vector store for a whole chunk, else a guarded store per element. The
// function's integer constants are made once, at its entry (lowering/simt_to_nvvm/constants.py).

simt.kernel @store(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index, %k: index, %v: f32) contract<domain = 2, block = [64]> {
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1>>
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, !simt.thread_index<tile<[4, 64], 4, arg1>>
  simt.return
}

// CHECK-LABEL: func.func @store(
// CHECK-NEXT:    %[[P:.*]] = arith.constant 64 : i64
// CHECK:         %[[FIFTEEN:.*]] = arith.constant 15 : i64
// CHECK:         %tid_x = arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT:    %[[K:.*]] = arith.index_cast %k : index to i64
// CHECK-NEXT:    %[[KP:.*]] = arith.muli %[[K]], %[[P]] : i64
// CHECK-NEXT:    %chunk = arith.addi %[[KP]], %tid_x : i64
// CHECK:         %[[FIRST:.*]] = arith.muli %chunk, %{{.*}} : i64
// CHECK:         %[[E1:.*]] = arith.andi %{{.*}}, %{{.*}} : i64
// CHECK:         %ctaid_y = arith.extui %{{.*}} : i32 to i64
// CHECK:         %[[G1:.*]] = arith.addi %{{.*}}, %[[E1]] : i64
// CHECK:         %ctaid_x = arith.extui
// CHECK:         %[[G0:.*]] = arith.addi
// CHECK:         nvvm.read.ptx.sreg.ctaid.z
// CHECK:         %[[W0:.*]] = arith.extui %[[G0]] : i64 to i128
// CHECK:         arith.muli %[[W0]], %{{.*}} : i128
// CHECK:         %flat = arith.trunci %{{.*}} : i128 to i64
// CHECK:         %[[INLEN:.*]] = arith.cmpi ult, %flat, %out_len : i64
// CHECK:         %count = arith.select
// CHECK-NEXT:    %[[ADDR:.*]] = llvm.getelementptr %out[%flat] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK:         %[[BITS:.*]] = llvm.ptrtoint %[[ADDR]] : !llvm.ptr<1> to i64
// CHECK-NEXT:    arith.andi %[[BITS]], %[[FIFTEEN]] : i64
// CHECK:         %vector = arith.andi
// CHECK:         scf.if %vector {
// CHECK:           llvm.insertelement %v
// CHECK:           llvm.store %{{.*}}, %[[ADDR]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT:    } else {
// CHECK:           %[[LANE0:.*]] = arith.cmpi ult, %{{.*}}, %count : i64
// CHECK-NEXT:      scf.if %[[LANE0]] {
// CHECK-NEXT:        %[[A0:.*]] = llvm.getelementptr %[[ADDR]][0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// CHECK-NEXT:        llvm.store %v, %[[A0]] : f32, !llvm.ptr<1>
// CHECK-COUNT-3:   llvm.store %v
// CHECK:         func.return

// LLVM-LABEL: llvm.func @store(
// LLVM:         llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>

// -----

// simt.load_chunk: trap unless i + min(n, 2) <= len; a whole aligned chunk is one invariant
// vector load, the rest guarded loads with the padding. A witness read by simt.witness_value
// is also lowered on its own, to (flat, count > 0).

simt.kernel @load(%x: !simt.slice<f32>, %i: index, %n: index, %p: f32, %out: !simt.disjoint_slice<f32, tile<[64], 2, arg5>>, %d: index) contract<domain = 1, block = [32]> {
  %a, %b = simt.load_chunk %x[%i], %n, %p : !simt.slice<f32> -> f32, f32
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%d) : !simt.thread_index<tile<[64], 2, arg5>>
  %raw = simt.witness_value %w : !simt.thread_index<tile<[64], 2, arg5>>
  simt.store_chunk %out[%w], %a, %b : !simt.disjoint_slice<f32, tile<[64], 2, arg5>>, !simt.thread_index<tile<[64], 2, arg5>>
  simt.return
}

// CHECK-LABEL: func.func @load(
// CHECK:         %[[N:.*]] = arith.minui %{{.*}}, %{{.*}} : i64
// CHECK:         %out_of_range = arith.andi
// CHECK-NEXT:    scf.if %out_of_range {
// CHECK-NEXT:      llvm.call_intrinsic "llvm.trap"() : () -> ()
// CHECK:         %vector = arith.andi
// CHECK:         %a, %b = scf.if %vector -> (f32, f32) {
// CHECK-NEXT:      %[[V:.*]] = llvm.load %{{.*}} {invariant, alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK:           llvm.extractelement %[[V]]
// CHECK:           llvm.extractelement %[[V]]
// CHECK:         } else {
// CHECK:           scf.if %{{.*}} -> (f32) {
// CHECK:             llvm.load %{{.*}} {invariant} : !llvm.ptr<1> -> f32
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %p : f32
// CHECK:         %[[VALID:.*]] = arith.cmpi ne, %count{{.*}}, %{{.*}} : i64
// CHECK:         %raw = arith.index_cast %flat{{.*}} : i64 to index

// -----

// simt.mma_sync is nvvm.mma.sync m16n8k16 row.col; f16 registers are bitcast to vector<2xf16>.
simt.kernel @mma(%a: i32, %c: f32) contract<domain = 1, block = [32]> {
  %d0, %d1, %d2, %d3 = simt.mma_sync bf16 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
  %e0, %e1, %e2, %e3 = simt.mma_sync f16 A[%a, %a, %a, %a] B[%a, %a] C[%d0, %d1, %d2, %d3]
  simt.return
}

// CHECK-LABEL: func.func @mma(
// CHECK:         %[[D:.*]] = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] {shape = #nvvm.shape<m = 16, n = 8, k = 16>{{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT:    %d0 = llvm.extractvalue %[[D]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         llvm.bitcast %a : i32 to vector<2xf16>
// CHECK:         nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%d0, %d1, %d2, %d3] {{.*}}multiplicandAPtxType = #nvvm.mma_type<f16>{{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>

// LLVM-LABEL: llvm.func @mma(
// LLVM:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"
