"""assay_lazy: PyTorch programs recorded as assay graphs (docs/lazy.md).

    import torch, assay_lazy
    x = torch.randn(1000, 1000, device="remote_accelerator:0")   # a LazyTensor: nothing runs
    y = torch.relu(x @ x).sum()                                   # recorded
    print(y.item())                                               # runs the graph

Importing the package turns the interception on (assay_lazy.disable() turns it off). Every op
in docs/lazy.md's list is recorded, with shapes and dtypes checked at the line that recorded it
(LazyError); any other op is an error naming it, or with set_fallback("eager") runs with PyTorch
on the host, counted in report(). Materialising runs the GPU executor where the library has it
and a CUDA device is present, else the CPU reference executor (set_executor, executor(),
gpu_stats()).
"""
import os

from ._engine import LazyError, executor, gpu_stats, lib_path, set_executor
from .mode import disable, enable, graph, reset
from .ops import report, scaled_dot_product_attention, set_fallback
from .tensor import DEVICE_TYPE, LazyTensor

__all__ = ["DEVICE_TYPE", "LazyError", "LazyTensor", "disable", "enable", "executor", "gpu_stats", "graph", "lib_path",
           "report", "reset", "scaled_dot_product_attention", "set_executor", "set_fallback"]

if os.environ.get("ASSAY_LAZY_EXECUTOR"):  # cpu, gpu or auto, as set_executor
    set_executor(os.environ["ASSAY_LAZY_EXECUTOR"])
enable()
