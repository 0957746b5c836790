// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

func.func @barrier_threads_without_id(%n: i32) {
  // expected-error@+1 {{barrier id is missing: `number_of_threads` needs an explicit `id` (0 to 15)}}
  "nvvm.barrier"(%n) <{operandSegmentSizes = array<i32: 0, 1>}> : (i32) -> ()
  func.return
}

// -----

func.func @shfl_result_type(%m: i32, %v: i32) {
  // expected-error@+1 {{result type f32 must equal the shuffled value's type i32}}
  %0 = nvvm.shfl.sync bfly %m, %v, %m, %m : i32 -> f32
  func.return
}

// -----

func.func @shfl_struct_without_flag(%m: i32, %v: i32) {
  // expected-error@+1 {{result type !llvm.struct<(i32, i1)> must equal the shuffled value's type i32 (a struct result needs `return_value_and_is_valid`)}}
  %0 = nvvm.shfl.sync bfly %m, %v, %m, %m : i32 -> !llvm.struct<(i32, i1)>
  func.return
}

// -----

func.func @shfl_flag_needs_struct(%m: i32, %f: f32) {
  // expected-error@+1 {{with `return_value_and_is_valid` the result must be !llvm.struct<(f32, i1)>, found f32}}
  %0 = nvvm.shfl.sync idx %m, %f, %m, %m {return_value_and_is_valid} : f32 -> f32
  func.return
}

// -----

func.func @vote_ballot_result(%m: i32, %p: i1) {
  // expected-error@+1 {{vote.sync ballot returns i32, found i1}}
  %0 = nvvm.vote.sync ballot %m, %p -> i1
  func.return
}

// -----

func.func @vote_any_result(%m: i32, %p: i1) {
  // expected-error@+1 {{vote.sync any returns i1, found i32}}
  %0 = nvvm.vote.sync any %m, %p -> i32
  func.return
}

// -----

func.func @redux_result_type(%m: i32, %v: i32) {
  // expected-error@+1 {{result type i64 must equal the reduced value's type i32}}
  %0 = nvvm.redux.sync add %v, %m : i32 -> i64
  func.return
}

// -----

func.func @atomic_address_space(%p: !llvm.ptr<5>, %v: i32) {
  // expected-error@+1 {{atomics need a generic (0), global (1) or shared (3) pointer, found address space 5}}
  %0 = nvvm.atomic.rmw add %p, %v : !llvm.ptr<5>, i32
  func.return
}

// -----

func.func @atomic_fadd_integer(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error@+1 {{atomic fadd needs an f32 or f64 value, found i32}}
  %0 = nvvm.atomic.rmw fadd %p, %v : !llvm.ptr<1>, i32
  func.return
}

// -----

func.func @atomic_add_float(%p: !llvm.ptr<1>, %v: f32) {
  // expected-error@+1 {{atomic add needs an i32 or i64 value, found f32}}
  %0 = nvvm.atomic.rmw add %p, %v : !llvm.ptr<1>, f32
  func.return
}

// -----

func.func @atomic_cas_width(%p: !llvm.ptr<1>, %v: i16) {
  // expected-error@+1 {{atomic cas needs an i32 or i64 value, found i16}}
  %0 = nvvm.atomic.cas %p, %v, %v : !llvm.ptr<1>, i16
  func.return
}

// -----

func.func @atomic_cas_address_space(%p: !llvm.ptr<4>, %v: i32) {
  // expected-error@+1 {{atomics need a generic (0), global (1) or shared (3) pointer, found address space 4}}
  %0 = nvvm.atomic.cas %p, %v, %v : !llvm.ptr<4>, i32
  func.return
}

// -----

func.func @mma_layout(%h: vector<2xf16>, %c: f32) {
  // expected-error@+1 {{mma.sync m16n8k16 needs layoutA = row and layoutB = col, found col.col}}
  %0 = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<col>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  func.return
}

// -----

func.func @mma_i32_needs_type(%r: i32, %c: f32) {
  // expected-error@+1 {{i32 multiplicands need `multiplicandAPtxType` (bf16 or tf32)}}
  %0 = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  func.return
}

// -----

func.func @mma_b_type_differs(%r: i32, %c: f32) {
  // expected-error@+1 {{multiplicandBPtxType (tf32) must equal the A multiplicand type (bf16)}}
  %0 = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
     multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<tf32>,
     shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  func.return
}

// -----

func.func @mma_unsupported_form(%r: i32, %c: f32) {
  // expected-error@+1 {{unsupported mma.sync form m16n8k16 tf32; supported: m16n8k16 f16, m16n8k16 bf16, m16n8k8 tf32}}
  %0 = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
     multiplicandAPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  func.return
}

// -----

func.func @mma_a_count(%h: vector<2xf16>, %c: f32) {
  // expected-error@+1 {{mma.sync m16n8k16 f16 takes 4 A operands, found 3}}
  %0 = nvvm.mma.sync A[%h, %h, %h] B[%h, %h] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  func.return
}

// -----

func.func @mma_operand_type(%h: vector<2xf16>, %c: f16) {
  // expected-error@+1 {{mma.sync m16n8k16 f16: C operands must be f32, found f16}}
  %0 = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (vector<2xf16>, vector<2xf16>, f16) -> !llvm.struct<(f32, f32, f32, f32)>
  func.return
}

// -----

func.func @mma_result_type(%h: vector<2xf16>, %c: f32) {
  // expected-error@+1 {{mma.sync result must be !llvm.struct<(f32, f32, f32, f32)>, found !llvm.struct<(f32, f32)>}}
  %0 = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32)>
  func.return
}

// -----

func.func @ldmatrix_num(%s: !llvm.ptr<3>) {
  // expected-error@+1 {{ldmatrix loads 1, 2 or 4 matrices, found num = 3}}
  %0 = nvvm.ldmatrix %s {num = 3 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32)>
  func.return
}

// -----

func.func @ldmatrix_address_space(%g: !llvm.ptr<1>) {
  // expected-error@+1 {{ldmatrix reads shared memory: the pointer must be generic (0) or shared (3), found address space 1}}
  %0 = nvvm.ldmatrix %g {num = 1 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr<1>) -> i32
  func.return
}

// -----

func.func @ldmatrix_result(%s: !llvm.ptr<3>) {
  // expected-error@+1 {{ldmatrix with num = 2 returns !llvm.struct<(i32, i32)>, found i32}}
  %0 = nvvm.ldmatrix %s {num = 2 : i32, layout = #nvvm.mma_layout<col>} : (!llvm.ptr<3>) -> i32
  func.return
}

// -----

func.func @mma_types_count(%h: vector<2xf16>, %c: f32) {
  // expected-error@+3 {{expected 3 types (A, B, C), found 2}}
  %0 = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  func.return
}
