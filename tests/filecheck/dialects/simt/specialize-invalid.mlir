// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// The op-local rules of `simt.specialize` and `simt.setmaxnreg` (dialects/simt/specialize.py):
// the split sits in a kernel's entry block, just before its return, over more warpgroups than
// it gives the producer; each region ends in a plain `simt.yield`; `setmaxnreg` takes a
// multiple of 8 from 24 to 256 and is the first op of a region.

simt.kernel @count() contract<domain = 1, block = [256]> {
  simt.specialize producers(1) {
    // expected-error@+1 {{'simt.setmaxnreg' count must be a multiple of 8 from 24 to 256, got 100}}
    simt.setmaxnreg dec 100
    simt.yield
  } consumers {
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @not_first() contract<domain = 1, block = [256]> {
  simt.specialize producers(1) {
    simt.sync_threads
    // expected-error@+1 {{'simt.setmaxnreg' must be the first op of a 'simt.specialize' region: each warpgroup runs it once, all its threads together}}
    simt.setmaxnreg dec 24
    simt.yield
  } consumers {
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @outside() contract<domain = 1, block = [256]> {
  // expected-error@+1 {{'simt.setmaxnreg' must be the first op of a 'simt.specialize' region: each warpgroup runs it once, all its threads together}}
  simt.setmaxnreg inc 240
  simt.return
}

// -----

simt.kernel @nested(%n: index) contract<domain = 1, block = [256]> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error@+1 {{'simt.specialize' must sit in a kernel's entry block, so that every thread of the block reaches it once}}
    simt.specialize producers(1) {
      simt.yield
    } consumers {
      simt.yield
    }
  }
  simt.return
}

// -----

simt.kernel @rejoin() contract<domain = 1, block = [256]> {
  // expected-error@+1 {{'simt.specialize' must be followed by the kernel's 'simt.return': the partitions never meet again}}
  simt.specialize producers(1) {
    simt.yield
  } consumers {
    simt.yield
  }
  simt.sync_threads
  simt.return
}

// -----

simt.kernel @one_warpgroup() contract<domain = 1, block = [128]> {
  // expected-error@+1 {{'simt.specialize' splits whole warpgroups: the kernel's contract must name a 1-D block of more than 1 warpgroups of 128 threads}}
  simt.specialize producers(1) {
    simt.yield
  } consumers {
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @values() contract<domain = 1, block = [256]> {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'simt.specialize' producer region must end in 'simt.yield' with no values}}
  simt.specialize producers(1) {
    simt.yield %c0 : index
  } consumers {
    simt.yield
  }
  simt.return
}
