"""The torch functions a LazyTensor records, each mapped to one engine op; everything else is
an error naming the op, or, with set_fallback("eager"), run eagerly on the host on materialised
inputs, its result a constant node of the graph (counted in report())."""
import collections
import math
import os

import torch
import torch.nn.functional as F

from . import _engine
from .tensor import TORCH_TO_NAME, LazyTensor, caller_site

T = torch.Tensor
HANDLERS = {}
_policy = {"fallback": os.environ.get("ASSAY_LAZY_FALLBACK", "error")}
_fallbacks = collections.Counter()


def set_fallback(policy):
    """"error" (the default): an unsupported op raises NotImplementedError naming it. "eager": it
    runs with PyTorch on the host on its materialised inputs, and is counted in report()."""
    if policy not in ("error", "eager"):
        raise ValueError("fallback policy %r: 'error' or 'eager'" % (policy,))
    _policy["fallback"] = policy


def report():
    """The ops that ran eagerly through the fallback, with their counts."""
    return dict(_fallbacks)


def op_name(func):
    mod = getattr(func, "__module__", None) or ""
    qual = getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func))
    if mod.startswith("torch._C._nn") or mod == "torch.nn.functional":
        return "torch.nn.functional." + qual
    if qual.startswith("_TensorBase.") or qual.startswith("Tensor."):
        return "torch.Tensor." + qual.split(".", 1)[1]
    if qual.startswith("_VariableFunctionsClass."):  # torch.cumsum and the other builtins
        return "torch." + qual.split(".", 1)[1]
    return ("torch." if not mod or mod == "torch" or mod.startswith("torch._C") else mod + ".") + qual


def handles(*funcs):
    def register(handler):
        for f in funcs:
            if f is not None:
                HANDLERS[f] = handler
        return handler
    return register


def _fn(module, name):
    return getattr(module, name, None)


def first_lazy(values):
    for v in values:
        if isinstance(v, LazyTensor):
            return v
        if isinstance(v, (list, tuple)):
            found = first_lazy(v)
            if found is not None:
                return found
    return None


def dispatch(func, args, kwargs):
    handler = HANDLERS.get(func)
    if handler is not None:
        return handler(*args, **kwargs)
    like = first_lazy(list(args) + list(kwargs.values()))
    if _policy["fallback"] == "eager" and like is not None:
        return _eager(func, args, kwargs, like)
    raise NotImplementedError("assay_lazy: %s is not supported on lazy tensors (recorded at %s); "
                              "assay_lazy.set_fallback('eager') runs unsupported ops with PyTorch on the host, "
                              "counted in assay_lazy.report()" % (op_name(func), caller_site()))


def _eager(func, args, kwargs, like):
    _fallbacks[op_name(func)] += 1

    def host(v):
        if isinstance(v, LazyTensor):
            return v.materialize()
        if isinstance(v, (list, tuple)):
            return type(v)(host(x) for x in v)
        return v

    with torch._C.DisableTorchFunction():
        out = func(*host(list(args)), **{k: host(v) for k, v in kwargs.items()})

    def back(v):
        if isinstance(v, torch.Tensor):
            return from_tensor(v, like.graph, like.device)
        if isinstance(v, (list, tuple)):
            return type(v)(back(x) for x in v)
        return v
    return back(out)


# --- making nodes
def from_tensor(t, graph, device, site=None):
    """A host tensor as a constant node (its values, rounded to its dtype)."""
    if t.dtype not in TORCH_TO_NAME:
        raise TypeError("assay_lazy: dtype %s has no lazy form (f32, f16, bf16, i64, bool)" % t.dtype)
    with torch._C.DisableTorchFunction():
        values = t.detach().to("cpu", torch.float64).reshape(-1).tolist()
    node = graph.from_host(tuple(t.shape), TORCH_TO_NAME[t.dtype], values, device, site or caller_site())
    return LazyTensor(graph, node, device)


def as_lazy(v, like):
    """An operand of an op whose other operand is `like`: a lazy tensor as is, a Python number as
    a 0-d constant of like's dtype (PyTorch's rule for scalars), a host tensor as a constant."""
    if isinstance(v, LazyTensor):
        if v.graph is not like.graph:
            raise _engine.LazyError("assay_lazy: tensors of two different graphs (assay_lazy.reset() between them?)")
        return v
    if isinstance(v, bool) or isinstance(v, (int, float)):
        node = like.graph.factory("full", (), TORCH_TO_NAME[like.dtype], float(v), like.device, caller_site())
        return LazyTensor(like.graph, node, like.device)
    if isinstance(v, torch.Tensor):
        return from_tensor(v, like.graph, like.device)
    raise TypeError("assay_lazy: cannot use %s as a tensor" % type(v).__name__)


def _new(like, node):
    return LazyTensor(like.graph, node, like.device)


def _binary(op, a, b):
    like = a if isinstance(a, LazyTensor) else b
    x, y = as_lazy(a, like), as_lazy(b, like)
    return _new(like, like.graph.elementwise(op, x.node, y.node, caller_site()))


def _unary(op, a):
    return _new(a, a.graph.elementwise(op, a.node, None, caller_site()))


def _dims(dim, ndim):
    if dim is None:
        return []
    if isinstance(dim, int):
        return [dim]
    return list(dim)


def _sizes(args):
    """(2, 3), ((2, 3),) or ([2, 3],) as a tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        return tuple(int(x) for x in args[0])
    return tuple(int(x) for x in args)


# --- elementwise
@handles(torch.add, T.add, T.__add__, T.__radd__)
def _add(a, b, alpha=1, **kw):
    if alpha != 1:
        b = _binary("mul", b, alpha) if isinstance(b, LazyTensor) else b * alpha
    return _binary("add", a, b)


@handles(torch.sub, T.sub, T.__sub__)
def _sub(a, b, alpha=1):
    if alpha != 1:
        b = _binary("mul", b, alpha) if isinstance(b, LazyTensor) else b * alpha
    return _binary("sub", a, b)


@handles(T.__rsub__, _fn(torch, "rsub"))
def _rsub(a, b, alpha=1):
    return _sub(b, a, alpha)


@handles(torch.mul, T.mul, T.__mul__, T.__rmul__)
def _mul(a, b):
    return _binary("mul", a, b)


@handles(torch.div, torch.true_divide, T.div, T.__truediv__)
def _div(a, b, rounding_mode=None):
    if rounding_mode is not None:
        raise NotImplementedError("assay_lazy: torch.div with rounding_mode=%r is not supported (recorded at %s)"
                                  % (rounding_mode, caller_site()))
    return _binary("div", a, b)


@handles(T.__rtruediv__)
def _rdiv(a, b):
    return _binary("div", b, a)


@handles(torch.neg, T.neg, T.__neg__)
def _neg(a):
    return _unary("neg", a)


for _op in ("exp", "log", "sqrt", "relu", "sigmoid", "tanh"):
    def _make(op):
        def handler(a, *args, **kwargs):
            if kwargs.get("inplace") or (args and args[0] is True):
                raise NotImplementedError("assay_lazy: in-place %s is not supported (recorded at %s)" % (op, caller_site()))
            return _unary(op, a)
        return handler
    handles(getattr(torch, _op), getattr(T, _op), _fn(F, _op))(_make(_op))


@handles(F.gelu)
def _gelu(a, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError("gelu: approximate=%r" % (approximate,))
    return _unary("gelu_tanh" if approximate == "tanh" else "gelu", a)


@handles(torch.where)
def _where(cond, a=None, b=None):
    if a is None:
        raise NotImplementedError("assay_lazy: torch.where(cond) (the indices form) is not supported (recorded at %s)"
                                  % caller_site())
    like = next(v for v in (a, b, cond) if isinstance(v, LazyTensor))
    if not isinstance(a, LazyTensor) and isinstance(b, LazyTensor):
        like = b
    c = as_lazy(cond, like) if isinstance(cond, (LazyTensor, torch.Tensor)) else None
    if c is None:
        raise TypeError("torch.where: the condition must be a tensor")
    x = as_lazy(a, like if isinstance(a, LazyTensor) or not isinstance(b, LazyTensor) else b)
    y = as_lazy(b, x)
    return _new(like, like.graph.where(c.node, x.node, y.node, caller_site()))


# --- casts
def _cast(a, dtype):
    if dtype not in TORCH_TO_NAME:
        raise TypeError("assay_lazy: dtype %s has no lazy form (f32, f16, bf16, i64, bool)" % dtype)
    if dtype == a.dtype:
        return a
    return _new(a, a.graph.cast(a.node, TORCH_TO_NAME[dtype], caller_site()))


@handles(T.to)
def _to(a, *args, **kwargs):
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    for v in args:
        if isinstance(v, torch.dtype):
            dtype = v
        elif isinstance(v, (str, torch.device)):
            device = v
    if device is not None and str(device) != a.device:
        if str(device) == "cpu":
            out = a.materialize()
            return out if dtype is None else out.to(dtype)
        raise NotImplementedError("assay_lazy: moving a lazy tensor to %s (recorded at %s): materialise it with .cpu()"
                                  % (device, caller_site()))
    return a if dtype is None else _cast(a, dtype)


for _name, _dt in (("float", torch.float32), ("half", torch.float16), ("bfloat16", torch.bfloat16),
                   ("long", torch.int64), ("bool", torch.bool)):
    handles(getattr(T, _name))((lambda dt: lambda a: _cast(a, dt))(_dt))


# --- linear algebra
@handles(torch.matmul, T.matmul, T.__matmul__, torch.mm, T.mm, torch.bmm, T.bmm)
def _matmul(a, b):
    like = a if isinstance(a, LazyTensor) else b
    x, y = as_lazy(a, like), as_lazy(b, like)
    return _new(like, like.graph.matmul(x.node, y.node, caller_site()))


@handles(T.__rmatmul__)
def _rmatmul(a, b):
    return _matmul(b, a)


@handles(F.linear)
def _linear(x, weight, bias=None):
    w = as_lazy(weight, x)
    b = None if bias is None else as_lazy(bias, x).node
    return _new(x, x.graph.linear(x.node, w.node, b, caller_site()))


def scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """softmax(q·kᵀ·scale [causal]) · v, also where torch has no F.scaled_dot_product_attention."""
    if attn_mask is not None or dropout_p:
        raise NotImplementedError("assay_lazy: scaled_dot_product_attention with attn_mask or dropout is not "
                                  "supported (recorded at %s)" % caller_site())
    return _new(q, q.graph.attention(q.node, as_lazy(k, q).node, as_lazy(v, q).node, is_causal, scale, caller_site()))


handles(_fn(F, "scaled_dot_product_attention"))(scaled_dot_product_attention)


# --- reductions
def _reduce(op, a, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        a = _cast(a, dtype)
    return _new(a, a.graph.reduce(op, a.node, _dims(dim, a.ndim), keepdim, caller_site()))


@handles(torch.sum, T.sum)
def _sum(a, dim=None, keepdim=False, dtype=None):
    return _reduce("sum", a, dim, keepdim, dtype)


@handles(torch.mean, T.mean)
def _mean(a, dim=None, keepdim=False, dtype=None):
    return _reduce("mean", a, dim, keepdim, dtype)


@handles(torch.amax, T.amax)
def _amax(a, dim=(), keepdim=False):
    return _reduce("max", a, dim if dim != () else None, keepdim)


@handles(torch.max, T.max)
def _max(a, dim=None, keepdim=False):
    if dim is not None or isinstance(a, LazyTensor) is False:
        raise NotImplementedError("assay_lazy: torch.max with a dim (it returns indices) is not supported; "
                                  "torch.amax is (recorded at %s)" % caller_site())
    return _reduce("max", a)


def _softmax_like(op, a, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        raise ValueError("%s: give dim" % op)
    if dtype is not None:
        a = _cast(a, dtype)
    return _new(a, a.graph.softmax(op, a.node, dim, caller_site()))


handles(torch.softmax, T.softmax, F.softmax)(lambda a, dim=None, *r, **k: _softmax_like("softmax", a, dim, *r, **k))
handles(torch.log_softmax, T.log_softmax, F.log_softmax)(
    lambda a, dim=None, *r, **k: _softmax_like("log_softmax", a, dim, *r, **k))


@handles(F.layer_norm)
def _layer_norm(a, normalized_shape, weight=None, bias=None, eps=1e-5):
    w = None if weight is None else as_lazy(weight, a).node
    b = None if bias is None else as_lazy(bias, a).node
    return _new(a, a.graph.layer_norm(a.node, tuple(normalized_shape), w, b, eps, caller_site()))


# --- views
@handles(torch.reshape, T.reshape, T.view)
def _reshape(a, *shape):
    return _new(a, a.graph.reshape(a.node, _sizes(shape), caller_site()))


@handles(torch.permute, T.permute)
def _permute(a, *dims):
    return _new(a, a.graph.permute(a.node, _sizes(dims), caller_site()))


@handles(torch.transpose, T.transpose)
def _transpose(a, d0, d1):
    perm = list(range(a.ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permute(a, perm)


@handles(T.t, torch.t)
def _t(a):
    return a if a.ndim < 2 else _transpose(a, 0, 1)


@handles(T.expand)
def _expand(a, *sizes):
    return _new(a, a.graph.expand(a.node, _sizes(sizes), caller_site()))


@handles(T.expand_as)
def _expand_as(a, other):
    return _expand(a, tuple(other.shape))


@handles(torch.unsqueeze, T.unsqueeze)
def _unsqueeze(a, dim):
    shape = list(a.shape)
    dim = dim if dim >= 0 else dim + len(shape) + 1
    shape.insert(dim, 1)
    return _reshape(a, shape)


@handles(torch.squeeze, T.squeeze)
def _squeeze(a, dim=None):
    shape = list(a.shape)
    if dim is None:
        return _reshape(a, [d for d in shape if d != 1])
    dim = dim if dim >= 0 else dim + len(shape)
    if shape[dim] != 1:
        return a
    return _reshape(a, shape[:dim] + shape[dim + 1:])


@handles(T.contiguous)
def _contiguous(a, *args, **kwargs):
    return a


@handles(T.__getitem__)
def _getitem(a, index):
    """Basic indexing: integers, slices with a positive step, None and one Ellipsis."""
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, (LazyTensor, torch.Tensor, list)) for i in index):
        raise NotImplementedError("assay_lazy: indexing with tensors or lists is not supported (recorded at %s)"
                                  % caller_site())
    if index.count(Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis")
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    if Ellipsis in index:
        e = index.index(Ellipsis)
        index = index[:e] + (slice(None),) * (a.ndim - used) + index[e + 1:]
    out, dim, final = a, 0, []
    for i in index:
        if i is None:
            final.append(1)
            continue
        size = out.shape[dim]
        if isinstance(i, int):
            j = i + size if i < 0 else i
            if not 0 <= j < size:
                raise IndexError("index %d is out of bounds for dimension %d with size %d" % (i, dim, size))
            out = _new(out, out.graph.slice(out.node, dim, j, j + 1, 1, caller_site()))
            dim += 1
            continue
        if isinstance(i, slice):
            start, stop, step = i.indices(size)
            if step < 1:
                raise ValueError("assay_lazy: slice steps must be positive")
            out = _new(out, out.graph.slice(out.node, dim, start, max(stop, start), step, caller_site()))
            final.append(out.shape[dim])
            dim += 1
            continue
        raise TypeError("assay_lazy: index %r is not supported" % (i,))
    final += list(out.shape[dim:])
    return out if list(out.shape) == final else _reshape(out, final)
