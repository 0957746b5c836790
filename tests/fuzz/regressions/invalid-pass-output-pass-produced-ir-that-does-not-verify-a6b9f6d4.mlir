// fuzz-signature: invalid output of pass extract-device-code: Operation using value defined out of its IsolatedFromAbove
// fuzz-config: opt-llvm
// fuzz-status: fixed
// found by mutating examples/simt/block_reduce.mlir (line)
// thread 0 adds the block's total to sum[0] with one atomic. Elements past the end count as 0.
builtin.module {
  // doc:begin block_reduce
  simt.kernel @block_reduce(%in: !simt.slice<f32>, %sum: !simt.atomic_slice<f32>) contract<domain = 1, block = [256], requires = [len(arg1) >= 1]> {
    %tile = simt.shared_alloc : !simt.shared<f32, [256]>
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %bid = simt.block_id x
    %bdim = simt.block_dim x
    %tid = simt.thread_id x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %n = simt.len %in : !simt.slice<f32>
    %inb = arith.cmpi ult, %i, %n : index
    %v = scf.if %inb -> (f32) {
    }
    simt.sync_threads
    scf.for %step = %c0 to %c8 step %c1 {
      %stride = arith.shrui %c128, %step : index
      %active = arith.cmpi ult, %tid, %stride : index
      scf.if %active {
        %other = arith.addi %tid, %stride : index
        simt.unsafe {
          simt.yield
        }
      }
      simt.sync_threads
    }
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %total = simt.unsafe -> f32 {
        %x = simt.shared_load %tile[%c0] : !simt.shared<f32, [256]>
        simt.yield %x : f32
      }
      %old = simt.atomic_add %sum[%c0], %total : !simt.atomic_slice<f32>
    }
    simt.return
  }
  // doc:end

    host.check %sum2, "np.sum(x, dtype=np.float64).reshape(1)" (x = %x : !host.tensor<f32, [?]>) rtol 1.0e-04 : !host.tensor<f32, [1]>
  func.func @main() -> !host.tensor<f32, [1]> {
    %n = host.param "n" = 3000 : index
    %x = host.random uniform(0.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %sum = host.zeros : !host.tensor<f32, [1]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @block_reduce grid(%blocks) block(%threads) args(%x, %sum : !host.tensor<f32, [?]>, !host.tensor<f32, [1]>)
    %sum2 = host.launch @block_reduce with %p on %s ins(%x : !host.tensor<f32, [?]>) outs(%sum : !host.tensor<f32, [1]>) -> !host.tensor<f32, [1]>
    host.sync_on %s
    func.return %sum2 : !host.tensor<f32, [1]>
  }
}
