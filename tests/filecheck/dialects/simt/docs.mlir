// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// The examples of docs/dialects/simt.md: each snippet is safe code (it passes verify-disjoint)
// and round-trips; its CHECK lines follow its doc:end marker.

builtin.module {
  // doc:begin kernel
  simt.kernel @scale(%x: !simt.slice<f32>, %y: !simt.disjoint_slice<f32, 1d>, %n: index, %s: f32) contract<domain = 1, block = [128], min_cc = 70, requires = [len(arg0) >= arg2, len(arg1) == arg2]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %y[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %v = simt.load %x[%i] : !simt.slice<f32>
      %r = arith.mulf %v, %s : f32
      simt.yield %r : f32
    }
    simt.return
  }
  // doc:end
  // CHECK:      simt.kernel @scale(%x: !simt.slice<f32>, %y: !simt.disjoint_slice<f32, 1d>, %n: index, %s: f32) contract<domain = 1, block = [128], min_cc = 70, requires = [len(arg0) >= arg2, len(arg1) == arg2]> {
  // CHECK-NEXT:   %w = simt.thread_index_1d
  // CHECK-NEXT:   %i = simt.witness_value %w : !simt.thread_index<1d>
  // CHECK-NEXT:   simt.get_mut %y[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  // CHECK-NEXT:   ^bb0(%old: f32):
  // CHECK-NEXT:     %v = simt.load %x[%i] : !simt.slice<f32>
  // CHECK:          simt.yield %r : f32
  // CHECK:        simt.return

  // doc:begin func
  simt.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
    %ax = arith.mulf %a, %x : f32
    %r = arith.addf %ax, %y : f32
    simt.return %r : f32
  }
  simt.kernel @use_axpy(%x: !simt.slice<f32>, %y: !simt.disjoint_slice<f32, 1d>, %a: f32) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %y[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %xi = simt.load %x[%i] : !simt.slice<f32>
      %r = simt.call @axpy(%a, %xi, %old) : (f32, f32, f32) -> f32
      simt.yield %r : f32
    }
    simt.return
  }
  // doc:end
  // CHECK:      simt.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
  // CHECK:        simt.return %r : f32
  // CHECK:      %r = simt.call @axpy(%a, %xi, %old) : (f32, f32, f32) -> f32

  // doc:begin index_2d
  simt.kernel @fill_2d(%out: !simt.disjoint_slice<f32, 2d<64>>, %v: f32) contract<domain = 2, block = [16, 16]> {
    %w = simt.index_2d : !simt.thread_index<2d<64>>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d<64>>, !simt.thread_index<2d<64>> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
    simt.return
  }
  // doc:end
  // CHECK: %w = simt.index_2d : !simt.thread_index<2d<64>>
  // CHECK: simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d<64>>, !simt.thread_index<2d<64>> {

  // doc:begin index_2d_runtime
  simt.kernel @fill_rt(%out: !simt.disjoint_slice<f32, 2d_runtime>, %width: index, %v: f32) contract<domain = 2, block = [32, 8]> {
    %w = simt.index_2d_runtime %width
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
    simt.return
  }
  // doc:end
  // CHECK: %w = simt.index_2d_runtime %width
  // CHECK: simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {

  // doc:begin warp_index
  simt.kernel @per_warp(%out: !simt.disjoint_slice<i32, warp>) contract<domain = 1, block = [128]> {
    %lane = simt.lane_id
    %t = simt.thread_id x
    %c16 = arith.constant 16 : index
    %low = arith.cmpi ult, %lane, %c16 : index
    %mask = simt.ballot %low
    %all = simt.vote_all %low
    %any = simt.vote_any %low
    %w = simt.warp_index
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, warp>, !simt.thread_index<warp> {
    ^bb0(%old: i32):
      simt.yield %mask : i32
    }
    simt.return
  }
  // doc:end
  // CHECK: %lane = simt.lane_id
  // CHECK: %mask = simt.ballot %low
  // CHECK: %all = simt.vote_all %low
  // CHECK: %any = simt.vote_any %low
  // CHECK: %w = simt.warp_index

  // doc:begin ids
  simt.kernel @ids(%out: !simt.disjoint_slice<index, 1d>) contract<domain = 1, block = [64]> {
    %tx = simt.thread_id x
    %bx = simt.block_id x
    %bdx = simt.block_dim x
    %gdx = simt.grid_dim x
    %base = arith.muli %bx, %bdx : index
    %gid = arith.addi %base, %tx : index
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<index, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: index):
      simt.yield %gid : index
    }
    simt.return
  }
  // doc:end
  // CHECK: %tx = simt.thread_id x
  // CHECK: %bx = simt.block_id x
  // CHECK: %bdx = simt.block_dim x
  // CHECK: %gdx = simt.grid_dim x

  // doc:begin shuffle
  simt.kernel @butterfly(%out: !simt.disjoint_slice<f32, warp>, %v: f32, %src: i32) contract<domain = 1, block = [32]> {
    %one = arith.constant 1 : i32
    %a = simt.shuffle xor %v, %one : f32
    %b = simt.shuffle down %a, %one : f32
    %c = simt.shuffle up %b, %one : f32
    %d = simt.shuffle idx %c, %src : f32
    %w = simt.warp_index
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, warp>, !simt.thread_index<warp> {
    ^bb0(%old: f32):
      simt.yield %d : f32
    }
    simt.return
  }
  // doc:end
  // CHECK: %a = simt.shuffle xor %v, %one : f32
  // CHECK: %b = simt.shuffle down %a, %one : f32
  // CHECK: %c = simt.shuffle up %b, %one : f32
  // CHECK: %d = simt.shuffle idx %c, %src : f32

  // doc:begin atomics
  simt.kernel @counters(%c: !simt.atomic_slice<i32>, %f: !simt.atomic_slice<f32>, %v: i32, %x: f32) contract<domain = 1, block = [256], requires = [len(arg0) >= 1, len(arg1) >= 1]> {
    %z = arith.constant 0 : index
    %o1 = simt.atomic_add %c[%z], %v : !simt.atomic_slice<i32>
    %o2 = simt.atomic_sub %c[%z], %v scope cta : !simt.atomic_slice<i32>
    %o3 = simt.atomic_min %c[%z], %v scope sys ordering seq_cst : !simt.atomic_slice<i32>
    %o4 = simt.atomic_max %c[%z], %v ordering acq_rel : !simt.atomic_slice<i32>
    %o5 = simt.atomic_and %c[%z], %v ordering acquire : !simt.atomic_slice<i32>
    %o6 = simt.atomic_or %c[%z], %v ordering release : !simt.atomic_slice<i32>
    %o7 = simt.atomic_xor %c[%z], %v : !simt.atomic_slice<i32>
    %o8 = simt.atomic_exch %c[%z], %v : !simt.atomic_slice<i32>
    %o9 = simt.atomic_cas %c[%z], %o8, %v : !simt.atomic_slice<i32>
    %of = simt.atomic_add %f[%z], %x : !simt.atomic_slice<f32>
    simt.return
  }
  // doc:end
  // CHECK: %o1 = simt.atomic_add %c[%z], %v : !simt.atomic_slice<i32>
  // CHECK: %o2 = simt.atomic_sub %c[%z], %v scope cta : !simt.atomic_slice<i32>
  // CHECK: %o3 = simt.atomic_min %c[%z], %v scope sys ordering seq_cst : !simt.atomic_slice<i32>
  // CHECK: %o4 = simt.atomic_max %c[%z], %v ordering acq_rel : !simt.atomic_slice<i32>
  // CHECK: %o5 = simt.atomic_and %c[%z], %v ordering acquire : !simt.atomic_slice<i32>
  // CHECK: %o6 = simt.atomic_or %c[%z], %v ordering release : !simt.atomic_slice<i32>
  // CHECK: %o7 = simt.atomic_xor %c[%z], %v : !simt.atomic_slice<i32>
  // CHECK: %o8 = simt.atomic_exch %c[%z], %v : !simt.atomic_slice<i32>
  // CHECK: %o9 = simt.atomic_cas %c[%z], %o8, %v : !simt.atomic_slice<i32>
  // CHECK: %of = simt.atomic_add %f[%z], %x : !simt.atomic_slice<f32>

  // doc:begin unsafe
  simt.kernel @raw_copy(%src: !simt.ptr<f32>, %dst: !simt.ptr<f32>, %n: index) {
    %t = simt.thread_id x
    %inb = arith.cmpi ult, %t, %n : index
    scf.if %inb {
      simt.unsafe {
        %v = simt.ptr_load %src[%t] : !simt.ptr<f32>
        simt.ptr_store %v, %dst[%t] : !simt.ptr<f32>
        simt.yield
      }
    }
    simt.return
  }
  // doc:end
  // CHECK: simt.unsafe {
  // CHECK-NEXT: %v = simt.ptr_load %src[%t] : !simt.ptr<f32>
  // CHECK-NEXT: simt.ptr_store %v, %dst[%t] : !simt.ptr<f32>
  // CHECK-NEXT: simt.yield

  // doc:begin shared
  simt.kernel @reverse_block(%in: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64], requires = [len(arg0) >= len(arg1)]> {
    %tile = simt.shared_alloc : !simt.shared<f32, [64]>
    %c63 = arith.constant 63 : index
    %zero = arith.constant 0.0 : f32
    %t = simt.thread_id x
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %n = simt.len %in : !simt.slice<f32>
    %inb = arith.cmpi ult, %i, %n : index
    %v = scf.if %inb -> (f32) {
      %x = simt.load %in[%i] : !simt.slice<f32>
      scf.yield %x : f32
    } else {
      scf.yield %zero : f32
    }
    simt.unsafe {
      simt.shared_store %v, %tile[%t] : !simt.shared<f32, [64]>
      simt.yield
    }
    simt.sync_threads
    %r = arith.subi %c63, %t : index
    %mirrored = simt.unsafe -> f32 {
      %m = simt.shared_load %tile[%r] : !simt.shared<f32, [64]>
      simt.yield %m : f32
    }
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %mirrored : f32
    }
    simt.return
  }
  // doc:end
  // CHECK: %tile = simt.shared_alloc : !simt.shared<f32, [64]>
  // CHECK: simt.shared_store %v, %tile[%t] : !simt.shared<f32, [64]>
  // CHECK: simt.sync_threads
  // CHECK: %mirrored = simt.unsafe -> f32 {
  // CHECK-NEXT: %m = simt.shared_load %tile[%r] : !simt.shared<f32, [64]>
  // CHECK-NEXT: simt.yield %m : f32

  // doc:begin turns
  simt.kernel @turns() contract<domain = 1, block = [256]> {
    %t = simt.thread_id x
    %c128 = arith.constant 128 : index
    %first = arith.cmpi ult, %t, %c128 : index
    %second = arith.cmpi uge, %t, %c128 : index
    simt.unsafe {
      // warpgroup 1 lets 0 go first; each waits for its turn, works, then hands it on
      simt.named_barrier if %second {id = 1, threads = 256, arrive}
      simt.named_barrier if %first {id = 1, threads = 256}
      simt.named_barrier if %first {id = 2, threads = 256, arrive}
      simt.named_barrier if %second {id = 2, threads = 256}
      simt.named_barrier if %second {id = 1, threads = 256, arrive}
      simt.named_barrier if %first {id = 1, threads = 256}
      simt.yield
    }
    simt.return
  }
  // doc:end
  // CHECK: simt.kernel @turns
  // CHECK: simt.named_barrier if %second {id = 1 : i64, threads = 256 : i64, arrive}
  // CHECK-NEXT: simt.named_barrier if %first {id = 1 : i64, threads = 256 : i64}
}
