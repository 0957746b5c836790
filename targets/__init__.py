"""ferrox.targets: the LLVM IR export, the PTX target, NVIDIA's toolchain and the compile step that
makes a typed kernel artifact."""
