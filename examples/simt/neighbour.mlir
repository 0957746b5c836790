// neighbour: out[i] = in[i] + in[i + 1], each block staging its 256 elements plus one halo
// element in shared memory. Elements past the end of `in` read as 0.
builtin.module {
  // doc:begin neighbour
  simt.kernel @neighbour(%in: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
    %tile = simt.shared_alloc : !simt.shared<f32, [257]>
    %zero = arith.constant 0.0 : f32
    %c1 = arith.constant 1 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
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
    %next = arith.addi %i, %c1 : index
    %last = arith.cmpi eq, %t, %c255 : index
    simt.unsafe {
      simt.shared_store %v, %tile[%t] : !simt.shared<f32, [257]>
      scf.if %last {
        %hinb = arith.cmpi ult, %next, %n : index
        %h = scf.if %hinb -> (f32) {
          %x = simt.load %in[%next] : !simt.slice<f32>
          scf.yield %x : f32
        } else {
          scf.yield %zero : f32
        }
        simt.shared_store %h, %tile[%c256] : !simt.shared<f32, [257]>
      }
      simt.yield
    }
    simt.sync_threads
    %t1 = arith.addi %t, %c1 : index
    %sum = simt.unsafe -> f32 {
      %here = simt.shared_load %tile[%t] : !simt.shared<f32, [257]>
      %right = simt.shared_load %tile[%t1] : !simt.shared<f32, [257]>
      %s = arith.addf %here, %right : f32
      simt.yield %s : f32
    }
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %sum : f32
    }
    simt.return
  }
  // doc:end

  // The host program: every block boundary (and the end of `in`) exercises the halo element.
  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 1000 : index
    %x = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @neighbour grid(%blocks) block(%threads) args(%x, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
    %out2 = host.launch @neighbour with %p on %s ins(%x : !host.tensor<f32, [?]>) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "x + np.append(x[1:], np.float32(0))" (x = %x : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return %out2 : !host.tensor<f32, [?]>
  }
}
