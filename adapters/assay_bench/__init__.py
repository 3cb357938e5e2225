"""`python3 -m assay_bench`: benchmark a Python callable against a baseline with assay.

  python3 -m assay_bench WORKLOAD MODULE:FUNCTION [--shapes fuzz|small] [--dtype f16|bf16|f32]
      [--device cuda|cpu|N] [--baseline torch] [--out DIR] [--assay PATH]
      [--python-path DIR ...] [--require-faster] [--quick]

Writes a suite (OUT/suite.toml) with backends [BASELINE, "py:MODULE:FUNCTION"] over a shape set
(shapes.py), runs `assay run` on it with its output streamed, reads the results JSON and exits
0 every case passed its check (and, with --require-faster, the callable was faster than the
baseline at every point, the 95% CIs of the medians not overlapping); 1 a failure (a case
check-failed, error, crashed, timeout, implausible, or not faster when required): the failing
points are listed with their reasons; 2 nothing could run here (assay exited 2, every case of
the callable was skipped, or no assay binary); 3 bad usage (including a module that cannot be
found, or a suite assay refused). The callable's call convention: adapters/torch_adapter.py.
Run it with adapters/ on sys.path: `PYTHONPATH=adapters python3 -m assay_bench ...`.
"""
from .cli import main  # noqa: F401
