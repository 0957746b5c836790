"""Find NVIDIA's command-line tools: on PATH, under CUDA_HOME, or in the nvidia-cuda-nvcc wheel."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def find_ptxas() -> str | None:
    if found := shutil.which("ptxas"):
        return found
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (candidate := Path(home) / "bin" / "ptxas").is_file():
            return str(candidate)
    try:
        import nvidia.cuda_nvcc as wheel  # type: ignore[import-not-found]
    except ImportError:
        return None
    for base in getattr(wheel, "__path__", []):
        for candidate in Path(base).rglob("ptxas"):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return None
