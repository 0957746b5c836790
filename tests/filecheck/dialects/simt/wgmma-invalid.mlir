// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// Every op-local rule of the warpgroup tensor-core ops (dialects/simt/wgmma.py): shapes and
// types, the warpgroup block, a fence before each wgmma in its block (only wgmma ops, arith ops
// and copies into other arrays between), and the in-flight values (each result of a wgmma, or
// of a wait that leaves groups pending, used once: by a later wgmma's accumulator, a wait, or a
// yield or loop that carries it on, in its own block). The flow half (no tile in flight
// written, nothing in flight at a return) is verify-disjoint's:
// tests/filecheck/passes/verify-disjoint-wgmma-invalid.mlir.

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma' needs n a multiple of 8 from 8 to 256, got 12}}
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 12} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma' with n = 16 takes 8 f32 accumulator values a thread, got 4}}
    %d:4 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:4 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %fs = simt.shared_alloc : !simt.shared<f32, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma' multiplies bf16 or f16, found A of f32}}
    %d:8 = simt.wgmma %fs[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<f32, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %xs = simt.shared_alloc : !simt.shared<bf16, [4000]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma' reads A as 128-byte swizzled rows of a 1-D array: its length must be a multiple of 512 and at least 4096, got [4000]}}
    %d:8 = simt.wgmma %xs[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4000]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %hs = simt.shared_alloc : !simt.shared<f16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma' needs A and B of one type, got bf16 and f16}}
    %d:8 = simt.wgmma %as[%c0], %hs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<f16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [64, 2], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma_fence' is a warpgroup collective: the block must be 1-D with a multiple of 128 threads, got [64, 2]}}
    simt.wgmma_fence
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma_commit' is a warpgroup collective: it needs a kernel whose launch contract names the block}}
    simt.wgmma_commit
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma' needs a 'simt.wgmma_fence' before it in its block, with only wgmma ops, arith ops and copies between}}
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    simt.shared_store %z, %cs[%c0] : !simt.shared<f32, [1024]>
    // expected-error@+1 {{'simt.wgmma' needs a 'simt.wgmma_fence' before it in its block, with only wgmma ops, arith ops and copies between; found 'simt.shared_store'}}
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    // expected-error@+1 {{result 7 of 'simt.wgmma_wait' with pending = 1 is in flight until a 'simt.wgmma_wait' with pending = 0 retires it: it must be used exactly once, by a later 'simt.wgmma', a 'simt.wgmma_wait' or a yield that carries it on, found 0 uses}}
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 1}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{result 0 of 'simt.wgmma' is in flight until a 'simt.wgmma_wait' with pending = 0 retires it: it must be used exactly once, by a later 'simt.wgmma', a 'simt.wgmma_wait' or a yield that carries it on, found 2 uses}}
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    %x = arith.addf %d#0, %z : f32
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{result 0 of 'simt.wgmma' is in flight until a 'simt.wgmma_wait' with pending = 0 retires it: it must be used exactly once, by a later 'simt.wgmma', a 'simt.wgmma_wait' or a yield that carries it on, found 0 uses}}
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %z, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{result 0 of 'simt.wgmma' is in flight until a 'simt.wgmma_wait' with pending = 0 retires it: it may only be the accumulator of a later 'simt.wgmma', an operand of 'simt.wgmma_wait', or carried on by 'simt.yield', 'scf.yield' or 'scf.for', in its own block, found 'arith.addf'}}
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    %x = arith.addf %d#0, %z : f32
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %x, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma_wait' pending must be 0 to 7, got 8}}
    simt.wgmma_wait {pending = 8}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma_store' needs an even stride of at least n = 16, got 17}}
    simt.wgmma_store %cs[%c0], %z, %z, %z, %z, %z, %z, %z, %z {n = 16, stride = 17} : !simt.shared<f32, [1024]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma_store' writes f32 accumulators, found an array of bf16}}
    simt.wgmma_store %as[%c0], %z, %z, %z, %z, %z, %z, %z, %z {n = 16, stride = 16} : !simt.shared<bf16, [4096]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma_store' with n = 16 stores 8 f32 values a thread, got 2}}
    simt.wgmma_store %cs[%c0], %z, %z {n = 16, stride = 16} : !simt.shared<f32, [1024]>
    simt.yield
  }
  simt.return
}


// -----

// A copy between the fence and the wgmma into a tile the wgmma reads: the fence would not make
// it visible to the wgmma.
simt.kernel @k(%x: !simt.slice<bf16>) contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    simt.async_copy %x[%c0], %c8, %bs[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
    // expected-error@+1 {{'simt.wgmma' reads shared memory written before it only through 'simt.wgmma_fence': a 'simt.async_copy' between the fence and the wgmma may write only an array of a 'simt.shared_alloc' that the wgmma does not read}}
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// An in-flight accumulator fed to another position (or another shape): PTX orders accumulator
// accesses across wgmma ops of one shape, each in its own register, only.
simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    // expected-error@+1 {{accumulator 0 of 'simt.wgmma' (m64n16) may still be in flight from result 1 of an m64n16 wgmma: a wgmma in flight may feed only the same accumulator of a wgmma of its shape; retire it with 'simt.wgmma_wait' with pending = 0 first}}
    %e:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%d#1, %d#0, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %f:8 = simt.wgmma_wait %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma' with an MN-major B (b_mn_stride) needs n a multiple of 64, got 32}}
    %d:16 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 32, b_mn_stride = 2048} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:16 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma' b_mn_stride must be a multiple of 512 from 1024 to 130560 (elements between blocks of 64 columns of B), got 1000}}
    %d:32 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 64, b_mn_stride = 1000} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:32 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15, %d#16, %d#17, %d#18, %d#19, %d#20, %d#21, %d#22, %d#23, %d#24, %d#25, %d#26, %d#27, %d#28, %d#29, %d#30, %d#31 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma' reads B as 128-byte swizzled rows of a 1-D array: its length must be a multiple of 512 and at least 5120, got [4096]}}
    %d:64 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 128, b_mn_stride = 4096} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:64 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15, %d#16, %d#17, %d#18, %d#19, %d#20, %d#21, %d#22, %d#23, %d#24, %d#25, %d#26, %d#27, %d#28, %d#29, %d#30, %d#31, %d#32, %d#33, %d#34, %d#35, %d#36, %d#37, %d#38, %d#39, %d#40, %d#41, %d#42, %d#43, %d#44, %d#45, %d#46, %d#47, %d#48, %d#49, %d#50, %d#51, %d#52, %d#53, %d#54, %d#55, %d#56, %d#57, %d#58, %d#59, %d#60, %d#61, %d#62, %d#63 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// The register-A form (simt.wgmma_reg_a): A is the thread's four i32 registers.
simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' takes A as the thread's 4 i32 registers (two 16-bit elements each), got (i32, i32, i32)}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  %h = arith.constant 1.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' takes A as the thread's 4 i32 registers (two 16-bit elements each), got (i32, i32, i32, f32)}}
    %d:8 = "simt.wgmma_reg_a"(%r, %r, %r, %h, %bs, %c0, %z, %z, %z, %z, %z, %z, %z, %z) <{n = 16 : i64, operandSegmentSizes = array<i32: 4, 1, 1, 8>}> : (i32, i32, i32, f32, !simt.shared<bf16, [4096]>, index, f32, f32, f32, f32, f32, f32, f32, f32) -> (f32, f32, f32, f32, f32, f32, f32, f32)
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' needs n a multiple of 8 from 8 to 256, got 12}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 12} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' with n = 16 takes 8 f32 accumulator values a thread, got 4}}
    %d:4 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:4 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  %fs = simt.shared_alloc : !simt.shared<f32, [4096]>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' multiplies bf16 or f16, found B of f32}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %fs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<f32, [4096]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %xs = simt.shared_alloc : !simt.shared<bf16, [1024]>
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' reads B as 128-byte swizzled rows of a 1-D array: its length must be a multiple of 512 and at least 4096, got [1024]}}
    %d:32 = simt.wgmma_reg_a (%r, %r, %r, %r), %xs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 64} : !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:32 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15, %d#16, %d#17, %d#18, %d#19, %d#20, %d#21, %d#22, %d#23, %d#24, %d#25, %d#26, %d#27, %d#28, %d#29, %d#30, %d#31 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' with an MN-major B (b_mn_stride) needs n a multiple of 64, got 32}}
    %d:16 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 32, b_mn_stride = 2048} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:16 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' b_mn_stride must be a multiple of 512 from 1024 to 130560 (elements between blocks of 64 columns of B), got 1000}}
    %d:32 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 64, b_mn_stride = 1000} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:32 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15, %d#16, %d#17, %d#18, %d#19, %d#20, %d#21, %d#22, %d#23, %d#24, %d#25, %d#26, %d#27, %d#28, %d#29, %d#30, %d#31 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{'simt.wgmma_reg_a' reads B as 128-byte swizzled rows of a 1-D array: its length must be a multiple of 512 and at least 5120, got [4096]}}
    %d:64 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 128, b_mn_stride = 4096} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:64 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15, %d#16, %d#17, %d#18, %d#19, %d#20, %d#21, %d#22, %d#23, %d#24, %d#25, %d#26, %d#27, %d#28, %d#29, %d#30, %d#31, %d#32, %d#33, %d#34, %d#35, %d#36, %d#37, %d#38, %d#39, %d#40, %d#41, %d#42, %d#43, %d#44, %d#45, %d#46, %d#47, %d#48, %d#49, %d#50, %d#51, %d#52, %d#53, %d#54, %d#55, %d#56, %d#57, %d#58, %d#59, %d#60, %d#61, %d#62, %d#63 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [64], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma_reg_a' is a warpgroup collective: the block must be 1-D with a multiple of 128 threads, got [64]}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    // expected-error@+1 {{'simt.wgmma_reg_a' needs a 'simt.wgmma_fence' before it in its block, with only wgmma ops, arith ops and copies between}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
  simt.unsafe {
    simt.wgmma_fence
    simt.shared_store %z, %cs[%c0] : !simt.shared<f32, [1024]>
    // expected-error@+1 {{'simt.wgmma_reg_a' needs a 'simt.wgmma_fence' before it in its block, with only wgmma ops, arith ops and copies between; found 'simt.shared_store'}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>, %x: !simt.slice<bf16>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  %c8 = arith.constant 8 : index
  simt.unsafe {
    simt.wgmma_fence
    simt.async_copy %x[%c0], %c8, %bs[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>
    // expected-error@+1 {{'simt.wgmma_reg_a' reads shared memory written before it only through 'simt.wgmma_fence': a 'simt.async_copy' between the fence and the wgmma may write only an array of a 'simt.shared_alloc' that the wgmma does not read}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{result 0 of 'simt.wgmma_reg_a' is in flight until a 'simt.wgmma_wait' with pending = 0 retires it: it must be used exactly once, by a later 'simt.wgmma', a 'simt.wgmma_wait' or a yield that carries it on, found 2 uses}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    %y = arith.addf %d#0, %z : f32
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    // expected-error@+1 {{result 0 of 'simt.wgmma_reg_a' is in flight until a 'simt.wgmma_wait' with pending = 0 retires it: it may only be the accumulator of a later 'simt.wgmma', an operand of 'simt.wgmma_wait', or carried on by 'simt.yield', 'scf.yield' or 'scf.for', in its own block, found 'arith.addf'}}
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    %y = arith.addf %d#0, %z : f32
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %y, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// An in-flight accumulator of a wgmma of another shape, or another position, fed to a wgmma_reg_a
// (and one of a wgmma_reg_a to a wgmma): PTX orders accumulator accesses only across wgmma ops of
// one shape.
simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [4096]>
    // expected-error@+1 {{accumulator 0 of 'simt.wgmma_reg_a' (m64n16) may still be in flight from result 1 of an m64n16 wgmma: a wgmma in flight may feed only the same accumulator of a wgmma of its shape; retire it with 'simt.wgmma_wait' with pending = 0 first}}
    %f:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%d#1, %d#0, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7) {n = 16} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %f#0, %f#1, %f#2, %f#3, %f#4, %f#5, %f#6, %f#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    // expected-error@+1 {{accumulator 0 of 'simt.wgmma' (m64n32) may still be in flight from result 0 of an m64n16 wgmma: a wgmma in flight may feed only the same accumulator of a wgmma of its shape; retire it with 'simt.wgmma_wait' with pending = 0 first}}
    %f:16 = simt.wgmma %as[%c0], %bs[%c0], acc(%d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %z, %z, %z, %z, %z, %z, %z, %z) {n = 32} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    %e:16 = simt.wgmma_wait %f#0, %f#1, %f#2, %f#3, %f#4, %f#5, %f#6, %f#7, %f#8, %f#9, %f#10, %f#11, %f#12, %f#13, %f#14, %f#15 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    // expected-error@+1 {{'simt.wgmma_wait' retired = K names the first K of its 8 operands as retired while groups stay pending: it needs pending > 0 and 0 < K <= 8, got pending = 0, retired = 8}}
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0, retired = 8}
    simt.yield
  }
  simt.return
}
