"""ferrox: NVIDIA GPU kernels that are safe by construction, on xDSL."""

__version__ = "0.1.0"
