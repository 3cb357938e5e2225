"""A module that fails at import (tests/python_kernels/): py:broken_module:f must be an error."""
raise RuntimeError("planted import failure")


def f(Q, K, V, causal=False):  # never reached
    return Q
