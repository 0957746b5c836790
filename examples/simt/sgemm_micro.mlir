// sgemm_micro: C = A * B (row-major f32, A m x k, B k x n, C m x n), each block a 128 x 128
// tile of C and each of its 256 threads an 8 x 8 register micro-tile: the SIMT SGEMM as a user
// writes it for speed, with the dialect's own ops and its safety rules intact.
// - Output: chunk witnesses of the `tile<[128, 128], 8, arg3>` space (`simt.tile_index`): chunk i
//   of thread t is row t / 16 + 16 i, columns 8 (t % 16) .. + 7 of the block's tile, so the
//   thread's 64 accumulators are exactly its 8 chunks, each written by `simt.store_chunk` (masked
//   at ragged edges; no two threads share an element).
// - Operands: 16-wide k tiles copied global -> shared with `simt.async_copy` (cp.async, 16 bytes a
//   copy, zero-filled past the matrices' edges: the global side is bounds-checked), double
//   buffered: tile kt + 1 is in flight while tile kt is multiplied. One wait and one barrier per
//   tile: after them tile kt has landed for every thread, and every thread is done reading the
//   stage the next copies overwrite.
// - Inner loop: per k, the thread's 8 x values (`simt.shared_load`, broadcast within each half
//   warp) and 8 y values (two 16-byte `simt.shared_load_vector`), then 64 fused multiply-adds in k
//   order. Shared accesses are unchecked, so they sit in `simt.unsafe`.
// - A stage of y keeps its 4-column groups permuted: global columns 8c .. 8c + 3 at 4c, 8c + 4 ..
//   8c + 7 at 64 + 4c. Each of a thread's two y loads then reads, across a half warp, 256
//   consecutive bytes, where the plain layout puts the 16 threads' groups 32 bytes apart (two
//   threads of a quarter warp on the same banks): 0.68 -> 0.72 of cuBLAS on the H200.
// The grid is (ceil(m / 128), ceil(n / 128)): block (x, y) computes rows 128 x, columns 128 y.
builtin.module {
  // doc:begin sgemm_micro
  simt.kernel @sgemm_micro(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %c: !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, %m: index, %n: index, %k: index) contract<domain = 2, block = [256], requires = [len(arg0) >= arg3 * arg5, len(arg1) >= arg5 * arg4, len(arg2) == arg3 * arg4]> {
    // Two stages of x (128 rows of 16, padded to 20: 16-byte aligned rows, and the two rows a
    // warp reads at once fall in different banks) and of y (16 rows of 128, 4-column groups
    // permuted: group q at 64 (q % 2) + 4 (q / 2)).
    %as = simt.shared_alloc : !simt.shared<f32, [5120]>
    %bs = simt.shared_alloc : !simt.shared<f32, [4096]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %c20 = arith.constant 20 : index
    %c31 = arith.constant 31 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c2560 = arith.constant 2560 : index
    %c2048 = arith.constant 2048 : index
    %c48 = arith.constant 48 : index
    %c64 = arith.constant 64 : index
    %c80 = arith.constant 80 : index
    %c96 = arith.constant 96 : index
    %c112 = arith.constant 112 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.000000e+00 : f32
    %t = simt.thread_id x
    %bm = simt.block_id x
    %bn = simt.block_id y
    %row0 = arith.muli %bm, %c128 : index
    %col0 = arith.muli %bn, %c128 : index
    %k15 = arith.addi %k, %c15 : index
    %tiles = arith.divui %k15, %c16 : index
    // This thread's copies: chunks t and t + 256 of x's 128 x 16 tile (4 chunks a row) and of
    // y's 16 x 128 tile (32 chunks a row; chunk q of a row lands at 64 (q % 2) + 4 (q / 2)).
    %ac0 = arith.addi %t, %c0 : index
    %ac1 = arith.addi %t, %c256 : index
    %ar0 = arith.divui %ac0, %c4 : index
    %akc0 = arith.remui %ac0, %c4 : index
    %akk0 = arith.muli %akc0, %c4 : index
    %agr0 = arith.addi %row0, %ar0 : index
    %arok0 = arith.cmpi ult, %agr0, %m : index
    %aro0 = arith.muli %ar0, %c20 : index
    %aso0 = arith.addi %aro0, %akk0 : index
    %br0 = arith.divui %ac0, %c32 : index
    %bnc0 = arith.remui %ac0, %c32 : index
    %bnn0 = arith.muli %bnc0, %c4 : index
    %bgc0 = arith.addi %col0, %bnn0 : index
    %bcok0 = arith.cmpi ult, %bgc0, %n : index
    %bcleft0 = arith.subi %n, %bgc0 : index
    %bcmax0 = arith.minui %bcleft0, %c4 : index
    %bro0 = arith.muli %br0, %c128 : index
    %bqo0 = arith.remui %bnc0, %c2 : index
    %bqh0 = arith.muli %bqo0, %c64 : index
    %bqd0 = arith.divui %bnc0, %c2 : index
    %bql0 = arith.muli %bqd0, %c4 : index
    %bys0 = arith.addi %bqh0, %bql0 : index
    %bso0 = arith.addi %bro0, %bys0 : index
    %ar1 = arith.divui %ac1, %c4 : index
    %akc1 = arith.remui %ac1, %c4 : index
    %akk1 = arith.muli %akc1, %c4 : index
    %agr1 = arith.addi %row0, %ar1 : index
    %arok1 = arith.cmpi ult, %agr1, %m : index
    %aro1 = arith.muli %ar1, %c20 : index
    %aso1 = arith.addi %aro1, %akk1 : index
    %br1 = arith.divui %ac1, %c32 : index
    %bnc1 = arith.remui %ac1, %c32 : index
    %bnn1 = arith.muli %bnc1, %c4 : index
    %bgc1 = arith.addi %col0, %bnn1 : index
    %bcok1 = arith.cmpi ult, %bgc1, %n : index
    %bcleft1 = arith.subi %n, %bgc1 : index
    %bcmax1 = arith.minui %bcleft1, %c4 : index
    %bro1 = arith.muli %br1, %c128 : index
    %bqo1 = arith.remui %bnc1, %c2 : index
    %bqh1 = arith.muli %bqo1, %c64 : index
    %bqd1 = arith.divui %bnc1, %c2 : index
    %bql1 = arith.muli %bqd1, %c4 : index
    %bys1 = arith.addi %bqh1, %bql1 : index
    %bso1 = arith.addi %bro1, %bys1 : index
    // This thread's outputs: rows t / 16 + 16 i (the chunk witnesses' rows), 8 columns from
    // 8 (t % 16); the x rows it reads and where its y columns are in a stage (4 (t % 16) and
    // 64 + 4 (t % 16): the permuted groups).
    %tr = arith.divui %t, %c16 : index
    %tc = arith.remui %t, %c16 : index
    %ycol = arith.muli %tc, %c4 : index
    %xr0 = arith.addi %tr, %c0 : index
    %xo0 = arith.muli %xr0, %c20 : index
    %xr1 = arith.addi %tr, %c16 : index
    %xo1 = arith.muli %xr1, %c20 : index
    %xr2 = arith.addi %tr, %c32 : index
    %xo2 = arith.muli %xr2, %c20 : index
    %xr3 = arith.addi %tr, %c48 : index
    %xo3 = arith.muli %xr3, %c20 : index
    %xr4 = arith.addi %tr, %c64 : index
    %xo4 = arith.muli %xr4, %c20 : index
    %xr5 = arith.addi %tr, %c80 : index
    %xo5 = arith.muli %xr5, %c20 : index
    %xr6 = arith.addi %tr, %c96 : index
    %xo6 = arith.muli %xr6, %c20 : index
    %xr7 = arith.addi %tr, %c112 : index
    %xo7 = arith.muli %xr7, %c20 : index
    // Tile %c0 into stage %c0 (count 0 past the end: zeros, nothing read).
    %pk0 = arith.muli %c0, %c16 : index
    %paoff = arith.muli %c0, %c2560 : index
    %pboff = arith.muli %c0, %c2048 : index
    %pacol0 = arith.addi %pk0, %akk0 : index
    %pacok0 = arith.cmpi ult, %pacol0, %k : index
    %paok0 = arith.andi %arok0, %pacok0 : i1
    %paleft0 = arith.subi %k, %pacol0 : index
    %pamax0 = arith.minui %paleft0, %c4 : index
    %pan0 = arith.select %paok0, %pamax0, %c0 : index
    %parow0 = arith.muli %agr0, %k : index
    %paflat0 = arith.addi %parow0, %pacol0 : index
    %pai0 = arith.select %paok0, %paflat0, %c0 : index
    %paat0 = arith.addi %paoff, %aso0 : index
    %pbrow0 = arith.addi %pk0, %br0 : index
    %pbrok0 = arith.cmpi ult, %pbrow0, %k : index
    %pbok0 = arith.andi %pbrok0, %bcok0 : i1
    %pbn0 = arith.select %pbok0, %bcmax0, %c0 : index
    %pbrn0 = arith.muli %pbrow0, %n : index
    %pbflat0 = arith.addi %pbrn0, %bgc0 : index
    %pbi0 = arith.select %pbok0, %pbflat0, %c0 : index
    %pbat0 = arith.addi %pboff, %bso0 : index
    %pacol1 = arith.addi %pk0, %akk1 : index
    %pacok1 = arith.cmpi ult, %pacol1, %k : index
    %paok1 = arith.andi %arok1, %pacok1 : i1
    %paleft1 = arith.subi %k, %pacol1 : index
    %pamax1 = arith.minui %paleft1, %c4 : index
    %pan1 = arith.select %paok1, %pamax1, %c0 : index
    %parow1 = arith.muli %agr1, %k : index
    %paflat1 = arith.addi %parow1, %pacol1 : index
    %pai1 = arith.select %paok1, %paflat1, %c0 : index
    %paat1 = arith.addi %paoff, %aso1 : index
    %pbrow1 = arith.addi %pk0, %br1 : index
    %pbrok1 = arith.cmpi ult, %pbrow1, %k : index
    %pbok1 = arith.andi %pbrok1, %bcok1 : i1
    %pbn1 = arith.select %pbok1, %bcmax1, %c0 : index
    %pbrn1 = arith.muli %pbrow1, %n : index
    %pbflat1 = arith.addi %pbrn1, %bgc1 : index
    %pbi1 = arith.select %pbok1, %pbflat1, %c0 : index
    %pbat1 = arith.addi %pboff, %bso1 : index
    simt.unsafe {
      simt.async_copy %a[%pai0], %pan0, %as[%paat0] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [5120]>
      simt.async_copy %b[%pbi0], %pbn0, %bs[%pbat0] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [4096]>
      simt.async_copy %a[%pai1], %pan1, %as[%paat1] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [5120]>
      simt.async_copy %b[%pbi1], %pbn1, %bs[%pbat1] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [4096]>
      simt.yield
    }
    simt.async_commit
    %sum:64 = scf.for %kt = %c0 to %tiles step %c1 iter_args(%acc0_0 = %zero, %acc0_1 = %zero, %acc0_2 = %zero, %acc0_3 = %zero, %acc0_4 = %zero, %acc0_5 = %zero, %acc0_6 = %zero, %acc0_7 = %zero, %acc1_0 = %zero, %acc1_1 = %zero, %acc1_2 = %zero, %acc1_3 = %zero, %acc1_4 = %zero, %acc1_5 = %zero, %acc1_6 = %zero, %acc1_7 = %zero, %acc2_0 = %zero, %acc2_1 = %zero, %acc2_2 = %zero, %acc2_3 = %zero, %acc2_4 = %zero, %acc2_5 = %zero, %acc2_6 = %zero, %acc2_7 = %zero, %acc3_0 = %zero, %acc3_1 = %zero, %acc3_2 = %zero, %acc3_3 = %zero, %acc3_4 = %zero, %acc3_5 = %zero, %acc3_6 = %zero, %acc3_7 = %zero, %acc4_0 = %zero, %acc4_1 = %zero, %acc4_2 = %zero, %acc4_3 = %zero, %acc4_4 = %zero, %acc4_5 = %zero, %acc4_6 = %zero, %acc4_7 = %zero, %acc5_0 = %zero, %acc5_1 = %zero, %acc5_2 = %zero, %acc5_3 = %zero, %acc5_4 = %zero, %acc5_5 = %zero, %acc5_6 = %zero, %acc5_7 = %zero, %acc6_0 = %zero, %acc6_1 = %zero, %acc6_2 = %zero, %acc6_3 = %zero, %acc6_4 = %zero, %acc6_5 = %zero, %acc6_6 = %zero, %acc6_7 = %zero, %acc7_0 = %zero, %acc7_1 = %zero, %acc7_2 = %zero, %acc7_3 = %zero, %acc7_4 = %zero, %acc7_5 = %zero, %acc7_6 = %zero, %acc7_7 = %zero) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
      // Tile kt has landed in stage kt % 2 and every thread is done with the other stage.
      simt.async_wait {pending = 0}
      simt.sync_threads
      %next = arith.addi %kt, %c1 : index
      %more = arith.cmpi ult, %next, %tiles : index
      %big = arith.constant -1 : index
      %nt = arith.select %more, %next, %big : index
      %ns = arith.remui %next, %c2 : index
      // Tile %nt into stage %ns (count 0 past the end: zeros, nothing read).
      %qk0 = arith.muli %nt, %c16 : index
      %qaoff = arith.muli %ns, %c2560 : index
      %qboff = arith.muli %ns, %c2048 : index
      %qacol0 = arith.addi %qk0, %akk0 : index
      %qacok0 = arith.cmpi ult, %qacol0, %k : index
      %qaok0 = arith.andi %arok0, %qacok0 : i1
      %qaleft0 = arith.subi %k, %qacol0 : index
      %qamax0 = arith.minui %qaleft0, %c4 : index
      %qan0 = arith.select %qaok0, %qamax0, %c0 : index
      %qarow0 = arith.muli %agr0, %k : index
      %qaflat0 = arith.addi %qarow0, %qacol0 : index
      %qai0 = arith.select %qaok0, %qaflat0, %c0 : index
      %qaat0 = arith.addi %qaoff, %aso0 : index
      %qbrow0 = arith.addi %qk0, %br0 : index
      %qbrok0 = arith.cmpi ult, %qbrow0, %k : index
      %qbok0 = arith.andi %qbrok0, %bcok0 : i1
      %qbn0 = arith.select %qbok0, %bcmax0, %c0 : index
      %qbrn0 = arith.muli %qbrow0, %n : index
      %qbflat0 = arith.addi %qbrn0, %bgc0 : index
      %qbi0 = arith.select %qbok0, %qbflat0, %c0 : index
      %qbat0 = arith.addi %qboff, %bso0 : index
      %qacol1 = arith.addi %qk0, %akk1 : index
      %qacok1 = arith.cmpi ult, %qacol1, %k : index
      %qaok1 = arith.andi %arok1, %qacok1 : i1
      %qaleft1 = arith.subi %k, %qacol1 : index
      %qamax1 = arith.minui %qaleft1, %c4 : index
      %qan1 = arith.select %qaok1, %qamax1, %c0 : index
      %qarow1 = arith.muli %agr1, %k : index
      %qaflat1 = arith.addi %qarow1, %qacol1 : index
      %qai1 = arith.select %qaok1, %qaflat1, %c0 : index
      %qaat1 = arith.addi %qaoff, %aso1 : index
      %qbrow1 = arith.addi %qk0, %br1 : index
      %qbrok1 = arith.cmpi ult, %qbrow1, %k : index
      %qbok1 = arith.andi %qbrok1, %bcok1 : i1
      %qbn1 = arith.select %qbok1, %bcmax1, %c0 : index
      %qbrn1 = arith.muli %qbrow1, %n : index
      %qbflat1 = arith.addi %qbrn1, %bgc1 : index
      %qbi1 = arith.select %qbok1, %qbflat1, %c0 : index
      %qbat1 = arith.addi %qboff, %bso1 : index
      simt.unsafe {
        simt.async_copy %a[%qai0], %qan0, %as[%qaat0] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [5120]>
        simt.async_copy %b[%qbi0], %qbn0, %bs[%qbat0] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [4096]>
        simt.async_copy %a[%qai1], %qan1, %as[%qaat1] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [5120]>
        simt.async_copy %b[%qbi1], %qbn1, %bs[%qbat1] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [4096]>
        simt.yield
      }
      simt.async_commit
      %cs = arith.remui %kt, %c2 : index
      %xa = arith.muli %cs, %c2560 : index
      %yb = arith.muli %cs, %c2048 : index
      %xb0 = arith.addi %xa, %xo0 : index
      %xb1 = arith.addi %xa, %xo1 : index
      %xb2 = arith.addi %xa, %xo2 : index
      %xb3 = arith.addi %xa, %xo3 : index
      %xb4 = arith.addi %xa, %xo4 : index
      %xb5 = arith.addi %xa, %xo5 : index
      %xb6 = arith.addi %xa, %xo6 : index
      %xb7 = arith.addi %xa, %xo7 : index
      %yc = arith.addi %yb, %ycol : index
      %part:64 = scf.for %p = %c0 to %c16 step %c1 iter_args(%r0_0 = %acc0_0, %r0_1 = %acc0_1, %r0_2 = %acc0_2, %r0_3 = %acc0_3, %r0_4 = %acc0_4, %r0_5 = %acc0_5, %r0_6 = %acc0_6, %r0_7 = %acc0_7, %r1_0 = %acc1_0, %r1_1 = %acc1_1, %r1_2 = %acc1_2, %r1_3 = %acc1_3, %r1_4 = %acc1_4, %r1_5 = %acc1_5, %r1_6 = %acc1_6, %r1_7 = %acc1_7, %r2_0 = %acc2_0, %r2_1 = %acc2_1, %r2_2 = %acc2_2, %r2_3 = %acc2_3, %r2_4 = %acc2_4, %r2_5 = %acc2_5, %r2_6 = %acc2_6, %r2_7 = %acc2_7, %r3_0 = %acc3_0, %r3_1 = %acc3_1, %r3_2 = %acc3_2, %r3_3 = %acc3_3, %r3_4 = %acc3_4, %r3_5 = %acc3_5, %r3_6 = %acc3_6, %r3_7 = %acc3_7, %r4_0 = %acc4_0, %r4_1 = %acc4_1, %r4_2 = %acc4_2, %r4_3 = %acc4_3, %r4_4 = %acc4_4, %r4_5 = %acc4_5, %r4_6 = %acc4_6, %r4_7 = %acc4_7, %r5_0 = %acc5_0, %r5_1 = %acc5_1, %r5_2 = %acc5_2, %r5_3 = %acc5_3, %r5_4 = %acc5_4, %r5_5 = %acc5_5, %r5_6 = %acc5_6, %r5_7 = %acc5_7, %r6_0 = %acc6_0, %r6_1 = %acc6_1, %r6_2 = %acc6_2, %r6_3 = %acc6_3, %r6_4 = %acc6_4, %r6_5 = %acc6_5, %r6_6 = %acc6_6, %r6_7 = %acc6_7, %r7_0 = %acc7_0, %r7_1 = %acc7_1, %r7_2 = %acc7_2, %r7_3 = %acc7_3, %r7_4 = %acc7_4, %r7_5 = %acc7_5, %r7_6 = %acc7_6, %r7_7 = %acc7_7) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
        %yrow = arith.muli %p, %c128 : index
        %yat = arith.addi %yc, %yrow : index
        %yat4 = arith.addi %yat, %c64 : index
        %x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32 {
          %xat0 = arith.addi %xb0, %p : index
          %v0 = simt.shared_load %as[%xat0] : !simt.shared<f32, [5120]>
          %xat1 = arith.addi %xb1, %p : index
          %v1 = simt.shared_load %as[%xat1] : !simt.shared<f32, [5120]>
          %xat2 = arith.addi %xb2, %p : index
          %v2 = simt.shared_load %as[%xat2] : !simt.shared<f32, [5120]>
          %xat3 = arith.addi %xb3, %p : index
          %v3 = simt.shared_load %as[%xat3] : !simt.shared<f32, [5120]>
          %xat4 = arith.addi %xb4, %p : index
          %v4 = simt.shared_load %as[%xat4] : !simt.shared<f32, [5120]>
          %xat5 = arith.addi %xb5, %p : index
          %v5 = simt.shared_load %as[%xat5] : !simt.shared<f32, [5120]>
          %xat6 = arith.addi %xb6, %p : index
          %v6 = simt.shared_load %as[%xat6] : !simt.shared<f32, [5120]>
          %xat7 = arith.addi %xb7, %p : index
          %v7 = simt.shared_load %as[%xat7] : !simt.shared<f32, [5120]>
          %w0, %w1, %w2, %w3 = simt.shared_load_vector %bs[%yat] {width = 4} : !simt.shared<f32, [4096]> -> f32, f32, f32, f32
          %w4, %w5, %w6, %w7 = simt.shared_load_vector %bs[%yat4] {width = 4} : !simt.shared<f32, [4096]> -> f32, f32, f32, f32
          simt.yield %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %w0, %w1, %w2, %w3, %w4, %w5, %w6, %w7 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
        }
        %f0_0 = math.fma %x0, %y0, %r0_0 : f32
        %f0_1 = math.fma %x0, %y1, %r0_1 : f32
        %f0_2 = math.fma %x0, %y2, %r0_2 : f32
        %f0_3 = math.fma %x0, %y3, %r0_3 : f32
        %f0_4 = math.fma %x0, %y4, %r0_4 : f32
        %f0_5 = math.fma %x0, %y5, %r0_5 : f32
        %f0_6 = math.fma %x0, %y6, %r0_6 : f32
        %f0_7 = math.fma %x0, %y7, %r0_7 : f32
        %f1_0 = math.fma %x1, %y0, %r1_0 : f32
        %f1_1 = math.fma %x1, %y1, %r1_1 : f32
        %f1_2 = math.fma %x1, %y2, %r1_2 : f32
        %f1_3 = math.fma %x1, %y3, %r1_3 : f32
        %f1_4 = math.fma %x1, %y4, %r1_4 : f32
        %f1_5 = math.fma %x1, %y5, %r1_5 : f32
        %f1_6 = math.fma %x1, %y6, %r1_6 : f32
        %f1_7 = math.fma %x1, %y7, %r1_7 : f32
        %f2_0 = math.fma %x2, %y0, %r2_0 : f32
        %f2_1 = math.fma %x2, %y1, %r2_1 : f32
        %f2_2 = math.fma %x2, %y2, %r2_2 : f32
        %f2_3 = math.fma %x2, %y3, %r2_3 : f32
        %f2_4 = math.fma %x2, %y4, %r2_4 : f32
        %f2_5 = math.fma %x2, %y5, %r2_5 : f32
        %f2_6 = math.fma %x2, %y6, %r2_6 : f32
        %f2_7 = math.fma %x2, %y7, %r2_7 : f32
        %f3_0 = math.fma %x3, %y0, %r3_0 : f32
        %f3_1 = math.fma %x3, %y1, %r3_1 : f32
        %f3_2 = math.fma %x3, %y2, %r3_2 : f32
        %f3_3 = math.fma %x3, %y3, %r3_3 : f32
        %f3_4 = math.fma %x3, %y4, %r3_4 : f32
        %f3_5 = math.fma %x3, %y5, %r3_5 : f32
        %f3_6 = math.fma %x3, %y6, %r3_6 : f32
        %f3_7 = math.fma %x3, %y7, %r3_7 : f32
        %f4_0 = math.fma %x4, %y0, %r4_0 : f32
        %f4_1 = math.fma %x4, %y1, %r4_1 : f32
        %f4_2 = math.fma %x4, %y2, %r4_2 : f32
        %f4_3 = math.fma %x4, %y3, %r4_3 : f32
        %f4_4 = math.fma %x4, %y4, %r4_4 : f32
        %f4_5 = math.fma %x4, %y5, %r4_5 : f32
        %f4_6 = math.fma %x4, %y6, %r4_6 : f32
        %f4_7 = math.fma %x4, %y7, %r4_7 : f32
        %f5_0 = math.fma %x5, %y0, %r5_0 : f32
        %f5_1 = math.fma %x5, %y1, %r5_1 : f32
        %f5_2 = math.fma %x5, %y2, %r5_2 : f32
        %f5_3 = math.fma %x5, %y3, %r5_3 : f32
        %f5_4 = math.fma %x5, %y4, %r5_4 : f32
        %f5_5 = math.fma %x5, %y5, %r5_5 : f32
        %f5_6 = math.fma %x5, %y6, %r5_6 : f32
        %f5_7 = math.fma %x5, %y7, %r5_7 : f32
        %f6_0 = math.fma %x6, %y0, %r6_0 : f32
        %f6_1 = math.fma %x6, %y1, %r6_1 : f32
        %f6_2 = math.fma %x6, %y2, %r6_2 : f32
        %f6_3 = math.fma %x6, %y3, %r6_3 : f32
        %f6_4 = math.fma %x6, %y4, %r6_4 : f32
        %f6_5 = math.fma %x6, %y5, %r6_5 : f32
        %f6_6 = math.fma %x6, %y6, %r6_6 : f32
        %f6_7 = math.fma %x6, %y7, %r6_7 : f32
        %f7_0 = math.fma %x7, %y0, %r7_0 : f32
        %f7_1 = math.fma %x7, %y1, %r7_1 : f32
        %f7_2 = math.fma %x7, %y2, %r7_2 : f32
        %f7_3 = math.fma %x7, %y3, %r7_3 : f32
        %f7_4 = math.fma %x7, %y4, %r7_4 : f32
        %f7_5 = math.fma %x7, %y5, %r7_5 : f32
        %f7_6 = math.fma %x7, %y6, %r7_6 : f32
        %f7_7 = math.fma %x7, %y7, %r7_7 : f32
        scf.yield %f0_0, %f0_1, %f0_2, %f0_3, %f0_4, %f0_5, %f0_6, %f0_7, %f1_0, %f1_1, %f1_2, %f1_3, %f1_4, %f1_5, %f1_6, %f1_7, %f2_0, %f2_1, %f2_2, %f2_3, %f2_4, %f2_5, %f2_6, %f2_7, %f3_0, %f3_1, %f3_2, %f3_3, %f3_4, %f3_5, %f3_6, %f3_7, %f4_0, %f4_1, %f4_2, %f4_3, %f4_4, %f4_5, %f4_6, %f4_7, %f5_0, %f5_1, %f5_2, %f5_3, %f5_4, %f5_5, %f5_6, %f5_7, %f6_0, %f6_1, %f6_2, %f6_3, %f6_4, %f6_5, %f6_6, %f6_7, %f7_0, %f7_1, %f7_2, %f7_3, %f7_4, %f7_5, %f7_6, %f7_7 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %part#0, %part#1, %part#2, %part#3, %part#4, %part#5, %part#6, %part#7, %part#8, %part#9, %part#10, %part#11, %part#12, %part#13, %part#14, %part#15, %part#16, %part#17, %part#18, %part#19, %part#20, %part#21, %part#22, %part#23, %part#24, %part#25, %part#26, %part#27, %part#28, %part#29, %part#30, %part#31, %part#32, %part#33, %part#34, %part#35, %part#36, %part#37, %part#38, %part#39, %part#40, %part#41, %part#42, %part#43, %part#44, %part#45, %part#46, %part#47, %part#48, %part#49, %part#50, %part#51, %part#52, %part#53, %part#54, %part#55, %part#56, %part#57, %part#58, %part#59, %part#60, %part#61, %part#62, %part#63 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
    }
    // Chunk i of this thread is row t / 16 + 16 i, columns 8 (t % 16) .. + 7: its witness
    // writes the in-bounds prefix of the 8 values.
    %ci0 = arith.constant 0 : index
    %wi0 = simt.tile_index %ci0 dims(%m, %n) : !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.store_chunk %c[%wi0], %sum#0, %sum#1, %sum#2, %sum#3, %sum#4, %sum#5, %sum#6, %sum#7 : !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, !simt.thread_index<tile<[128, 128], 8, arg3>>
    %ci1 = arith.constant 1 : index
    %wi1 = simt.tile_index %ci1 dims(%m, %n) : !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.store_chunk %c[%wi1], %sum#8, %sum#9, %sum#10, %sum#11, %sum#12, %sum#13, %sum#14, %sum#15 : !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, !simt.thread_index<tile<[128, 128], 8, arg3>>
    %ci2 = arith.constant 2 : index
    %wi2 = simt.tile_index %ci2 dims(%m, %n) : !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.store_chunk %c[%wi2], %sum#16, %sum#17, %sum#18, %sum#19, %sum#20, %sum#21, %sum#22, %sum#23 : !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, !simt.thread_index<tile<[128, 128], 8, arg3>>
    %ci3 = arith.constant 3 : index
    %wi3 = simt.tile_index %ci3 dims(%m, %n) : !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.store_chunk %c[%wi3], %sum#24, %sum#25, %sum#26, %sum#27, %sum#28, %sum#29, %sum#30, %sum#31 : !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, !simt.thread_index<tile<[128, 128], 8, arg3>>
    %ci4 = arith.constant 4 : index
    %wi4 = simt.tile_index %ci4 dims(%m, %n) : !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.store_chunk %c[%wi4], %sum#32, %sum#33, %sum#34, %sum#35, %sum#36, %sum#37, %sum#38, %sum#39 : !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, !simt.thread_index<tile<[128, 128], 8, arg3>>
    %ci5 = arith.constant 5 : index
    %wi5 = simt.tile_index %ci5 dims(%m, %n) : !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.store_chunk %c[%wi5], %sum#40, %sum#41, %sum#42, %sum#43, %sum#44, %sum#45, %sum#46, %sum#47 : !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, !simt.thread_index<tile<[128, 128], 8, arg3>>
    %ci6 = arith.constant 6 : index
    %wi6 = simt.tile_index %ci6 dims(%m, %n) : !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.store_chunk %c[%wi6], %sum#48, %sum#49, %sum#50, %sum#51, %sum#52, %sum#53, %sum#54, %sum#55 : !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, !simt.thread_index<tile<[128, 128], 8, arg3>>
    %ci7 = arith.constant 7 : index
    %wi7 = simt.tile_index %ci7 dims(%m, %n) : !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.store_chunk %c[%wi7], %sum#56, %sum#57, %sum#58, %sum#59, %sum#60, %sum#61, %sum#62, %sum#63 : !simt.disjoint_slice<f32, tile<[128, 128], 8, arg3>>, !simt.thread_index<tile<[128, 128], 8, arg3>>
    simt.return
  }

  // doc:end

  // The host program: m, n, k ragged against the 128 x 128 tile and the 16-wide k step.
  func.func @main() -> !host.tensor<f32, [?, ?]> {
    %m = host.param "m" = 130 : index
    %n = host.param "n" = 140 : index
    %k = host.param "k" = 37 : index
    %a = host.random uniform(-1.0, 1.0) seed 1 (%m, %k) : !host.tensor<f32, [?, ?]>
    %b = host.random uniform(-1.0, 1.0) seed 2 (%k, %n) : !host.tensor<f32, [?, ?]>
    %c = host.poison(%m, %n) : !host.tensor<f32, [?, ?]>
    %s = host.stream
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %gx = arith.ceildivui %m, %c128 : index
    %gy = arith.ceildivui %n, %c128 : index
    %p = host.prepare @sgemm_micro grid(%gx, %gy) block(%c256) args(%a, %b, %c, %m, %n, %k : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, index, index, index)
    %c2 = host.launch @sgemm_micro with %p on %s ins(%a, %b, %m, %n, %k : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, index, index, index) outs(%c : !host.tensor<f32, [?, ?]>) -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    host.check %c2, "a @ b" (a = %a : !host.tensor<f32, [?, ?]>, b = %b : !host.tensor<f32, [?, ?]>) rtol 1.0e-04 atol 1.0e-03 : !host.tensor<f32, [?, ?]>
    func.return %c2 : !host.tensor<f32, [?, ?]>
  }
}
