// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// Every op-local rule of the TMA and mbarrier ops (dialects/simt/tma.py): a barrier is an i64
// element of a 1-D shared array; a TMA load's box (2 dimensions of 1 to 256, rows a multiple of
// 16 bytes, exactly 128 with the 128-byte swizzle), its element type, a tile that holds the box,
// its tensor, rows and cols (and planes) parameters of the kernel, a plane only with its planes.

simt.kernel @k() contract<domain = 1, block = [128]> {
  %bar = simt.shared_alloc : !simt.shared<i32, [2]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.mbarrier_init' needs a barrier in a shared array of i64, found i32}}
    simt.mbarrier_init %bar[%c0], %c0 : !simt.shared<i32, [2]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' needs a box of 2 dimensions of 1 to 256 elements, got [512, 8]}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 512, 8>, swizzle = 0} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' with swizzle = 128 needs box rows of exactly 128 bytes (64 elements of bf16), got 32}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 32>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' needs box rows of a multiple of 16 bytes, got 4 elements of bf16 (8 bytes)}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 4>, swizzle = 0} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' swizzle must be 0 (dense rows) or 128, got 64}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 64} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [2048]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' writes a box of 4096 elements into a 1-D shared array, got [2048]}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [2048]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<i32>, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<i32, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' copies bf16, f16 or f32, found i32}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 32, 32>, swizzle = 0} : !simt.slice<i32>, !simt.shared<i32, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<bf16>, %rows: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' cols must be a parameter of the kernel (the runtime builds the tensor map from the launch's arguments)}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %c64), %tile[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' planes must be a parameter of the kernel (the runtime builds the tensor map from the launch's arguments)}}
    simt.tma_load %x[%c0, %c0] plane %c0 of %c4 shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<bf16>, %planes: index, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' of a 3-D tensor needs both its plane coordinate and its planes (`%x[%r, %c] plane %p of %planes shape(%rows, %cols)`)}}
    "simt.tma_load"(%x, %c0, %c0, %c0, %rows, %cols, %tile, %c0, %bar, %c0) <{box = array<i64: 64, 64>, swizzle = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0>}> : (!simt.slice<bf16>, index, index, index, index, index, !simt.shared<bf16, [4096]>, index, !simt.shared<i64, [1]>, index) -> ()
    simt.yield
  }
  simt.return
}

// -----

simt.func @f(%x: !simt.slice<bf16>, %rows: index, %cols: index) {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  simt.unsafe {
    // expected-error@+1 {{'simt.tma_load' reads through a tensor map the runtime builds from the kernel's parameters: it may only be used in a kernel, not a device function}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}
