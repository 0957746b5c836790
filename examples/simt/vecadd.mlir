// vecadd: out[i] = a[i] + b[i], one element per thread, with a launch contract.
// The witness from simt.thread_index_1d guards the only write; the reads sit inside get_mut,
// where i < len(out) <= len(a), len(b) (the `requires` relations), so they never trap.
builtin.module {
  // doc:begin vecadd
  simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %s = arith.addf %x, %y : f32
      simt.yield %s : f32
    }
    simt.return
  }
  // doc:end
}
