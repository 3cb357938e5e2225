"""The factories: torch.randn(..., device="remote_accelerator:0") and its kin, and
tensor.to("remote_accelerator:0"), give lazy tensors. A TorchFunctionMode sees every torch call
(the factories have no tensor argument whose __torch_function__ could); calls that involve no
lazy tensor and no remote device go to PyTorch untouched."""
import itertools

import torch
from torch.overrides import TorchFunctionMode

from . import _engine, ops
from .tensor import TORCH_TO_NAME, LazyTensor, caller_site, is_remote

_graph = {"g": None}
_seeds = itertools.count(1)


def graph():
    """The graph new lazy tensors are recorded into."""
    if _graph["g"] is None:
        _graph["g"] = _engine.Graph()
    return _graph["g"]


def reset():
    """Starts a new graph (tensors of the old one stay valid, in theirs)."""
    _graph["g"] = _engine.Graph()
    return _graph["g"]


def _dtype(kwargs, default=None):
    d = kwargs.get("dtype") or default or torch.get_default_dtype()
    if d not in TORCH_TO_NAME:
        raise TypeError("assay_lazy: dtype %s has no lazy form (f32, f16, bf16, i64, bool)" % d)
    return TORCH_TO_NAME[d]


def _factory(kind, size, kwargs, value=0.0, dtype=None):
    """size: the positional sizes, else the size= keyword."""
    g = graph()
    if not size and "size" in kwargs:
        size = (kwargs["size"],)
    if kind == "randn":
        # A seed of its own per call, fixed by torch.manual_seed: the values are the engine's
        # counter-based normal numbers (docs/lazy.md), not PyTorch's.
        # Below 2^53: the seed crosses the C API as a double, exact only that far (at 2^62 whole
        # runs of consecutive seeds rounded to one, and torch.randn gave the same tensor again).
        value = (torch.initial_seed() * 1000003 + next(_seeds)) % (1 << 53)
    node = g.factory(kind, ops._sizes(size), _dtype(kwargs, dtype), value, str(kwargs["device"]), caller_site())
    return LazyTensor(g, node, str(kwargs["device"]))


def _full(args, kwargs):
    """torch.full: without dtype=, the fill value's kind gives it (bool, int64, the default float)."""
    fill = args[1] if len(args) > 1 else kwargs["fill_value"]
    if isinstance(fill, torch.Tensor):
        fill = fill.item()
    if isinstance(fill, complex):
        raise TypeError("assay_lazy: torch.full with a complex fill value: complex has no lazy form (recorded at %s)"
                        % caller_site())
    dtype = torch.bool if isinstance(fill, bool) else torch.int64 if isinstance(fill, int) else None
    return _factory("full", args[:1], kwargs, float(fill), dtype)


def _remote_arg(args, kwargs):
    if is_remote(kwargs.get("device")):
        return kwargs["device"]
    for a in args[1:]:
        if is_remote(a):
            return a
    return None


class LazyMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if ops.first_lazy(list(args) + list(kwargs.values())) is not None:
            return ops.dispatch(func, args, kwargs)
        if func is torch.Tensor.to and args and isinstance(args[0], torch.Tensor):
            device = _remote_arg(args, kwargs)
            if device is not None:
                t = args[0]
                dtype = kwargs.get("dtype") or next((a for a in args[1:] if isinstance(a, torch.dtype)), None)
                if dtype is not None:
                    t = t.to(dtype)
                return ops.from_tensor(t, graph(), str(device))
            return func(*args, **kwargs)
        if is_remote(kwargs.get("device")):
            if func is torch.randn:
                return _factory("randn", args, kwargs)
            if func in (torch.zeros, torch.empty):
                return _factory("zeros", args, kwargs)
            if func is torch.ones:
                return _factory("ones", args, kwargs)
            if func is torch.full:
                return _full(args, kwargs)
            if func is torch.tensor:
                device = kwargs.pop("device")
                with torch._C.DisableTorchFunction():
                    t = torch.tensor(*args, **kwargs)
                return ops.from_tensor(t, graph(), str(device))
            raise NotImplementedError("assay_lazy: %s on %s is not supported (randn, zeros, empty, ones, full and "
                                      "tensor are)" % (ops.op_name(func), kwargs["device"]))
        return func(*args, **kwargs)


_mode = {"m": None}


def enable():
    """Turns the factories' interception on for the rest of the process (done on import)."""
    if _mode["m"] is None:
        _mode["m"] = LazyMode()
        _mode["m"].__enter__()


def disable():
    if _mode["m"] is not None:
        _mode["m"].__exit__(None, None, None)
        _mode["m"] = None
