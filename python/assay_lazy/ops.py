"""The torch functions a LazyTensor records, each mapped to one engine op; everything else is
an error naming the op, or, with set_fallback("eager"), run eagerly on the host on materialised
inputs, its result a constant node of the graph (counted in report())."""
import collections
import os
import re

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
    if qual.split(".", 1)[0] in ("_TensorBase", "TensorBase", "Tensor"):  # TensorBase: torch 2.x's C methods
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


# In-place operators: a lazy tensor is an immutable value of the graph, so `a += b` on it would
# rebind `a` and leave its aliases and views unchanged. They, methods ending in `_`, inplace=True
# and out= are refused whatever the fallback policy (an eager run could not update the graph).
INPLACE_OPERATORS = {"__iadd__": "+=", "__isub__": "-=", "__imul__": "*=", "__itruediv__": "/=", "__idiv__": "/=",
                     "__ifloordiv__": "//=", "__imod__": "%=", "__ipow__": "**=", "__imatmul__": "@=",
                     "__iand__": "&=", "__ior__": "|=", "__ixor__": "^=", "__ilshift__": "<<=", "__irshift__": ">>=",
                     "__setitem__": "x[i] = v"}
_INPLACE_FUNCS = {getattr(T, n): n for n in INPLACE_OPERATORS if hasattr(T, n)}


def refuse_inplace(name, how=None):
    raise NotImplementedError("assay_lazy: %s%s writes in place, which lazy tensors do not support with either "
                              "fallback policy (a lazy tensor is an immutable value of the graph): write it out of "
                              "place, e.g. `a = a + b` (recorded at %s)"
                              % (name, " (%s)" % how if how else "", caller_site()))


def unsupported(func, args, kwargs, what=None):
    """The fallback policy for an op (or a form of one) that is not recorded: an error naming it, or
    with set_fallback("eager") a run with PyTorch on the host, counted in report()."""
    like = first_lazy(list(args) + list(kwargs.values()))
    if _policy["fallback"] == "eager" and like is not None:
        return _eager(func, args, kwargs, like)
    raise NotImplementedError("assay_lazy: %s is not supported on lazy tensors (recorded at %s); "
                              "assay_lazy.set_fallback('eager') runs unsupported ops with PyTorch on the host, "
                              "counted in assay_lazy.report()" % (what or op_name(func), caller_site()))


def dispatch(func, args, kwargs):
    if kwargs:
        if kwargs.get("out") is not None:
            refuse_inplace(op_name(func), "with out=")
        if kwargs.get("inplace"):
            refuse_inplace(op_name(func), "inplace=True")
    handler = HANDLERS.get(func)
    if handler is not None:
        try:
            return handler(*args, **kwargs)
        except TypeError as e:
            if e.__traceback__.tb_next is not None:  # raised inside the handler, not by the call's arguments
                raise
            detail = re.sub(r"^[\w<>.]+\(\) ", "", str(e))  # the handler's (private) name out of Python's message
            return unsupported(func, args, kwargs, "%s with these arguments (%s)" % (op_name(func), detail))
    if func in _INPLACE_FUNCS:
        refuse_inplace(op_name(func), INPLACE_OPERATORS[_INPLACE_FUNCS[func]])
    name = op_name(func)
    if name.endswith("_") and not name.endswith("__"):
        refuse_inplace(name)
    return unsupported(func, args, kwargs)


def _eager(func, args, kwargs, like):
    def host(v):
        if isinstance(v, LazyTensor):
            return v.materialize()
        if isinstance(v, (list, tuple)):
            return type(v)(host(x) for x in v)
        return v

    with torch._C.DisableTorchFunction():
        out = func(*host(list(args)), **{k: host(v) for k, v in kwargs.items()})
    _fallbacks[op_name(func)] += 1

    def back(v):
        if isinstance(v, torch.Tensor):
            if v.dtype not in TORCH_TO_NAME:
                raise TypeError("assay_lazy: %s ran eagerly (set_fallback('eager')) but gave %s, which has no lazy "
                                "form (f32, f16, bf16, i64, bool) (recorded at %s)"
                                % (op_name(func), v.dtype, caller_site()))
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
        args = args[0]
    return tuple(_engine.index(x, what="a size") for x in args)


# --- elementwise
@handles(torch.add, T.add, T.__add__, T.__radd__)
def _add(a, b, alpha=1):
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
        def handler(a, inplace=False):  # inplace: F.relu's
            if inplace:
                refuse_inplace("torch.nn.functional." + op, "inplace=True")
            return _unary(op, a)
        return handler
    handles(getattr(torch, _op), getattr(T, _op), _fn(F, _op))(_make(_op))


@handles(F.gelu)
def _gelu(a, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError("gelu: approximate=%r" % (approximate,))
    return _unary("gelu_tanh" if approximate == "tanh" else "gelu", a)


_KIND = {torch.bool: 0, torch.int64: 1, torch.float32: 2, torch.float16: 2, torch.bfloat16: 2}


def _scalar_dtype(v):
    """The dtype PyTorch gives a Python number that meets no tensor (bool, int64, the default float)."""
    if isinstance(v, bool):
        return torch.bool
    if isinstance(v, int):
        return torch.int64
    if isinstance(v, float):
        return torch.get_default_dtype()
    raise TypeError("assay_lazy: cannot use %s as a tensor (recorded at %s)" % (type(v).__name__, caller_site()))


def _constant(v, dtype, like):
    if dtype not in TORCH_TO_NAME:
        raise TypeError("assay_lazy: dtype %s has no lazy form (f32, f16, bf16, i64, bool)" % dtype)
    node = like.graph.factory("full", (), TORCH_TO_NAME[dtype], float(v), like.device, caller_site())
    return LazyTensor(like.graph, node, like.device)


@handles(T.where)
def _where_method(input, condition, other):
    return _where(condition, input, other)


@handles(torch.where)
def _where(condition, input=None, other=None):
    """torch.where(cond, a, b) (and x.where(cond, y), which is torch.where(cond, x, y)).
    Python numbers follow PyTorch's promotion: a number of a higher kind (bool < int < float) than
    the tensor beside it gives that kind's default dtype; two numbers give their own."""
    if input is None and other is None:
        raise NotImplementedError("assay_lazy: torch.where(cond) (the indices form) is not supported (recorded at %s)"
                                  % caller_site())
    like = first_lazy((condition, input, other))
    tensors = [v for v in (input, other) if isinstance(v, (LazyTensor, torch.Tensor))]
    if tensors:
        dtype = tensors[0].dtype
        for v in (input, other):
            if not isinstance(v, (LazyTensor, torch.Tensor)):
                sd = _scalar_dtype(v)
                if _KIND.get(sd, 3) > _KIND.get(dtype, 3):
                    dtype = sd
    else:
        dtype = max((_scalar_dtype(input), _scalar_dtype(other)), key=lambda d: _KIND[d])

    def operand(v):
        if isinstance(v, (LazyTensor, torch.Tensor)):
            t = as_lazy(v, like)
            return t if len(tensors) == 2 else _cast(t, dtype)  # two tensors: no implicit promotion
        return _constant(v, dtype, like)
    if not isinstance(condition, (LazyTensor, torch.Tensor)):
        raise TypeError("torch.where: the condition must be a tensor (recorded at %s)" % caller_site())
    c, x, y = as_lazy(condition, like), operand(input), operand(other)
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
    """to(dtype), to(device, dtype), to(other): other's device and dtype (a lazy other keeps the tensor
    lazy; a host other materialises it on the host, as to("cpu") does)."""
    dtype, device, other = kwargs.get("dtype"), kwargs.get("device"), kwargs.get("other")
    for v in args:
        if isinstance(v, torch.dtype):
            dtype = v
        elif isinstance(v, (str, torch.device)):
            device = v
        elif isinstance(v, (LazyTensor, torch.Tensor)):
            other = v
    if other is not None:
        dtype, device = other.dtype, other.device
    if not isinstance(a, LazyTensor):  # host.to(lazy_other)
        like = first_lazy((other,))
        with torch._C.DisableTorchFunction():
            host = a if dtype is None else a.to(dtype)
        return from_tensor(host, like.graph, like.device)
    if device is not None and str(device) != a.device:
        if str(device) == "cpu":
            out = a.materialize()
            return out if dtype is None else out.to(dtype)
        raise NotImplementedError("assay_lazy: moving a lazy tensor to %s (recorded at %s): materialise it with .cpu()"
                                  % (device, caller_site()))
    return a if dtype is None else _cast(a, dtype)


@handles(T.type_as)
def _type_as(a, other):
    return _to(a, other)


for _name, _dt in (("float", torch.float32), ("half", torch.float16), ("bfloat16", torch.bfloat16),
                   ("long", torch.int64), ("bool", torch.bool)):
    handles(getattr(T, _name))((lambda dt: lambda a: _cast(a, dt))(_dt))


# --- linear algebra
def _shape_text(t):
    return "[" + ",".join(str(d) for d in t.shape) + "]"


def _operands(*values):
    like = first_lazy(values)
    return [None if v is None else as_lazy(v, like) for v in values]


@handles(torch.matmul, T.matmul, T.__matmul__)
def _matmul(a, b):
    x, y = _operands(a, b)
    return _new(x, x.graph.matmul(x.node, y.node, caller_site()))


@handles(torch.mm, T.mm)
def _mm(a, b):
    x, y = _operands(a, b)
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[0]:
        raise _engine.LazyError("mm: needs [m,k] and [k,n], got %s and %s (recorded at %s)"
                                % (_shape_text(x), _shape_text(y), caller_site()))
    return _matmul(x, y)


@handles(torch.bmm, T.bmm)
def _bmm(a, b):
    x, y = _operands(a, b)
    if x.ndim != 3 or y.ndim != 3 or x.shape[0] != y.shape[0] or x.shape[2] != y.shape[1]:
        raise _engine.LazyError("bmm: needs [b,m,k] and [b,k,n] with the same b, got %s and %s (recorded at %s)"
                                % (_shape_text(x), _shape_text(y), caller_site()))
    return _matmul(x, y)


@handles(T.__rmatmul__)
def _rmatmul(a, b):
    return _matmul(b, a)


@handles(F.linear)
def _linear(input, weight, bias=None):
    x, w, b = _operands(input, weight, bias)
    return _new(x, x.graph.linear(x.node, w.node, None if b is None else b.node, caller_site()))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """softmax(q·kᵀ·scale [causal]) · v, also where torch has no F.scaled_dot_product_attention."""
    if attn_mask is not None or dropout_p:
        raise NotImplementedError("assay_lazy: scaled_dot_product_attention with attn_mask or dropout is not "
                                  "supported (recorded at %s)" % caller_site())
    q, k, v = _operands(query, key, value)
    return _new(q, q.graph.attention(q.node, k.node, v.node, is_causal, scale, caller_site()))


handles(_fn(F, "scaled_dot_product_attention"))(scaled_dot_product_attention)


# --- reductions
def _reduce(op, a, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        a = _cast(a, dtype)
    return _new(a, a.graph.reduce(op, a.node, _dims(dim, a.ndim), keepdim, caller_site()))


@handles(torch.sum, T.sum)
def _sum(input, dim=None, keepdim=False, dtype=None, axis=None):  # axis: NumPy's name, which torch takes too
    return _reduce("sum", input, axis if dim is None else dim, keepdim, dtype)


@handles(torch.mean, T.mean)
def _mean(input, dim=None, keepdim=False, dtype=None, axis=None):
    return _reduce("mean", input, axis if dim is None else dim, keepdim, dtype)


@handles(torch.amax, T.amax)
def _amax(input, dim=(), keepdim=False, axis=None):
    dim = axis if axis is not None else dim
    return _reduce("max", input, dim if dim != () else None, keepdim)


@handles(torch.max, T.max)
def _max(*args, **kwargs):
    """max() over all dims is recorded. max(x, dim) (values and indices) and max(x, other) (the
    elementwise maximum, which the engine has no op for) go to the fallback policy."""
    if len(args) == 1 and not kwargs:
        return _reduce("max", args[0])
    other = args[1] if len(args) > 1 else kwargs.get("other")
    if isinstance(other, (LazyTensor, torch.Tensor)):
        what = "torch.max(input, other) (the elementwise maximum)"
    else:
        what = "torch.max with a dim (it returns values and indices; torch.amax gives the values)"
    return unsupported(torch.max, args, kwargs, what)


def _softmax_like(op, a, dim, dtype):
    if dim is None:
        raise ValueError("%s: give dim" % op)
    if dtype is not None:
        a = _cast(a, dtype)
    return _new(a, a.graph.softmax(op, a.node, dim, caller_site()))


# torch.softmax(x, dim, dtype) and x.softmax(dim, dtype) take dtype third; F.softmax takes
# _stacklevel there and dtype fourth.
handles(torch.softmax, T.softmax)(lambda input, dim=None, dtype=None: _softmax_like("softmax", input, dim, dtype))
handles(F.softmax)(lambda input, dim=None, _stacklevel=3, dtype=None: _softmax_like("softmax", input, dim, dtype))
handles(torch.log_softmax, T.log_softmax)(
    lambda input, dim=None, dtype=None: _softmax_like("log_softmax", input, dim, dtype))
handles(F.log_softmax)(
    lambda input, dim=None, _stacklevel=3, dtype=None: _softmax_like("log_softmax", input, dim, dtype))


@handles(F.layer_norm)
def _layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    a, w, b = _operands(input, weight, bias)
    return _new(a, a.graph.layer_norm(a.node, tuple(normalized_shape), None if w is None else w.node,
                                      None if b is None else b.node, eps, caller_site()))


# --- views
def _wrap_dim(dim, ndim):
    """dim in [-ndim, ndim-1] (a 0-d tensor takes 0 and -1, as PyTorch's) as a non-negative index."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d) (recorded at %s)"
                         % (-n, n - 1, dim, caller_site()))
    return dim + n if dim < 0 else dim


@handles(torch.reshape, T.reshape, T.view)
def _reshape(a, *shape):
    return _new(a, a.graph.reshape(a.node, _sizes(shape), caller_site()))


@handles(torch.permute, T.permute)
def _permute(a, *dims):
    return _new(a, a.graph.permute(a.node, _sizes(dims), caller_site()))


@handles(torch.transpose, T.transpose)
def _transpose(a, dim0, dim1):
    d0, d1 = _wrap_dim(dim0, a.ndim), _wrap_dim(dim1, a.ndim)
    if a.ndim == 0:
        return a
    perm = list(range(a.ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permute(a, perm)


@handles(T.t, torch.t)
def _t(a):
    if a.ndim > 2:
        raise _engine.LazyError("t: expects a tensor with <= 2 dimensions, but self is %dD (recorded at %s)"
                                % (a.ndim, caller_site()))
    return a if a.ndim < 2 else _transpose(a, 0, 1)


@handles(T.expand)
def _expand(a, *sizes):
    return _new(a, a.graph.expand(a.node, _sizes(sizes), caller_site()))


@handles(T.expand_as)
def _expand_as(a, other):
    a = as_lazy(a, first_lazy((a, other)))
    return _expand(a, tuple(other.shape))


@handles(torch.unsqueeze, T.unsqueeze)
def _unsqueeze(a, dim):
    shape = list(a.shape)
    shape.insert(_wrap_dim(dim, len(shape) + 1), 1)
    return _reshape(a, shape)


@handles(torch.squeeze, T.squeeze)
def _squeeze(a, dim=None):
    shape = list(a.shape)
    if dim is None:
        return _reshape(a, [d for d in shape if d != 1])
    dims = {_wrap_dim(d, len(shape)) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
    kept = [d for i, d in enumerate(shape) if not (i in dims and d == 1)]
    return a if len(kept) == len(shape) else _reshape(a, kept)


@handles(T.contiguous)
def _contiguous(a, *args, **kwargs):
    return a


@handles(T.__getitem__)
def _getitem(a, index):
    """Basic indexing: integers, slices with a positive step, None, one Ellipsis, and one bool
    (True adds a dim of size 1 where it stands, False one of size 0, as PyTorch's)."""
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, (LazyTensor, torch.Tensor, list)) for i in index):
        raise NotImplementedError("assay_lazy: indexing with tensors or lists is not supported (recorded at %s)"
                                  % caller_site())
    bools = [i for i in index if isinstance(i, bool)]
    if len(bools) > 1:
        raise NotImplementedError("assay_lazy: torch.Tensor.__getitem__ with more than one bool index is not supported "
                                  "(recorded at %s)" % caller_site())
    if index.count(Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis")
    used = sum(1 for i in index if i is not None and i is not Ellipsis and not isinstance(i, bool))
    if used > a.ndim:
        raise IndexError("too many indices for tensor of dimension %d (recorded at %s)" % (a.ndim, caller_site()))
    if Ellipsis in index:
        e = index.index(Ellipsis)
        index = index[:e] + (slice(None),) * (a.ndim - used) + index[e + 1:]
    out, dim, final = a, 0, []
    for i in index:
        if i is None or isinstance(i, bool):
            final.append(0 if i is False else 1)
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
    if False in bools and out.numel():  # x[False]: no elements
        if out.ndim == 0:
            out = _reshape(out, [1])
        out = _new(out, out.graph.slice(out.node, 0, 0, 0, 1, caller_site()))
    return out if list(out.shape) == final else _reshape(out, final)
