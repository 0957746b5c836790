// histogram: bins[v mod len(bins)] += 1 for every value v of `in` (v read as an unsigned index),
// with relaxed gpu-scope atomics on an atomic slice. `requires` keeps len(bins) >= 1, so the
// remainder is defined and every bin index is in range.
builtin.module {
  // doc:begin histogram
  simt.kernel @histogram(%in: !simt.slice<i32>, %bins: !simt.atomic_slice<i32>) contract<domain = 1, block = [256], requires = [len(arg1) >= 1]> {
    %one = arith.constant 1 : i32
    %bid = simt.block_id x
    %bdim = simt.block_dim x
    %tid = simt.thread_id x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %n = simt.len %in : !simt.slice<i32>
    %nbins = simt.len %bins : !simt.atomic_slice<i32>
    %inb = arith.cmpi ult, %i, %n : index
    scf.if %inb {
      %v = simt.load %in[%i] : !simt.slice<i32>
      %v64 = arith.extui %v : i32 to i64
      %vu = arith.index_cast %v64 : i64 to index
      %bin = arith.remui %vu, %nbins : index
      %old = simt.atomic_add %bins[%bin], %one scope gpu ordering relaxed : !simt.atomic_slice<i32>
    }
    simt.return
  }
  // doc:end

  // The host program. The bins are counted into, so they start at zero; counts are exact.
  func.func @main() -> !host.tensor<i32, [?]> {
    %n = host.param "n" = 3000 : index
    %nbins = host.param "nbins" = 64 : index
    %x = host.random uniform(0.0, 1000000.0) seed 1 (%n) : !host.tensor<i32, [?]>
    %bins = host.zeros(%nbins) : !host.tensor<i32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @histogram grid(%blocks) block(%threads) args(%x, %bins : !host.tensor<i32, [?]>, !host.tensor<i32, [?]>)
    %bins2 = host.launch @histogram with %p on %s ins(%x : !host.tensor<i32, [?]>) outs(%bins : !host.tensor<i32, [?]>) -> !host.tensor<i32, [?]>
    host.sync_on %s
    host.check %bins2, "np.bincount(x % nbins, minlength=nbins)" (x = %x : !host.tensor<i32, [?]>, nbins = %nbins : index) : !host.tensor<i32, [?]>
    func.return %bins2 : !host.tensor<i32, [?]>
  }
}
