// piecewise: out[i] = f_k(x[i]) with k = sel[i], dispatched by a `cf.switch` in the kernel's own
// blocks: k = 0 squares, 1 adds one, 5 negates, any other k gives 0. Threads past the end of
// `out` branch straight to the exit, so every load is in bounds.
builtin.module {
  // doc:begin piecewise
  simt.kernel @piecewise(%x: !simt.slice<f32>, %sel: !simt.slice<i32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %n = simt.len %out : !simt.disjoint_slice<f32, 1d>
    %inb = arith.cmpi ult, %i, %n : index
    cf.cond_br %inb, ^load, ^done
  ^load:
    %v = simt.load %x[%i] : !simt.slice<f32>
    %k = simt.load %sel[%i] : !simt.slice<i32>
    %zero = arith.constant 0.0 : f32
    cf.switch %k : i32, [
      default: ^join(%zero : f32),
      0: ^square,
      1: ^inc,
      5: ^join(%v : f32)
    ]
  ^square:
    %sq = arith.mulf %v, %v : f32
    cf.br ^join(%sq : f32)
  ^inc:
    %one = arith.constant 1.0 : f32
    %p1 = arith.addf %v, %one : f32
    cf.br ^join(%p1 : f32)
  ^join(%r: f32):
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %r : f32
    }
    cf.br ^done
  ^done:
    simt.return
  }
  // doc:end

  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 1000 : index
    %x = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %sel = host.random uniform(0.0, 8.0) seed 2 (%n) : !host.tensor<i32, [?]>
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @piecewise grid(%blocks) block(%threads) args(%x, %sel, %out : !host.tensor<f32, [?]>, !host.tensor<i32, [?]>, !host.tensor<f32, [?]>)
    %out2 = host.launch @piecewise with %p on %s ins(%x, %sel : !host.tensor<f32, [?]>, !host.tensor<i32, [?]>) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "np.select([sel == 0, sel == 1, sel == 5], [x * x, x + 1, x], 0)" (x = %x : !host.tensor<f32, [?]>, sel = %sel : !host.tensor<i32, [?]>) rtol 0.0 atol 0.0 : !host.tensor<f32, [?]>
    func.return %out2 : !host.tensor<f32, [?]>
  }
}
