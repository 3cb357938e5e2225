"""LazyTensor: a handle on a node of the recorded graph. Every torch op on it records a node
(ops.py); nothing runs until .materialize(), .cpu(), .numpy(), .item(), .tolist() or printing."""
import os
import sys

import torch

from . import _engine

DEVICE_TYPE = "remote_accelerator"
TORCH_TO_NAME = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.int64: "i64",
                 torch.bool: "bool"}
NAME_TO_TORCH = {v: k for k, v in TORCH_TO_NAME.items()}

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))


_internal = {}  # code file name -> whether it is this package's or torch's


def caller_site():
    """The user's file:line that recorded the op: the first frame outside this package and torch."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        inside = _internal.get(name)
        if inside is None:
            path = os.path.abspath(name)
            inside = _internal[name] = path.startswith(_PACKAGE_DIR) or path.startswith(_TORCH_DIR)
        if not inside:
            return "%s:%d" % (os.path.basename(name), f.f_lineno)
        f = f.f_back
    return "?"


def is_remote(device):
    return isinstance(device, str) and (device == DEVICE_TYPE or device.startswith(DEVICE_TYPE + ":"))


class LazyTensor:
    """A tensor of the graph on device remote_accelerator:N (or cpu)."""

    __slots__ = ("graph", "node", "device", "_value")

    def __init__(self, graph, node, device):
        self.graph, self.node, self.device, self._value = graph, node, device, None

    # --- what was recorded (no execution)
    @property
    def shape(self):
        return torch.Size(self.graph.shape(self.node))

    def size(self, dim=None):
        s = self.shape
        return s if dim is None else s[dim]

    @property
    def dtype(self):
        return NAME_TO_TORCH[self.graph.dtype(self.node)]

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return self.ndim

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    @property
    def op(self):
        return self.graph.op(self.node)

    def inputs(self):
        """The node ids this node reads."""
        return self.graph.inputs(self.node)

    def dump(self):
        """The program up to this tensor before and after the passes (`assay graph dump`'s text)."""
        return self.graph.dump(self.node)

    # --- execution
    def materialize(self):
        """Runs the graph up to this tensor (once; the values are kept) and returns them as a CPU
        torch tensor of this dtype: a copy, so that a caller writing into it (h += 1) does not change
        what this tensor reads later."""
        with torch._C.DisableTorchFunction():
            return self._host().clone()

    def _host(self):
        """The kept values themselves: only for reading."""
        if self._value is None:
            n = self.numel()
            buf = self.graph.materialize(self.node, n)
            with torch._C.DisableTorchFunction():
                flat = torch.frombuffer(buf, dtype=torch.float32, count=n).clone() if n else torch.zeros(0)
                self._value = flat.reshape(tuple(self.shape)).to(self.dtype)
        return self._value

    def cpu(self):
        return self.materialize()

    def numpy(self):
        return self.materialize().numpy()

    def item(self):
        if self.numel() != 1:
            raise ValueError("item(): a tensor of %d elements" % self.numel())
        return self._host().item()

    def tolist(self):
        return self._host().tolist()

    # A node never changes: a copy is another handle on it. Pickling would carry a pointer into
    # this process's graph.
    def __copy__(self):
        return LazyTensor(self.graph, self.node, self.device)

    def __deepcopy__(self, memo):
        return LazyTensor(self.graph, self.node, self.device)

    def __reduce_ex__(self, protocol):
        raise TypeError("assay_lazy: a lazy tensor cannot be pickled (its graph lives in this process); "
                        "pickle t.cpu()")

    def __repr__(self):
        return "LazyTensor(%r, device='%s')" % (self._host(), self.device)

    def __bool__(self):
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    # --- every torch function on a LazyTensor comes here (and from the mode, mode.py)
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        from . import ops
        return ops.dispatch(func, args, kwargs or {})

    def __getattr__(self, name):
        """Any other torch.Tensor method goes through the same table and fallback policy as the torch
        functions (an error naming it, or an eager run). Only called when normal lookup fails; private
        and dunder names, and torch.Tensor's non-method attributes, stay AttributeErrors."""
        func = None if name.startswith("_") else getattr(torch.Tensor, name, None)
        if func is None or not callable(func):
            raise AttributeError("'LazyTensor' object has no attribute %r" % (name,))

        def call(*args, **kwargs):
            from . import ops
            return ops.dispatch(func, (self,) + args, kwargs)
        call.__name__ = name
        return call


def _method(name):
    func = getattr(torch.Tensor, name)

    def call(self, *args, **kwargs):
        from . import ops
        return ops.dispatch(func, (self,) + args, kwargs)

    call.__name__ = name
    return call


# Operators and methods go through the same table as the torch functions (ops.py).
for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__neg__", "__matmul__", "__rmatmul__", "__getitem__", "add", "sub", "mul", "div", "neg", "exp", "log",
              "sqrt", "relu", "sigmoid", "tanh", "matmul", "mm", "bmm", "sum", "mean", "max", "amax", "softmax",
              "log_softmax", "reshape", "view", "transpose", "permute", "t", "expand", "expand_as", "unsqueeze",
              "squeeze", "contiguous", "to", "float", "half", "bfloat16", "long", "bool", "__gt__", "__lt__", "__ge__",
              "__le__", "__eq__", "__ne__", "__pow__", "abs", "clone", "flatten", "where", "type_as"):
    setattr(LazyTensor, _name, _method(_name))
# In-place operators and item assignment are refused (ops.INPLACE_OPERATORS): without them Python
# would rebind `a += b` to a new tensor and leave a's aliases unchanged, silently.
for _name in ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__idiv__", "__ifloordiv__", "__imod__", "__ipow__",
              "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__setitem__"):
    if hasattr(torch.Tensor, _name):
        setattr(LazyTensor, _name, _method(_name))
    else:  # (__imatmul__ where torch has none): the same refusal
        setattr(LazyTensor, _name, (lambda n: lambda self, *a: _refuse(n))(_name))


def _refuse(name):
    from . import ops
    ops.refuse_inplace("torch.Tensor." + name, ops.INPLACE_OPERATORS[name])
LazyTensor.__hash__ = object.__hash__
