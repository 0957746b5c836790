// RUN: ferrox-opt %s -t ptx | filecheck %s --check-prefix=MODULE
// RUN: ferrox-opt %s -t 'ptx{chip=sm_90}' | filecheck %s --check-prefix=OPTION
// RUN: ferrox-opt %s -t 'ptx{chip=sm_100}' | filecheck %s --check-prefix=NEWER
// RUN: ferrox-opt %s -t 'ptx{chip=sm_90 features=ptx85}' | filecheck %s --check-prefix=FEATURES

// The chip comes from the option, else from the module's "ferrox.chip", else sm_90; the PTX
// version from the option, else "ferrox.features", else +ptx80 or the chip's minimum if newer.

// MODULE: .version 8.0
// MODULE: .target sm_80
// OPTION: .version 8.0
// OPTION: .target sm_90
// NEWER: .version 8.6
// NEWER: .target sm_100
// FEATURES: .version 8.5
// FEATURES: .target sm_90
builtin.module attributes {"ferrox.chip" = "sm_80"} {
  llvm.func @k() attributes {nvvm.kernel} {
    llvm.return
  }
}
