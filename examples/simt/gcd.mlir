// gcd: out[i] = gcd(a[i], b[i]) by Euclid's algorithm, an `scf.while` whose trip count depends
// on each thread's data (so the loop diverges within a warp; it holds no barrier).
builtin.module {
  // doc:begin gcd
  simt.kernel @gcd(%a: !simt.slice<i32>, %b: !simt.slice<i32>, %out: !simt.disjoint_slice<i32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: i32):
      %zero = arith.constant 0 : i32
      %x = simt.load %a[%i] : !simt.slice<i32>
      %y = simt.load %b[%i] : !simt.slice<i32>
      %g:2 = scf.while (%p = %x, %q = %y) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi ne, %q, %zero : i32
        scf.condition(%more) %p, %q : i32, i32
      } do {
      ^bb1(%p1: i32, %q1: i32):
        %r = arith.remui %p1, %q1 : i32
        scf.yield %q1, %r : i32, i32
      }
      simt.yield %g#0 : i32
    }
    simt.return
  }
  // doc:end

  // The host program: positive operands below a million, an output the kernel must overwrite
  // (host.poison fills an i32 tensor with its largest value).
  func.func @main() -> !host.tensor<i32, [?]> {
    %n = host.param "n" = 1000 : index
    %a = host.random uniform(1.0, 1000000.0) seed 1 (%n) : !host.tensor<i32, [?]>
    %b = host.random uniform(1.0, 1000000.0) seed 2 (%n) : !host.tensor<i32, [?]>
    %out = host.poison(%n) : !host.tensor<i32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @gcd grid(%blocks) block(%threads) args(%a, %b, %out : !host.tensor<i32, [?]>, !host.tensor<i32, [?]>, !host.tensor<i32, [?]>)
    %out2 = host.launch @gcd with %p on %s ins(%a, %b : !host.tensor<i32, [?]>, !host.tensor<i32, [?]>) outs(%out : !host.tensor<i32, [?]>) -> !host.tensor<i32, [?]>
    host.sync_on %s
    host.check %out2, "np.gcd(a, b)" (a = %a : !host.tensor<i32, [?]>, b = %b : !host.tensor<i32, [?]>) : !host.tensor<i32, [?]>
    func.return %out2 : !host.tensor<i32, [?]>
  }
}
